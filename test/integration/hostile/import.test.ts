/**
 * Hostile imports (issue 15 items 3 and 4), as tables in the manner of security regression tests: each
 * row is a file given to `import`, the exit code and message it must get, and a check that the data
 * directory did not change (the org's export and the database file, byte for byte).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { databaseDigests } from '../../helpers/databaseFiles';
import { fixtureRecords } from '../../helpers/fixtures';
import { hasFileOpen } from '../../helpers/procfs';
import { killChildren, spawnCli } from '../../helpers/process';

const ORG = 'acme';

/** A data directory holding a small org, and what it holds, to compare after every refusal. */
async function seeded(): Promise<{
  dataDir: string;
  state: () => Promise<[string, Record<string, string>]>;
}> {
  const dataDir = tempDir();
  const good = join(tempDir(), 'good.json');
  writeFileSync(good, JSON.stringify({ datasets: fixtureRecords(5, 3, 'keep') }));
  const run = await cli(['import', '--org', ORG, good, '--data-dir', dataDir]);
  expect(run.code, run.stderr).toBe(0);
  const state = async (): Promise<[string, Record<string, string>]> => {
    const exported = await cli(['export', '--org', ORG, '-', '--data-dir', dataDir]);
    expect(exported.code, exported.stderr).toBe(0);
    return [exported.stdout, databaseDigests(dataDir)];
  };
  return { dataDir, state };
}

afterEach(() => killChildren());
afterAll(() => removeTempDirs());

describe('what import reads', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
    writeFileSync(join(dir, 'over.json'), `{"datasets": []}${' '.repeat(1024 * 1024)}`);
    if (process.platform !== 'win32') execFileSync('mkfifo', [join(dir, 'fifo')]);
  });

  const ROWS: { name: string; path: () => string; args?: string[]; message: RegExp; skip?: boolean }[] = [
    {
      name: 'a device that never ends (/dev/zero)',
      path: () => '/dev/zero',
      message: /\/dev\/zero is a device; import reads regular files only \(nothing was imported\)/,
      skip: process.platform === 'win32',
    },
    {
      name: 'a fifo with no writer',
      path: () => join(dir, 'fifo'),
      message: /is a fifo \(named pipe\); import reads regular files only \(nothing was imported\)/,
      skip: process.platform === 'win32',
    },
    {
      name: 'a directory',
      path: () => dir,
      message: /is a directory; import reads regular files only \(nothing was imported\)/,
    },
    {
      name: 'a file over the --max-size the user set',
      path: () => join(dir, 'over.json'),
      args: ['--max-size', '1'],
      message:
        /over\.json is 1\.0 MiB, over the import limit of 1 MiB set by --max-size \(nothing was imported\)/,
    },
    {
      name: 'a missing file',
      path: () => join(dir, 'missing.json'),
      message: /cannot read .*missing\.json: ENOENT.*\(nothing was imported\)/,
    },
  ];
  it.each(ROWS.filter((row) => !row.skip))('$name is refused at once, changing nothing', async (row) => {
    const { dataDir, state } = await seeded();
    const before = await state();
    const run = await cli(['import', '--org', ORG, row.path(), ...(row.args ?? []), '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(row.message);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(await state()).toEqual(before);
  });

  it('--max-size is an integer from 1 to 1048576 (1 TiB; usage error otherwise)', async () => {
    const run = await cli(['import', '--org', ORG, join(dir, 'over.json'), '--max-size', '1048577']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--max-size.*expected an integer from 1 to 1048576/);
  });

  it.skipIf(process.platform === 'win32')(
    'the real CLI given a fifo answers at once instead of waiting for a writer',
    async () => {
      const { dataDir, state } = await seeded();
      const before = await state();
      const child = spawnCli(['import', '--org', ORG, join(dir, 'fifo'), '--data-dir', dataDir]);
      const code = await Promise.race([
        child.exited,
        new Promise((resolve) => setTimeout(() => resolve('hung'), 15_000)),
      ]);
      expect(code, child.stderr()).toBe(1);
      expect(child.stderr()).toMatch(/is a fifo \(named pipe\); import reads regular files only/);
      expect(await state()).toEqual(before);
    },
    30_000,
  );
});

/** A dataset record with one delivery, valid unless `extra` breaks it. */
function record(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    datasetId: id,
    datasetName: `Name of ${id}`,
    deliveryId: `${id}-d0`,
    deliveryEventList: [
      { deliveryId: `${id}-d0`, status: 'HEALTHY', deliveryDeadline: '2026-11-20T04:00:00Z' },
    ],
    ...extra,
  };
}

