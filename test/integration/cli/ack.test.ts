/**
 * `ack` / `unack` (docs/architecture.md#acknowledgements, issue 13 point 3), alone and beside a real `serve` process that holds
 * the data directory (the control channel): the same words and exit codes on both paths, the
 * acknowledgements persisted in the store (and across a restart of serve), who acknowledges from
 * `--by`, the settings' triage name or the OS user, and every refusal with its exit code.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { osUserName } from '../../../electron/knowledge/identity';
import { listAcknowledgements } from '../../../electron/store/tables/acknowledgements';
import { Store } from '../../../electron/store/database';
import { datasetTimeline } from '../../../electron/store/tables/timeline';
import { incidentIdOf } from '../../../electron/store/schema/incidents';
import type { AcknowledgementView } from '../../../shared/causes';
import type { DatasetRecord, TasksRecord } from '../../../shared/schemas';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import type { Stage } from '../../../shared/status';
import { type CliRun, cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { fixtureRecords, tasksFailingAt } from '../../helpers/fixtures';
import { startInstance, stopInstances } from '../../helpers/instance';
import { type Spawned, killChildren, spawnCli, waitFor } from '../../helpers/process';

afterEach(async () => {
  killChildren();
  await stopInstances();
  removeTempDirs();
});

interface Seed {
  id: string;
  status: 'FAILED' | 'MISSING' | 'HEALTHY';
  supplier: { id: string; name: string };
  /** The failed task's stage and shortCode; none: tasks not stored (the "unknown" cause). */
  fails?: { stage: Stage; code: string };
}

const BLUEFIN = { id: 'SUP-1', name: 'Bluefin Exchange Feeds' };
const HARBOR = { id: 'SUP-2', name: 'Harbor Data' };

const ACME: Seed[] = [
  { id: 'ds-auth-1', status: 'FAILED', supplier: BLUEFIN, fails: { stage: 'ingest', code: 'E_AUTH_FAILED' } },
  { id: 'ds-auth-2', status: 'FAILED', supplier: BLUEFIN, fails: { stage: 'ingest', code: 'E_AUTH_FAILED' } },
  {
    id: 'ds-schema',
    status: 'FAILED',
    supplier: HARBOR,
    fails: { stage: 'normalize', code: 'E_SCHEMA_MISMATCH' },
  },
  { id: 'ds-missing', status: 'MISSING', supplier: HARBOR },
  { id: 'ds-ok', status: 'HEALTHY', supplier: HARBOR },
  { id: 'ds-shared', status: 'FAILED', supplier: HARBOR },
];
const BETA: Seed[] = [
  { id: 'ds-shared', status: 'FAILED', supplier: HARBOR },
  { id: 'ds-beta', status: 'HEALTHY', supplier: HARBOR },
];

function snapshotOf(seeds: Seed[]): { datasets: DatasetRecord[]; tasks: Record<string, TasksRecord> } {
  const tasks: Record<string, TasksRecord> = {};
  const datasets = seeds.map((seed): DatasetRecord => {
    const base = fixtureRecords(1, 3, seed.id)[0]!;
    const deliveryId = `${seed.id}-d1`;
    if (seed.fails)
      tasks[deliveryId] = tasksFailingAt(deliveryId, seed.id, seed.fails.stage, seed.fails.code);
    return {
      ...base,
      datasetId: seed.id,
      datasetName: `Dataset ${seed.id}`,
      supplier: seed.supplier,
      deliveryId,
      latestDeliveryStatus: seed.status,
      deliveryEventList: [
        {
          ...base.deliveryEventList[0]!,
          status: seed.status,
          deliveryId,
          deliveryDeadline: '2026-11-21T06:00:00.000Z',
          deliveredAt: seed.status === 'MISSING' ? null : '2026-11-21T06:10:00.000Z',
        },
      ],
    };
  });
  return { datasets, tasks };
}

/** A data directory with orgs acme and beta imported, and optionally a triage name in its settings. */
async function seededDataDir(triageName?: string): Promise<string> {
  const dataDir = tempDir();
  for (const [org, seeds] of [
    ['acme', ACME],
    ['beta', BETA],
  ] as const) {
    const file = join(dataDir, `${org}.json`);
    writeFileSync(file, JSON.stringify(snapshotOf(seeds)));
    const imported = await cli(['import', '--org', org, file, '--data-dir', dataDir]);
    expect(imported.code, imported.stderr).toBe(0);
  }
  if (triageName !== undefined)
    writeFileSync(
      join(dataDir, 'settings.json'),
      JSON.stringify({ ...DEFAULT_SETTINGS, triage: { ...DEFAULT_SETTINGS.triage, name: triageName } }),
    );
  return dataDir;
}

/** `serve` as a real process on the data directory. */
async function serve(dataDir: string): Promise<Spawned> {
  const spawned = spawnCli(['serve', '--port', '0', '--data-dir', dataDir]);
  await waitFor(spawned.stdout, /Local API listening on http:\/\/127\.0\.0\.1:\d+\n/, spawned);
  return spawned;
}

async function stop(spawned: Spawned): Promise<void> {
  spawned.child.kill('SIGTERM');
  expect(await spawned.exited, spawned.stderr()).toBe(0);
}

async function acknowledgements(dataDir: string, org = 'acme'): Promise<AcknowledgementView[]> {
  const store = await Store.open({ dataDir });
  try {
    return listAcknowledgements(store, org, true);
  } finally {
    await store.close();
  }
}

/** What does not depend on when it ran. */
const lasting = (acks: AcknowledgementView[]) => acks.map(({ at: _at, ...rest }) => rest);

const run = (dataDir: string, argv: string[]): Promise<CliRun> => cli([...argv, '--data-dir', dataDir]);

/** The id of the incident a seed's failure opened (imported at once: its cause known, the earliest first). */
const incidentOf = (org: string, causeId: string, datasetId: string, status = 'FAILED'): string =>
  incidentIdOf(org, causeId, {
    datasetId,
    deliveryId: `${datasetId}-d1`,
    status,
    causeId,
    title: '',
    reportedAt: null,
  });
const AUTH = incidentOf('acme', 'ingest:E_AUTH_FAILED', 'ds-auth-1');
const SCHEMA = incidentOf('acme', 'normalize:E_SCHEMA_MISMATCH', 'ds-schema');
const MISSING = incidentOf('acme', 'missing:SUP-2', 'ds-missing', 'MISSING');
const UNKNOWN = incidentOf('acme', 'unknown', 'ds-shared');
/**
 * acme's live incidents as the CLI lists them: by last failure, newest first (ds-shared delivered at
 * 06:10, ds-missing due at 06:00, the others' tasks ended the day before), then by id.
 */
const LIVE = [
  `${UNKNOWN} Failed, cause not known yet`,
  `${MISSING} MISSING from Harbor Data`,
  ...[`${AUTH} Ingest failed: E_AUTH_FAILED`, `${SCHEMA} Normalize failed: E_SCHEMA_MISMATCH`].sort(),
].join(', ');

const AUTH_LINE = (id: string, note = '') =>
  `acknowledged ${id} (delivery ${id}-d1, Ingest failed: E_AUTH_FAILED) by sam${note}\n`;