function withConfig(config: Record<string, string>): Record<string, unknown> {
  return record('cfg', { currentProcessingDeadlineConfig: config });
}

function tasksOf(deliveryId: string | null, detailsDeliveryId: string | null = deliveryId) {
  return {
    ingest: {
      status: 'SUCCEEDED',
      timestamp: null,
      tasks: [{ taskId: 't1', deliveryId, status: 'SUCCEEDED', details: { deliveryId: detailsDeliveryId } }],
    },
  };
}

const MB50 = 'x'.repeat(50 * 1024 * 1024);

/** `text` matched literally in a RegExp. */
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** An acknowledgement of dataset `a`'s delivery, ended unless `extra` says otherwise. */
function ackOf(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    datasetId: 'a',
    deliveryId: 'a-d0',
    status: 'FAILED',
    by: 'sam',
    at: '2026-11-20T05:00:00Z',
    endedAt: '2026-11-20T06:00:00Z',
    endReason: 'delivered (HEALTHY)',
    ...extra,
  };
}

/** File text (a string is written as is), the message of the refusal; the exit is always 1. */
const REFUSED: [name: string, file: unknown, message: RegExp][] = [
  [
    'an unknown top-level field',
    { datasets: [], extra: 1 },
    /\$\.extra: unknown field 'extra' \(allowed: datasets, tasks, timeline, acknowledgements, syncOutages, incidents\)/,
  ],
  [
    'a top-level __proto__',
    '{"datasets": [], "__proto__": {"polluted": true}}',
    /\$\.__proto__: unknown field '__proto__'/,
  ],
  ['a 50 MB top-level key', `{"datasets": [], "${MB50}": 1}`, /\$\["x{64}…"\]: unknown field 'x{64}…'/],
  [
    'a 50 MB datasetId',
    // Only the id: the record stays under the 64 MiB a record may have.
    { datasets: [{ ...record('a'), datasetId: MB50 }] },
    /\$\.datasets\[0\]\.datasetId: 52428800 characters, over the limit of 256 for datasetId/,
  ],
  [
    'a dataset record of 200 MB (a 50 MB id in each of its four ids)',
    { datasets: [record(MB50)] },
    /\$\.datasets\[0\] \(line 1, column 14\): over 64 MiB of JSON text, the limit for one record/,
  ],
  [
    'a 257-character deliveryId',
    { datasets: [record('a', { deliveryId: 'd'.repeat(257) })] },
    /\$\.datasets\[0\]\.deliveryId: 257 characters, over the limit of 256/,
  ],
  [
    'a 1,025-character datasetName',
    { datasets: [record('a', { datasetName: 'n'.repeat(1025) })] },
    /\$\.datasets\[0\]\.datasetName: 1025 characters, over the limit of 1024/,
  ],
  [
    'a 1,025-character supplier name',
    { datasets: [record('a', { supplier: { id: 's', name: 'n'.repeat(1025) } })] },
    /\$\.datasets\[0\]\.supplier\.name: 1025 characters, over the limit of 1024/,
  ],
  [
    'a task message over 64 KiB',
    {
      datasets: [record('a')],
      tasks: { 'a-d0': { ingest: { tasks: [{ taskId: 't', message: 'm'.repeat(65_537) }] } } },
    },
    /\$\.tasks\["a-d0"\]\.ingest\.tasks\[0\]\.message: 65537 characters, over the limit of 65536/,
  ],
  [
    'a 300-character tasks key',
    { datasets: [record('a')], tasks: { ['k'.repeat(300)]: {} } },
    /\$\.tasks\["k{64}…"\]: a deliveryId of 300 characters, over the limit of 256/,
  ],
  [
    'a delivery under two datasets of the file',
    { datasets: [record('a'), record('b', { deliveryEventList: [{ deliveryId: 'a-d0' }] })] },
    /\$\.datasets\[1\]\.deliveryEventList\[0\]\.deliveryId: delivery 'a-d0' also belongs to \$\.datasets\[0\]\.deliveryEventList\[0\]\.deliveryId/,
  ],
  [
    "a delivery stored under another of the org's datasets",
    {
      datasets: [
        record('new', {
          deliveryId: 'keep-0000.X-dlv-0',
          deliveryEventList: [{ deliveryId: 'keep-0000.X-dlv-0' }],
        }),
      ],
    },
    /\$\.datasets\[0\]\.deliveryEventList\[0\]\.deliveryId: delivery 'keep-0000\.X-dlv-0' is already stored under dataset 'keep-0000\.X' of org 'acme'/,
  ],
  [
    'a delivery status with markup',
    { datasets: [record('a', { deliveryEventList: [{ deliveryId: 'a-d0', status: '<img src=x>' }] })] },
    /\$\.datasets\[0\]\.deliveryEventList\[0\]\.status: '<img src=x>' is not a status \(letters, digits, _ and - only; e\.g\. FAILED, MISSING, DELIVERED_LATE, HEALTHY, IN_PROGRESS\)/,
  ],
  [
    'a status with a terminal escape',
    { datasets: [record('a', { latestDeliveryStatus: 'FAILED\u001b[31m' })] },
    /\$\.datasets\[0\]\.latestDeliveryStatus: 'FAILED\\u001b\[31m' is not a status/,
  ],
  [
    'a task status with spaces',
    { datasets: [record('a')], tasks: { 'a-d0': { process: { status: 'NOT OK' } } } },
    /\$\.tasks\["a-d0"\]\.process\.status: 'NOT OK' is not a status/,
  ],
  [
    'a time zone on Mars',
    { datasets: [withConfig({ timezone: 'Mars/Olympus' })] },
    /\$\.datasets\[0\]\.currentProcessingDeadlineConfig\.timezone: 'Mars\/Olympus' is not an IANA time zone/,
  ],
  [
    'a time zone that is a path',
    { datasets: [withConfig({ timezone: '../../etc/passwd' })] },
    /currentProcessingDeadlineConfig\.timezone: '\.\.\/\.\.\/etc\/passwd' is not an IANA time zone/,
  ],
  [
    'a time zone that is an offset',
    { datasets: [withConfig({ timezone: '+05:00' })] },
    /timezone: '\+05:00' is not an IANA time zone/,
  ],
  [
    'minute 61',
    { datasets: [withConfig({ minute: '61', hour: '4' })] },
    /currentProcessingDeadlineConfig\.minute: '61' is not a valid minute field/,
  ],
  [
    'month 13',
    { datasets: [withConfig({ month: '13' })] },
    /currentProcessingDeadlineConfig\.month: '13' is not a valid month field/,
  ],
  [
    'a cron expression out of range',
    { datasets: [withConfig({ cronExpression: '0 25 * * *' })] },
    /currentProcessingDeadlineConfig\.cronExpression: '0 25 \* \* \*' is not a valid schedule: Invalid value for hour: 25/,
  ],
  [
    'a cron expression of 4 fields',
    { datasets: [withConfig({ cronExpression: '0 4 * *' })] },
    /cronExpression: '0 4 \* \*' has 4 fields; expected 5 \(minute hour dayOfTheMonth month dayOfWeek\), 6 \(and year\) or 7 \(second first/,
  ],
  [
    'a cron expression of 8 fields',
    { datasets: [withConfig({ cronExpression: '0 0 4 * * * * *' })] },
    /cronExpression: '0 0 4 \* \* \* \* \*' has 8 fields/,
  ],
  [
    'a 7-field cron expression out of range (seconds first)',
    { datasets: [withConfig({ cronExpression: '60 0 4 * * * 2027' })] },
    /cronExpression: '60 0 4 \* \* \* 2027' is not a valid schedule/,
  ],
  [
    "an event's cron expression",
    {
      datasets: [
        record('a', {
          deliveryEventList: [
            { deliveryId: 'a-d0', processingDeadlineConfig: { cronExpression: '* * * * * 99999' } },
          ],
        }),
      ],
    },
    /\$\.datasets\[0\]\.deliveryEventList\[0\]\.processingDeadlineConfig\.cronExpression: .* is not a valid schedule/,
  ],
  [
    'a task of another delivery',
    { datasets: [record('a')], tasks: { 'a-d0': tasksOf('other') } },
    /\$\.tasks\["a-d0"\]\.ingest\.tasks\[0\]\.deliveryId: 'other' differs from the delivery the record is filed under, 'a-d0'/,
  ],
  [
    'task details of another delivery',
    { datasets: [record('a')], tasks: { 'a-d0': tasksOf('a-d0', 'other') } },
    /\$\.tasks\["a-d0"\]\.ingest\.tasks\[0\]\.details\.deliveryId: 'other' differs/,
  ],
  [
    'a timeline kind with markup',
    { datasets: [record('a')], timeline: { a: [{ at: '2026-11-20T05:00:00Z', kind: '<script>' }] } },
    /\$\.timeline\["a"\]\[0\]\.kind: '<script>' is not a timeline kind \(allowed: status, notified/,
  ],
  [
    "an outage in a dataset's timeline",
    {
      datasets: [record('a')],
      timeline: { a: [{ at: '2026-11-20T05:00:00Z', kind: 'outage', text: 'Lost contact with S' }] },
    },
    /\$\.timeline\["a"\]\[0\]\.kind: an outage is the org's, not a dataset's: give it in \$\.syncOutages \(every dataset's timeline shows the org's outages\)/,
  ],
  [
    "a timeline of the org's dataset that is not in the file",
    { datasets: [record('a')], timeline: { 'keep-0000.X': [] } },
    /\$\.timeline\["keep-0000\.X"\]: the timeline of dataset 'keep-0000\.X', which is not in the file's datasets/,
  ],
  [
    'a timeline given twice',
    `{"datasets": [${JSON.stringify(record('a'))}], "timeline": {"a": [], "a": []}}`,
    /\$\.timeline\["a"\]: given twice \(a datasetId names one timeline\)/,
  ],
  [
    'a 50 MB acknowledgement note',
    { datasets: [record('a')], acknowledgements: [ackOf({ note: MB50 })] },
    /\$\.acknowledgements\[0\]\.note: 52428800 characters, over the limit of 2000 for note/,
  ],
  [
    'a NUL in who acknowledged',
    { datasets: [record('a')], acknowledgements: [ackOf({ by: 'sam\u0000' })] },
    /\$\.acknowledgements\[0\]\.by: the name has a control character \(U\+0000\); a name is plain text/,
  ],
  [
    'a terminal escape in who withdrew, on the timeline',
    {
      datasets: [record('a')],
      timeline: {
        a: [{ at: '2026-11-20T05:00:00Z', kind: 'unacknowledged', deliveryId: 'a-d0', by: '\u001b[2Jsam' }],
      },
    },
    /\$\.timeline\["a"\]\[0\]\.by: the name has a control character \(U\+001B\); a name is plain text/,
  ],
  [
    'a C1 control in a note',
    { datasets: [record('a')], acknowledgements: [ackOf({ note: 'on it\u009b31m' })] },
    /\$\.acknowledgements\[0\]\.note: the note has a control character \(U\+009B\); a note holds text, line breaks and tabs/,
  ],
  [
    'a name with spaces around it (the app keeps names trimmed)',
    { datasets: [record('a')], acknowledgements: [ackOf({ by: ' sam' })] },
    /\$\.acknowledgements\[0\]\.by: the name has spaces at its start or end \(names are kept trimmed\)/,
  ],
  [
    'an ended acknowledgement of a delivery its dataset does not have',
    { datasets: [record('a')], acknowledgements: [ackOf({ deliveryId: 'a-d9' })] },
    /\$\.acknowledgements\[0\]\.deliveryId: dataset 'a' has no delivery 'a-d9' in the file \(an acknowledgement is of one of its dataset's deliveries: an event's deliveryId or the record's\)/,
  ],
  [
    'an acknowledged entry of a delivery without its acknowledgement',
    {
      datasets: [record('a')],
      timeline: { a: [{ at: '2026-11-20T05:00:00Z', kind: 'acknowledged', deliveryId: 'a-d0', by: 'sam' }] },
    },
    /\$\.timeline\["a"\]\[0\]\.deliveryId: an 'acknowledged' entry of delivery 'a-d0', but the file has no acknowledgement of dataset 'a' and that delivery \(give it in \$\.acknowledgements, or an 'unacknowledged' entry at or after this one if it was withdrawn\)/,
  ],
  [
    "an acknowledgement's end without its acknowledgement",
    {
      datasets: [record('a')],
      timeline: { a: [{ at: '2026-11-20T05:00:00Z', kind: 'acknowledgement-ended', deliveryId: 'a-d0' }] },
    },
    /\$\.timeline\["a"\]\[0\]\.deliveryId: an 'acknowledgement-ended' entry of delivery 'a-d0', but the file has no acknowledgement/,
  ],
  [
    'an acknowledgement withdrawn before it was made',
    {
      datasets: [record('a')],
      timeline: {
        a: [
          { at: '2026-11-20T05:00:00Z', kind: 'acknowledged', deliveryId: 'a-d0', by: 'sam' },
          { at: '2026-11-20T04:59:00Z', kind: 'unacknowledged', deliveryId: 'a-d0', by: 'sam' },
        ],
      },
    },
    /\$\.timeline\["a"\]\[0\]\.deliveryId: an 'acknowledged' entry of delivery 'a-d0', but the file has no acknowledgement/,
  ],
  [
    'an acknowledged entry without a delivery',
    {
      datasets: [record('a')],
      timeline: { a: [{ at: '2026-11-20T05:00:00Z', kind: 'acknowledged', by: 'sam' }] },
    },
    /\$\.timeline\["a"\]\[0\]\.deliveryId: missing; an 'acknowledged' entry names the delivery acknowledged/,
  ],
  [
    'an open acknowledgement of a dataset that is HEALTHY',
    {
      datasets: [record('a', { latestDeliveryStatus: 'HEALTHY' })],
      acknowledgements: [ackOf({ endedAt: null, endReason: null })],
    },
    /\$\.acknowledgements\[0\]\.endedAt: an open acknowledgement of FAILED delivery 'a-d0', but the file's dataset 'a' is HEALTHY/,
  ],
  [
    'an acknowledgement for another org',
    { datasets: [record('a')], acknowledgements: [ackOf({ orgId: 'globex' })] },
    /\$\.acknowledgements\[0\]\.orgId: unknown field 'orgId'/,
  ],
  ...(
    [
      [
        'a record time before year 0000 in UTC',
        { datasets: [record('a', { latestDeliveryTimestamp: '0000-01-01T00:00:00+01:00' })] },
        '$.datasets[0].latestDeliveryTimestamp',
        '0000-01-01T00:00:00+01:00',
        '-000001-12-31T23:00:00.000Z',
      ],
      [
        'a deadline after year 9999 in UTC',
        {
          datasets: [
            record('a', {
              deliveryEventList: [{ deliveryId: 'a-d0', deliveryDeadline: '9999-12-31T23:30:00-01:00' }],
            }),
          ],
        },
        '$.datasets[0].deliveryEventList[0].deliveryDeadline',
        '9999-12-31T23:30:00-01:00',
        '+010000-01-01T00:30:00.000Z',
      ],
      [
        'a run detail before year 0000',
        {
          datasets: [
            record('a', {
              deliveryEventList: [
                {
                  deliveryId: 'a-d0',
                  runDetails: [{ stage: 'ingest', startedAt: '0000-01-01 00:30+00:31' }],
                },
              ],
            }),
          ],
        },
        '$.datasets[0].deliveryEventList[0].runDetails[0].startedAt',
        '0000-01-01 00:30+00:31',
        '-000001-12-31T23:59:00.000Z',
      ],
      [
        'a task time after year 9999',
        {
          datasets: [record('a')],
          tasks: {
            'a-d0': { dispatch: { tasks: [{ taskId: 't', taskEndedAt: '9999-12-31T23:59:59.999-00:01' }] } },
          },
        },
        '$.tasks["a-d0"].dispatch.tasks[0].taskEndedAt',
        '9999-12-31T23:59:59.999-00:01',
        '+010000-01-01T00:00:59.999Z',
      ],
      [
        'a timeline time before year 0000',
        { datasets: [record('a')], timeline: { a: [{ at: '0000-01-01T00:00:00+00:01', kind: 'notified' }] } },
        '$.timeline["a"][0].at',
        '0000-01-01T00:00:00+00:01',
        '-000001-12-31T23:59:00.000Z',
      ],
      [
        'an acknowledgement ended after year 9999',
        { datasets: [record('a')], acknowledgements: [ackOf({ endedAt: '9999-12-31T23:00:00-01:00' })] },
        '$.acknowledgements[0].endedAt',
        '9999-12-31T23:00:00-01:00',
        '+010000-01-01T00:00:00.000Z',
      ],
      [
        'a sync outage lost before year 0000',
        { datasets: [], syncOutages: [{ sourceId: 's', sourceName: 'S', lostAt: '0000-01-01T00:00+01:00' }] },
        '$.syncOutages[0].lostAt',
        '0000-01-01T00:00+01:00',
        '-000001-12-31T23:00:00.000Z',
      ],
    ] as [string, unknown, string, string, string][]
  ).map(([name, file, path, given, utc]): [string, unknown, RegExp] => [
    name,
    file,
    new RegExp(
      `^[^\\n]*: ${escape(path)}: ${escape(`'${given}' is ${utc} in UTC`)}: times must lie between 0000-01-01T00:00:00\\.000Z and 9999-12-31T23:59:59\\.999Z`,
    ),
  ]),
  [
    'the same sync outage twice (same source and start, written two ways)',
    {
      datasets: [],
      syncOutages: [
        { sourceId: 's', sourceName: 'S', lostAt: '2026-11-20T05:00:00Z' },
        { sourceId: 't', sourceName: 'T', lostAt: '2026-11-20T05:00:00Z' },
        { sourceId: 's', sourceName: 'S again', lostAt: '2026-11-20T06:00:00+01:00' },
      ],
    },
    /\$\.syncOutages\[2\]\.lostAt: source 's' lost contact at 2026-11-20T05:00:00\.000Z also at \$\.syncOutages\[0\] \(one outage per source and start\)/,
  ],
  [
    'a sync outage in month 13',
    { datasets: [], syncOutages: [{ sourceId: 's', sourceName: 'S', lostAt: '2026-13-01T00:00:00Z' }] },
    /\$\.syncOutages\[0\]\.lostAt: '2026-13-01T00:00:00Z' is not an RFC 3339 datetime/,
  ],
];

describe('hostile snapshot files', () => {
  let dataDir: string;
  let state: () => Promise<[string, Record<string, string>]>;
  beforeAll(async () => {
    ({ dataDir, state } = await seeded());
  });

  it.each(REFUSED)(
    '%s: exit 1, the JSON path of the problem, nothing changed',
    async (_name, file, message) => {
      const before = await state();
      const path = join(tempDir(), 'hostile.json');
      writeFileSync(path, typeof file === 'string' ? file : JSON.stringify(file));
      const run = await cli(['import', '--org', ORG, path, '--data-dir', dataDir]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/\(nothing was imported\)\n$/);
      // One short line: a refusal never echoes a 50 MB value.
      expect(run.stderr.split('\n')).toHaveLength(2);
      expect(run.stderr.length).toBeLessThan(1_000);
      expect(await state()).toEqual(before);
    },
  );

  const ACCEPTED: [name: string, file: unknown][] = [
    [
      'an unknown status word (stored as given, as a sync does)',
      { datasets: [record('a', { latestDeliveryStatus: 'failed' })] },
    ],
    [
      'an ownerOrgId other than the local org (the remote owner, kept)',
      { datasets: [record('b', { ownerOrgId: 'org-remote' })] },
    ],
    [
      'names and ids at their limits',
      {
        datasets: [
          record('i'.repeat(256), { datasetName: 'n'.repeat(1024), deliveryId: null, deliveryEventList: [] }),
        ],
      },
    ],
    [
      '5- and 6-field cron expressions in IANA zones',
      {
        datasets: [
          withConfig({ cronExpression: '30 6 * * 1-5', timezone: 'America/New_York' }),
          record('c6', {
            currentProcessingDeadlineConfig: { cronExpression: '30 6 * * * 2026', timezone: 'UTC' },
          }),
        ],
      },
    ],
    [
      'the same dataset again with its own deliveries',
      {
        datasets: [
          record('keep-0000.X', {
            deliveryId: 'keep-0000.X-dlv-0',
            deliveryEventList: [{ deliveryId: 'keep-0000.X-dlv-0' }],
          }),
        ],
      },
    ],
    [
      'tasks whose deliveryIds are null or the key',
      { datasets: [record('t')], tasks: { 't-d0': tasksOf(null, 't-d0') } },
    ],
    [
      "the knowledge of the file's datasets, and sync outages",
      {
        datasets: [record('a')],
        timeline: { a: [{ at: '2026-11-20T05:00:00+01:00', kind: 'status', from: null, to: 'HEALTHY' }] },
        acknowledgements: [
          ackOf({ causeId: 'INGEST:E_AUTH', note: 'line one\n\tline two', by: 'Ana María' }),
        ],
        syncOutages: [{ sourceId: 's', sourceName: 'S', lostAt: '2026-11-20T05:00:00Z', regainedAt: null }],
      },
    ],
    [
      'acknowledgements of datasets and deliveries whose ids hold spaces ("a b" + "c", "a" + "b c")',
      {
        datasets: [
          record('a b', { deliveryId: 'c', deliveryEventList: [{ deliveryId: 'c' }] }),
          record('a', { deliveryId: 'b c', deliveryEventList: [{ deliveryId: 'b c' }] }),
        ],
        acknowledgements: [
          ackOf({ datasetId: 'a b', deliveryId: 'c' }),
          ackOf({ datasetId: 'a', deliveryId: 'b c' }),
        ],
      },
    ],
    [
      'a withdrawn acknowledgement (its entries, none in acknowledgements) and entries of a delivery retention dropped',
      {
        datasets: [record('a')],
        timeline: {
          a: [
            { at: '2026-11-20T05:00:00Z', kind: 'acknowledged', deliveryId: 'a-d0', by: 'sam' },
            { at: '2026-11-20T05:00:00Z', kind: 'unacknowledged', deliveryId: 'a-d0', by: 'sam' },
            { at: '2026-11-20T05:10:00Z', kind: 'acknowledged', deliveryId: 'a-dropped', by: 'sam' },
            { at: '2026-11-20T05:20:00Z', kind: 'acknowledgement-ended', deliveryId: 'a-dropped' },
          ],
        },
      },
    ],
  ];
  it.each(ACCEPTED)('%s is imported', async (_name, file) => {
    const path = join(tempDir(), 'fine.json');
    writeFileSync(path, JSON.stringify(file));
    const run = await cli(['import', '--org', ORG, path, '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
  });
});

describe('times at the ends of the calendar', () => {
  it('are kept when their instant is within years 0000 to 9999 of UTC, and their export imports again byte for byte', async () => {
    let file = join(tempDir(), 'edges.json');
    writeFileSync(
      file,
      JSON.stringify({
        datasets: [
          record('edge', {
            latestDeliveryTimestamp: '9999-12-31T22:59:59.999-01:00',
            deliveryEventList: [
              {
                deliveryId: 'edge-d0',
                deliveryDeadline: '0000-01-01T01:00:00+01:00',
                deliveredAt: '0000-02-29',
              },
            ],
          }),
        ],
        timeline: { edge: [{ at: '9999-12-31T23:59:59.9999Z', kind: 'notified', text: 'far' }] },
        syncOutages: [{ sourceId: 's', sourceName: 'S', lostAt: '0000-01-01T00:00:00-00:00' }],
      }),
    );
    const exports: string[] = [];
    for (let i = 0; i < 2; i++) {
      const dataDir = tempDir();
      const run = await cli(['import', '--org', ORG, file, '--data-dir', dataDir]);
      expect(run.code, run.stderr).toBe(0);
      const exported = await cli(['export', '--org', ORG, '-', '--data-dir', dataDir]);
      expect(exported.code, exported.stderr).toBe(0);
      exports.push(exported.stdout);
      writeFileSync((file = join(tempDir(), 'again.json')), exported.stdout);
    }
    expect(exports[1]).toBe(exports[0]);
    for (const time of [
      '"9999-12-31T23:59:59.999Z"',
      '"0000-01-01T00:00:00.000Z"',
      '"0000-02-29T00:00:00.000Z"',
    ])
      expect(exports[0]).toContain(time);
  });
});

/**
 * An import is written as its file is read, a chunk at a time (docs/architecture.md#performance-budgets): a problem near the end of
 * a large file must still undo everything written before it, in a data directory with an org in it and
 * in an empty one (whose indexes the import drops while it writes and builds again at its end).
 */
describe('a problem late in a large file', () => {
  let dir: string;
  const files: Record<string, string> = {};
  beforeAll(() => {
    dir = tempDir();
    // 6,000 datasets of 20 deliveries: ~8 MB, a record per line as export writes them.
    const records = Array.from({ length: 6_000 }, (_, i) =>
      record(`late-${i}`, {
        deliveryEventList: Array.from({ length: 20 }, (_, j) => ({
          deliveryId: `late-${i}-d${j}`,
          status: 'HEALTHY',
          deliveryDeadline: new Date(Date.UTC(2026, 10, 20 - j, 4)).toISOString(),
        })),
      }),
    );
    const lines = records.map((r) => JSON.stringify(r));
    /** A file of these dataset records (JSON text, one per line) and tasks. */
    const write = (name: string, datasets: string[], tasks: Record<string, unknown> = {}): void => {
      files[name] = join(dir, `${name}.json`);
      const filed = Object.entries(tasks).map(([k, v]) => `\n${JSON.stringify(k)}:${JSON.stringify(v)}`);
      writeFileSync(
        files[name],
        `{"datasets":[\n${datasets.join(',\n')}\n],"tasks":{${filed.join(',')}\n}}\n`,
      );
    };
    write('good', lines, { 'late-5999-d0': tasksOf('late-5999-d0') });
    write('badStatus', [
      ...lines.slice(0, -1),
      JSON.stringify(record('late-5999', { latestDeliveryStatus: 'NOT OK' })),
    ]);
    write('notJson', [...lines.slice(0, -1), '{"datasetId": "late-5999",}']);
    write('unknownTasks', lines, { nowhere: tasksOf('nowhere') });
  });

  const ROWS: [file: string, message: RegExp][] = [
    ['badStatus', /\$\.datasets\[5999\]\.latestDeliveryStatus: 'NOT OK' is not a status/],
    [
      'notJson',
      /not valid JSON in \$\.datasets\[5999\] \(line 6001, column 27\): Expected double-quoted property name/,
    ],
    [
      'unknownTasks',
      /\$\.tasks\["nowhere"\]: no dataset of the file or of org 'acme' has a delivery with this id/,
    ],
  ];
  for (const kind of ['an org in it', 'nothing in it'] as const) {
    it.each(ROWS)(
      `%s: refused, the data directory with ${kind} unchanged`,
      async (file, message) => {
        const { dataDir, state } =
          kind === 'an org in it'
            ? await seeded()
            : await (async () => {
                const empty = tempDir();
                // An empty database (`keys list` no longer makes one in a new data directory).
                await (await Store.open({ dataDir: empty })).close();
                return {
                  dataDir: empty,
                  state: async () => [
                    (await cli(['keys', 'list', '--data-dir', empty])).stdout,
                    databaseDigests(empty),
                  ],
                };
              })();
        const before = await state();
        const run = await cli(['import', '--org', ORG, files[file]!, '--data-dir', dataDir]);
        expect(run.code).toBe(1);
        expect(run.stderr).toMatch(message);
        expect(run.stderr).toMatch(/\(nothing was imported\)\n$/);
        expect(run.stderr.split('\n')).toHaveLength(2);
        expect(await state()).toEqual(before);
        // And the directory takes the good file afterwards.
        const good = await cli(['import', '--org', ORG, files.good!, '--data-dir', dataDir]);
        expect(good.stderr).toMatch(/Imported 6000 datasets and the tasks of 1 deliveries/);
      },
      60_000,
    );
  }
});

describe.skipIf(process.platform !== 'linux')('signals', () => {
  let big: string;
  beforeAll(() => {
    // 20,000 datasets of 30 deliveries (~110 MB): reading and checking take a few hundred ms, the
    // write several seconds.
    big = join(tempDir(), 'big.json');
    const parts: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const events = Array.from({ length: 30 }, (_, j) => ({
        deliveryId: `big-${i}-${j}`,
        status: 'HEALTHY',
        deliveryDeadline: new Date(Date.UTC(2026, 10, 20 - j, 4)).toISOString(),
        processingDeadlineConfig: { cronExpression: '0 4 * * *', timezone: 'Europe/London' },
      }));
      parts.push(
        JSON.stringify({
          datasetId: `big-${i}`,
          datasetName: `Big ${i}`,
          deliveryId: `big-${i}-0`,
          deliveryEventList: events,
        }),
      );
    }
    writeFileSync(big, `{"datasets":[${parts.join(',')}]}`);
  });

  /** Sends `signal` once the CLI reads the file (then it still parses and checks it), or later. */
  async function interrupted(signal: NodeJS.Signals, afterReadMs: number) {
    const { dataDir, state } = await seeded();
    const before = await state();
    const child = spawnCli(['import', '--org', ORG, big, '--data-dir', dataDir]);
    while (!hasFileOpen(child.child.pid!, big)) {
      if (child.child.exitCode !== null) throw new Error(`exited early: ${child.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await new Promise((resolve) => setTimeout(resolve, afterReadMs));
    const sent = Date.now();
    child.child.kill(signal);
    const code = await child.exited;
    return { code, stderr: child.stderr(), ms: Date.now() - sent, before, after: await state(), dataDir };
  }

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s while the file is read and checked: exit 1 at once, nothing changed, the lock released',
    async (signal) => {
      const run = await interrupted(signal, 0);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`import stopped by ${signal} \\(nothing was imported\\)`));
      expect(run.ms).toBeLessThan(3_000);
      expect(run.after).toEqual(run.before);
      expect(existsSync(join(run.dataDir, 'dataset-health.lock'))).toBe(false);
    },
    60_000,
  );

  it('SIGTERM during the write: the import completes (all of it is stored) and says so', async () => {
    const run = await interrupted('SIGTERM', 2_000);
    const exported = JSON.parse(run.after[0]) as { datasets: { datasetId: string }[] };
    if (run.code === 1) {
      // Still checking when the signal came (a slow machine): nothing stored.
      expect(run.stderr).toMatch(/stopped by SIGTERM \(nothing was imported\)/);
      expect(run.after).toEqual(run.before);
    } else {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/Imported 20000 datasets/);
      expect(run.stderr).toMatch(
        /SIGTERM arrived while the import was being written; the import is complete/,
      );
      expect(exported.datasets).toHaveLength(20_005);
    }
  }, 120_000);
});