/** Each step and what it prints (stdout, stderr) and exits with, the same alone and beside serve. */
const STEPS: { argv: string[]; code: number; stdout: string; stderr?: string }[] = [
  {
    argv: ['ack', 'ds-auth-1', '--note', '  rotating the key  '],
    code: 0,
    stdout: AUTH_LINE('ds-auth-1', ': "rotating the key"'),
  },
  {
    argv: ['ack', '--cause', 'INGEST:E_AUTH_FAILED', '--org', 'acme', '--note', 'vendor ticket 4411'],
    code: 0,
    stdout:
      AUTH_LINE('ds-auth-2', ': "vendor ticket 4411"') +
      `acknowledged 1 failure of incident '${AUTH}' (Ingest failed: E_AUTH_FAILED) in org acme (1 already acknowledged)\n`,
  },
  {
    argv: ['ack', '--cause', AUTH, '--org', 'acme'],
    code: 0,
    stdout: `all 2 failures of incident '${AUTH}' (Ingest failed: E_AUTH_FAILED) in org acme are already acknowledged\n`,
  },
  {
    argv: ['ack', 'ds-missing', '--note', ''],
    code: 0,
    stdout: 'acknowledged ds-missing (delivery ds-missing-d1, MISSING from Harbor Data) by sam\n',
  },
  {
    argv: ['ack', 'ds-schema', '--by', 'Robin'],
    code: 0,
    stdout: 'acknowledged ds-schema (delivery ds-schema-d1, Normalize failed: E_SCHEMA_MISMATCH) by Robin\n',
  },
  {
    argv: ['unack', 'ds-missing'],
    code: 0,
    stdout: 'withdrew the acknowledgement of ds-missing (delivery ds-missing-d1, acknowledged by sam)\n',
  },
  {
    argv: ['unack', 'ds-missing'],
    code: 1,
    stdout: '',
    stderr: "dataset-health: dataset 'ds-missing' in org acme has no acknowledgement to withdraw\n",
  },
  {
    argv: ['unack', '--cause', 'ingest:E_AUTH_FAILED', '--org', 'acme'],
    code: 0,
    stdout:
      'withdrew the acknowledgement of ds-auth-1 (delivery ds-auth-1-d1, acknowledged by sam)\n' +
      'withdrew the acknowledgement of ds-auth-2 (delivery ds-auth-2-d1, acknowledged by sam)\n' +
      `withdrew 2 acknowledgements of '${AUTH}' in org acme\n`,
  },
  {
    argv: ['unack', '--cause', 'missing:SUP-2', '--org', 'acme'],
    code: 1,
    stdout: '',
    stderr: `dataset-health: the one failure of '${MISSING}' in org acme is not acknowledged\n`,
  },
  {
    argv: ['ack', '--cause', 'ingest:E_AUTH_FAILED', '--org', 'acme', '--note', 'again'],
    code: 0,
    stdout:
      AUTH_LINE('ds-auth-1', ': "again"') +
      AUTH_LINE('ds-auth-2', ': "again"') +
      `acknowledged 2 failures of incident '${AUTH}' (Ingest failed: E_AUTH_FAILED) in org acme\n`,
  },
  // Refusals: the dataset or cause is not there, or not in trouble (exit 1) ...
  {
    argv: ['ack', 'ds-shared'],
    code: 1,
    stdout: '',
    stderr: "dataset-health: dataset 'ds-shared' is in 2 orgs (acme, beta): pass --org to say which\n",
  },
  {
    argv: ['ack', 'ds-nowhere'],
    code: 1,
    stdout: '',
    stderr: "dataset-health: dataset 'ds-nowhere' is not in this mirror\n",
  },
  {
    argv: ['ack', 'ds-beta', '--org', 'acme'],
    code: 1,
    stdout: '',
    stderr: "dataset-health: dataset 'ds-beta' is not in org acme\n",
  },
  {
    argv: ['ack', 'ds-ok'],
    code: 1,
    stdout: '',
    stderr:
      "dataset-health: dataset 'ds-ok' in org acme is HEALTHY: only a FAILED or MISSING delivery can be acknowledged\n",
  },
  {
    argv: ['ack', '--cause', 'process:E_NOPE', '--org', 'acme'],
    code: 1,
    stdout: '',
    stderr: `dataset-health: no current failure has cause 'process:E_NOPE' in org acme (live incidents: ${LIVE})\n`,
  },
  {
    argv: ['ack', 'ds-auth-1', '--org', 'gamma'],
    code: 1,
    stdout: '',
    stderr: "dataset-health: no org 'gamma' in this data directory (orgs: acme, beta).\n",
  },
  // ... and usage errors (exit 2): the one the store decides goes through the running instance too.
  {
    argv: ['ack', '--cause', 'ingest:E_AUTH_FAILED'],
    code: 2,
    stdout: '',
    stderr: 'dataset-health: --cause needs --org here: this mirror has 2 orgs (acme, beta)\n',
  },
  {
    argv: ['ack', '--cause', 'E_AUTH_FAILED'],
    code: 2,
    stdout: '',
    stderr:
      "dataset-health: --cause: cause 'E_AUTH_FAILED' is not STAGE:SHORTCODE (stages: ingest, normalize, process, dispatch), missing:SUPPLIER or unknown; or an incident id (inc- and ten hex digits)\n",
  },
  {
    argv: ['unack', '--cause', 'ingestion:E_AUTH_FAILED', '--org', 'acme'],
    code: 2,
    stdout: '',
    stderr:
      "dataset-health: --cause: cause 'ingestion:E_AUTH_FAILED': unknown stage 'ingestion' (allowed: ingest, normalize, process, dispatch, missing); or an incident id (inc- and ten hex digits)\n",
  },
  {
    argv: ['ack', 'ds-auth-1', '--note', 'x'.repeat(2001)],
    code: 2,
    stdout: '',
    stderr: 'dataset-health: --note is 2001 characters; at most 2000 are kept\n',
  },
  {
    argv: ['ack'],
    code: 2,
    stdout: '',
    stderr:
      'dataset-health: name a DATASET_ID, or an incident with --cause INCIDENT_ID (or a cause key STAGE:SHORTCODE, missing:SUPPLIER, unknown)\n',
  },
  {
    argv: ['unack', 'ds-auth-1', '--cause', 'unknown'],
    code: 2,
    stdout: '',
    stderr: 'dataset-health: name either a DATASET_ID or --cause, not both\n',
  },
  {
    argv: ['ack', 'ds-auth-1', '--by', '   '],
    code: 2,
    stdout: '',
    stderr: 'dataset-health: --by: the name must be 1 to 100 characters\n',
  },
  {
    argv: ['ack', 'ds-auth-1', '--by', 'sam\u001b]0;pwned\u0007'],
    code: 2,
    stdout: '',
    stderr: 'dataset-health: --by: the name has a control character (U+001B); a name is plain text\n',
  },
  {
    argv: ['ack', 'ds-auth-1', '--note', 'line one\r\nline two'],
    code: 2,
    stdout: '',
    stderr:
      'dataset-health: --note has a control character (U+000D); a note holds text, line breaks and tabs\n',
  },
];

/** What the steps leave stored in acme, as seen after the process that wrote it has stopped. */
const STORED = [
  { datasetId: 'ds-auth-1', note: 'again', by: 'sam', causeId: AUTH },
  { datasetId: 'ds-auth-2', note: 'again', by: 'sam', causeId: AUTH },
  { datasetId: 'ds-schema', note: null, by: 'Robin', causeId: null },
];

describe('ack and unack', () => {
  it('print and exit the same alone and through a running serve, and persist the same acknowledgements', async () => {
    const alone = await seededDataDir('sam');
    const beside = await seededDataDir('sam');
    const instance = await serve(beside);
    for (const step of STEPS) {
      const here = await run(alone, step.argv);
      const there = await run(beside, step.argv);
      const label = step.argv.join(' ').slice(0, 120);
      expect(here, label).toMatchObject({ code: step.code, stdout: step.stdout, stderr: step.stderr ?? '' });
      expect(there, label).toMatchObject({ code: step.code, stdout: step.stdout, stderr: step.stderr ?? '' });
    }
    // --json: the acknowledgements themselves (the same but for their times).
    const jsonHere = await run(alone, ['ack', 'ds-missing', '--note', 'late file', '--json']);
    const jsonThere = await run(beside, ['ack', 'ds-missing', '--note', 'late file', '--json']);
    expect(jsonHere.code, jsonHere.stderr).toBe(0);
    const parsed = JSON.parse(jsonHere.stdout) as AcknowledgementView[];
    expect(parsed).toEqual([
      expect.objectContaining({ datasetId: 'ds-missing', status: 'MISSING', note: 'late file', by: 'sam' }),
    ]);
    expect(lasting(JSON.parse(jsonThere.stdout) as AcknowledgementView[])).toEqual(lasting(parsed));
    const withdrawn = await run(beside, ['unack', 'ds-missing', '--json']);
    expect(lasting(JSON.parse(withdrawn.stdout) as AcknowledgementView[])).toEqual(lasting(parsed));
    await run(alone, ['unack', 'ds-missing']);

    await stop(instance);
    for (const dataDir of [alone, beside]) {
      const stored = await acknowledgements(dataDir);
      expect(stored.map(({ datasetId, note, by, causeId }) => ({ datasetId, note, by, causeId }))).toEqual(
        expect.arrayContaining(STORED),
      );
      expect(stored).toHaveLength(STORED.length);
      expect(stored.every((ack) => ack.endedAt === null)).toBe(true);
    }
    // The dataset's timeline tells the story in both, newest first.
    const kinds = async (dataDir: string) => {
      const store = await Store.open({ dataDir });
      try {
        return datasetTimeline(store, 'acme', 'ds-auth-1', 50).map((entry) => `${entry.kind} ${entry.by}`);
      } finally {
        await store.close();
      }
    };
    const story = ['acknowledged sam', 'unacknowledged sam', 'acknowledged sam'];
    expect((await kinds(alone)).filter((k) => !k.startsWith('status'))).toEqual(story);
    expect((await kinds(beside)).filter((k) => !k.startsWith('status'))).toEqual(story);
  });

  it('an acknowledgement made through serve survives its restart', async () => {
    const dataDir = await seededDataDir('sam');
    const first = await serve(dataDir);
    const acked = await run(dataDir, ['ack', 'ds-auth-1', '--note', 'on it']);
    expect(acked).toMatchObject({ code: 0, stdout: AUTH_LINE('ds-auth-1', ': "on it"') });
    await stop(first);

    const second = await serve(dataDir);
    const cause = await run(dataDir, ['ack', '--cause', 'ingest:E_AUTH_FAILED', '--org', 'acme']);
    expect(cause).toMatchObject({
      code: 0,
      stdout:
        AUTH_LINE('ds-auth-2') +
        `acknowledged 1 failure of incident '${AUTH}' (Ingest failed: E_AUTH_FAILED) in org acme (1 already acknowledged)\n`,
    });
    await stop(second);
    expect(
      (await acknowledgements(dataDir)).map(({ datasetId, note, causeId }) => ({ datasetId, note, causeId })),
    ).toEqual(
      expect.arrayContaining([
        { datasetId: 'ds-auth-1', note: 'on it', causeId: null },
        { datasetId: 'ds-auth-2', note: null, causeId: AUTH },
      ]),
    );
  });

  it('--cause ID acknowledges exactly that incident; a cause key with two live incidents is refused, naming both', async () => {
    // One code twice: a monthly dataset a month ago, and an outage of two suppliers now.
    const failing = [
      { id: 'monthly', supplier: HARBOR, endedAt: '2026-10-21T05:00:00.000Z' },
      { id: 'outage-1', supplier: BLUEFIN, endedAt: '2026-11-21T03:00:00.000Z' },
      { id: 'outage-2', supplier: HARBOR, endedAt: '2026-11-21T03:40:00.000Z' },
    ];
    const tasks: Record<string, TasksRecord> = {};
    const datasets = failing.map(({ id, supplier, endedAt }): DatasetRecord => {
      const base = fixtureRecords(1, 3, id)[0]!;
      const deliveryId = `${id}-d1`;
      tasks[deliveryId] = tasksFailingAt(deliveryId, id, 'ingest', 'E_AUTH_FAILED', 'login refused', endedAt);
      return {
        ...base,
        datasetId: id,
        datasetName: `Dataset ${id}`,
        supplier,
        deliveryId,
        latestDeliveryStatus: 'FAILED',
        deliveryEventList: [
          {
            ...base.deliveryEventList[0]!,
            status: 'FAILED',
            deliveryId,
            deliveryDeadline: endedAt,
            deliveredAt: endedAt,
          },
        ],
      };
    });
    const dataDir = tempDir();
    const file = join(dataDir, 'acme.json');
    writeFileSync(file, JSON.stringify({ datasets, tasks }));
    expect((await cli(['import', '--org', 'acme', file, '--data-dir', dataDir])).code).toBe(0);
    const old = incidentOf('acme', 'ingest:E_AUTH_FAILED', 'monthly');
    const outage = incidentOf('acme', 'ingest:E_AUTH_FAILED', 'outage-1');

    const refused = await run(dataDir, ['ack', '--cause', 'ingest:E_AUTH_FAILED', '--by', 'sam']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `dataset-health: cause 'ingest:E_AUTH_FAILED' has 2 live incidents; give one's id: ` +
        `${outage} (2 datasets, last failed 2026-11-21T03:40:00.000Z), ${old} (1 dataset, last failed 2026-10-21T05:00:00.000Z)\n`,
    );
    expect(await acknowledgements(dataDir)).toEqual([]);

    const acked = await run(dataDir, [
      'ack',
      '--cause',
      outage,
      '--by',
      'sam',
      '--note',
      'vendor ticket 4411',
    ]);
    expect(acked.code, acked.stderr).toBe(0);
    expect(acked.stdout).toContain(
      `acknowledged 2 failures of incident '${outage}' (Ingest failed: E_AUTH_FAILED) in org acme\n`,
    );
    expect(
      (await acknowledgements(dataDir))
        .map(({ datasetId, causeId, note }) => [datasetId, causeId, note])
        .sort(),
    ).toEqual([
      ['outage-1', outage, 'vendor ticket 4411'],
      ['outage-2', outage, 'vendor ticket 4411'],
    ]);
  });

  it('without --by or a triage name, the OS user acknowledges; a cause is found without --org in a one-org mirror', async () => {
    const dataDir = tempDir();
    const file = join(dataDir, 'acme.json');
    writeFileSync(file, JSON.stringify(snapshotOf(ACME)));
    expect((await cli(['import', '--org', 'acme', file, '--data-dir', dataDir])).code).toBe(0);
    const user = osUserName();
    const acked = await run(dataDir, ['ack', '--cause', 'unknown']);
    expect(acked).toMatchObject({
      code: 0,
      stdout:
        `acknowledged ds-shared (delivery ds-shared-d1, Failed, cause not known yet) by ${user}\n` +
        `acknowledged 1 failure of incident '${UNKNOWN}' (Failed, cause not known yet) in org acme\n`,
    });
    expect((await acknowledgements(dataDir)).map((ack) => ack.by)).toEqual([user]);
  });

  it('alone, a settings file the schema refuses is moved aside, said on stderr, and the OS user acknowledges', async () => {
    const dataDir = await seededDataDir();
    writeFileSync(join(dataDir, 'settings.json'), JSON.stringify({ triage: { name: 5 } }));
    const acked = await run(dataDir, ['ack', 'ds-auth-1']);
    expect(acked.code, acked.stderr).toBe(0);
    expect(acked.stderr).toMatch(
      /^The settings file was not valid: moved to .*settings\.json\.invalid-\S+; using the defaults\.\n$/,
    );
    expect(acked.stdout).toBe(
      `acknowledged ds-auth-1 (delivery ds-auth-1-d1, Ingest failed: E_AUTH_FAILED) by ${osUserName()}\n`,
    );
  });

  it('through the running instance, its alerts recompute the tray after each change', async () => {
    const dataDir = await seededDataDir('sam');
    const instance = await startInstance(dataDir, { now: () => new Date('2026-11-21T07:00:00.000Z') });
    const alerts = instance.engine.alerts;
    const refresh = alerts.refresh.bind(alerts);
    let refreshed = 0;
    alerts.refresh = () => {
      refreshed += 1;
      return refresh();
    };
    expect((await run(dataDir, ['ack', 'ds-auth-1'])).code).toBe(0);
    await expect.poll(() => refreshed).toBe(1);
    expect((await run(dataDir, ['unack', 'ds-auth-1'])).code).toBe(0);
    await expect.poll(() => refreshed).toBe(2);
    // A refusal changed nothing: nothing to redraw.
    expect((await run(dataDir, ['ack', 'ds-ok'])).code).toBe(1);
    expect(refreshed).toBe(2);
    // The in-process instance has memory settings (no triage name): the OS user acknowledged.
    expect(listAcknowledgements(instance.store, 'acme', true)).toEqual([]);
    expect((await run(dataDir, ['ack', 'ds-auth-2'])).stdout).toContain(`by ${osUserName()}\n`);
  });
});
