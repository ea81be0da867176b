/** The CLI in-process: exit codes, stdout/stderr contracts, keys, import/export and demo (docs/architecture.md#the-cli). */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { buildApi } from '../../../electron/api/app';
import { Store } from '../../../electron/store/database';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { DatasetRecord, Snapshot } from '../../../shared/schemas';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { fixtureRecords, fixtureTasks } from '../../helpers/fixtures';

afterEach(removeTempDirs);

function snapshotFile(dir: string, body: unknown): string {
  const file = join(dir, 'snapshot.json');
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body));
  return file;
}

async function apiGet(dataDir: string, key: string, url: string): Promise<{ status: number; body: unknown }> {
  const store = await Store.open({ dataDir });
  const app = await buildApi({ store, port: 1, logger: false });
  try {
    const response = await app.inject({
      url,
      headers: { host: '127.0.0.1:1', authorization: `Bearer ${key}` },
    });
    return { status: response.statusCode, body: response.json() };
  } finally {
    await app.close();
    await store.close();
  }
}

describe('usage', () => {
  it('--help works for the program and every command, exit 0', async () => {
    for (const argv of [
      ['--help'],
      ['serve', '--help'],
      ['keys', 'create', '--help'],
      ['keys', 'list', '--help'],
      ['keys', 'revoke', '--help'],
      ['import', '--help'],
      ['export', '--help'],
      ['demo', '--help'],
      ['sync', '--help'],
      ['sources', 'add', '--help'],
      ['sources', 'list', '--help'],
      ['sources', 'remove', '--help'],
      ['simulate-remote', '--help'],
    ]) {
      const run = await cli(argv);
      expect(run.code, argv.join(' ')).toBe(0);
      expect(run.stdout).toMatch(/Usage: dataset-health/);
    }
  });

  it.each([
    [['nope']],
    [['keys', 'create']],
    [['import', '--org', 'acme']],
    [['demo', '--datasets', 'many']],
    [['serve', '--port', '70000']],
    [['serve', '--poll-seconds', '1']],
    [['serve', '--crawl-minutes', '0']],
    [['sources', 'add', '--org', 'acme']],
    [[]],
  ])('usage error %j → exit 2', async (argv) => {
    const run = await cli(argv);
    expect(run.code).toBe(2);
  });
});

describe('keys', () => {
  it('create prints only the key on stdout; list shows it without the secret; revoke stops it', async () => {
    const dataDir = tempDir();
    const created = await cli([
      ...['keys', 'create', '--org', 'acme', '--new-org', '--name', 'ci', '--data-dir', dataDir],
    ]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^dhk_[A-Za-z0-9_-]{43}\n$/);
    const key = created.stdout.trim();
    expect((await apiGet(dataDir, key, '/v2/ops/health/datasets/deliveries')).status).toBe(200);

    const list = await cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    const keys = JSON.parse(list.stdout) as { id: string; orgId: string; name: string }[];
    expect(keys).toEqual([expect.objectContaining({ orgId: 'acme', name: 'ci' })]);
    expect(list.stdout).not.toContain(key.slice(4));
    const table = await cli(['keys', 'list', '--data-dir', dataDir]);
    expect(table.stdout).toMatch(/ID\s+ORG\s+NAME/);

    expect((await cli(['keys', 'revoke', keys[0]!.id, '--data-dir', dataDir])).code).toBe(0);
    expect((await apiGet(dataDir, key, '/v2/ops/health/datasets/deliveries')).status).toBe(401);
    const again = await cli(['keys', 'revoke', keys[0]!.id, '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^dataset-health: no active key with id/);
  });

  it('the data dir comes from DATASET_HEALTH_DATA_DIR when --data-dir is absent', async () => {
    const dataDir = tempDir();
    const created = await cli(['keys', 'create', '--org', 'acme', '--new-org'], {
      DATASET_HEALTH_DATA_DIR: dataDir,
    });
    expect(created.code).toBe(0);
    const list = await cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    expect(JSON.parse(list.stdout)).toHaveLength(1);
  });

  it.each(['soon', '-1', '3601', '1.5'])(
    'DATASET_HEALTH_WAIT_SECONDS=%s (the wait for a running instance) is a usage error naming it',
    async (value) => {
      const run = await cli(['keys', 'list', '--data-dir', tempDir()], {
        DATASET_HEALTH_WAIT_SECONDS: value,
      });
      expect(run).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `dataset-health: DATASET_HEALTH_WAIT_SECONDS must be a whole number of seconds from 0 to 3600, not '${value}'\n`,
      });
    },
  );

  it('an org not in the data directory is refused, naming the orgs there, unless --new-org', async () => {
    const dataDir = tempDir();
    for (const org of ['demo', 'live-demo'])
      expect((await cli(['keys', 'create', '--org', org, '--new-org', '--data-dir', dataDir])).code).toBe(0);
    const typo = await cli(['keys', 'create', '--org', 'Demo', '--data-dir', dataDir]);
    expect(typo).toMatchObject({ code: 1, stdout: '' });
    expect(typo.stderr).toBe(
      "dataset-health: no org 'Demo' in this data directory (orgs: demo, live-demo); did you mean 'demo'? Pass --new-org to create it.\n",
    );
    const proto = await cli(['keys', 'create', '--org', 'constructor', '--data-dir', dataDir]);
    expect(proto.stderr).toMatch(
      /^dataset-health: no org 'constructor' in this data directory \(orgs: demo, live-demo\)\. Pass --new-org/,
    );
    expect((await cli(['keys', 'create', '--org', 'demo', '--data-dir', dataDir])).code).toBe(0);
    const list = await cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    expect((JSON.parse(list.stdout) as { orgId: string }[]).map((key) => key.orgId)).toEqual([
      'demo',
      'demo',
      'live-demo',
    ]);
  });

  it('a name with a control character is refused; stored ones are listed escaped', async () => {
    const dataDir = tempDir();
    const run = await cli([
      'keys',
      'create',
      '--org',
      'acme',
      '--new-org',
      '--name',
      'a\nb',
      '--data-dir',
      dataDir,
    ]);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toBe('dataset-health: key names may not contain control characters (U+000A)\n');
    // Stored before names were checked: printed escaped, one line per key.
    const store = await Store.open({ dataDir });
    ensureOrg(store, 'acme', new Date());
    store.run(
      "INSERT INTO api_keys (id, org_id, name, hash, created_at) VALUES ('key_old', 'acme', ?, 'x', '2026-01-01')",
      ['ci\r\nkey_fake  acme\u001b[2J\u009b'],
    );
    await store.close();
    const table = await cli(['keys', 'list', '--data-dir', dataDir]);
    expect(table.stdout.split('\n')).toHaveLength(3);
    expect(table.stdout).toContain('ci\\r\\nkey_fake  acme\\u001b[2J\\u009b');
    expect(table.stdout.replaceAll('\n', '')).not.toMatch(/\p{Cc}/u);
    const json = await cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    expect((JSON.parse(json.stdout) as { name: string }[])[0]!.name).toBe(
      'ci\r\nkey_fake  acme\u001b[2J\u009b',
    );
  });

  it('an invalid org id is a one-line failure', async () => {
    const run = await cli(['keys', 'create', '--org', '../x', '--data-dir', tempDir()]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('import and export', () => {
  it('a record of import comes back from the API equal; export → import → export is stable', async () => {
    const dataDir = tempDir();
    const records = fixtureRecords(25, 11, 'imp');
    const tasks = { [records[0]!.deliveryId!]: fixtureTasks(records[0]!.deliveryId!, records[0]!.datasetId) };
    const file = snapshotFile(tempDir(), { datasets: records, tasks });
    const imported = await cli(['import', '--org', 'acme', file, '--data-dir', dataDir]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/Imported 25 datasets and the tasks of 1 deliveries into org acme/);
    const key = (await cli(['keys', 'create', '--org', 'acme', '--data-dir', dataDir])).stdout.trim();
    for (const record of records) {
      const { status, body } = await apiGet(
        dataDir,
        key,
        `/v2/ops/health/datasets/${record.datasetId}/deliveries?latestDeliveriesCount=100`,
      );
      expect(status).toBe(200);
      expect(body).toEqual(record);
    }

    const out = join(tempDir(), 'out.json');
    expect((await cli(['export', '--org', 'acme', out, '--data-dir', dataDir])).code).toBe(0);
    const exported = JSON.parse(readFileSync(out, 'utf8')) as Snapshot;
    expect(Value.Check(Snapshot, exported)).toBe(true);
    expect(exported.datasets).toHaveLength(25);
    expect(exported.tasks?.[records[0]!.deliveryId!]?.ingest.tasks[0]?.details.runId).toBe('run-ingest');

    const second = tempDir();
    expect((await cli(['import', '--org', 'copy', out, '--data-dir', second])).code).toBe(0);
    const out2 = join(tempDir(), 'out2.json');
    expect((await cli(['export', '--org', 'copy', out2, '--data-dir', second])).code).toBe(0);
    expect(readFileSync(out2, 'utf8')).toBe(readFileSync(out, 'utf8'));

    const toStdout = await cli(['export', '--org', 'acme', '-', '--data-dir', dataDir]);
    expect(JSON.parse(toStdout.stdout)).toEqual(exported);
  });

  const BAD: [string, unknown, RegExp][] = [
    ['not JSON', '{"datasets": [', /not valid JSON/],
    ['no datasets', {}, /\$\.datasets: expected an array/],
    [
      'an unknown top-level field',
      { items: [] },
      /\$\.items: unknown field 'items' \(allowed: datasets, tasks, timeline, acknowledgements, syncOutages, incidents\)/,
    ],
    [
      'record without datasetId',
      { datasets: [{ datasetName: 'x' }] },
      /\$\.datasets\[0\]\.datasetId: a dataset record needs a datasetId/,
    ],
    [
      'bad datetime deep inside',
      { datasets: [{ datasetId: 'a', deliveryEventList: [{ deliveredAt: 'yesterday' }] }] },
      /\$\.datasets\[0\]\.deliveryEventList\[0\]\.deliveredAt: 'yesterday' is not an RFC 3339 datetime/,
    ],
    [
      'wrong type',
      { datasets: [{ datasetId: 'a', supplier: 'acme' }] },
      /\$\.datasets\[0\]\.supplier: expected an object/,
    ],
    [
      'duplicate id',
      { datasets: [{ datasetId: 'a' }, { datasetId: 'a' }] },
      /\$\.datasets\[1\]\.datasetId: 'a' also appears at \$\.datasets\[0\]/,
    ],
    [
      'tasks of an unknown delivery',
      { datasets: [{ datasetId: 'a' }], tasks: { nope: {} } },
      /\$\.tasks\["nope"\]: no dataset of the file or of org 'acme' has a delivery/,
    ],
    [
      'the same delivery twice in one record',
      { datasets: [{ datasetId: 'a', deliveryEventList: [{ deliveryId: 'd1' }, { deliveryId: 'd1' }] }] },
      /\$\.datasets\[0\]\.deliveryEventList\[1\]\.deliveryId: 'd1' also appears at \$\.datasets\[0\]\.deliveryEventList\[0\]/,
    ],
    [
      'a misspelt field',
      { datasets: [{ datasetId: 'a', datasetNme: 'x' }] },
      /\$\.datasets\[0\]\.datasetNme: unknown field 'datasetNme' \(allowed: legacyDatasetId, datasetId/,
    ],
    [
      'a number where a string belongs',
      { datasets: [{ datasetId: 'a', latestDeliveryStatus: 5 }] },
      /\$\.datasets\[0\]\.latestDeliveryStatus: expected a string, got number 5/,
    ],
    [
      'an impossible date',
      { datasets: [{ datasetId: 'a', latestDeliveryTimestamp: '2026-02-30T00:00:00Z' }] },
      /\$\.datasets\[0\]\.latestDeliveryTimestamp: '2026-02-30T00:00:00Z' is not an RFC 3339 datetime/,
    ],
  ];
  it.each(BAD)(
    'a bad file (%s) names the JSON path of the first problem and changes nothing',
    async (_name, body, message) => {
      const dataDir = tempDir();
      const good = snapshotFile(tempDir(), { datasets: fixtureRecords(3, 1, 'keep') });
      expect((await cli(['import', '--org', 'acme', good, '--data-dir', dataDir])).code).toBe(0);
      const before = await cli(['export', '--org', 'acme', '-', '--data-dir', dataDir]);
      const run = await cli([
        'import',
        '--org',
        'acme',
        snapshotFile(tempDir(), body),
        '--data-dir',
        dataDir,
      ]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/nothing was imported/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      const after = await cli(['export', '--org', 'acme', '-', '--data-dir', dataDir]);
      expect(after.stdout).toBe(before.stdout);
    },
  );

  it('a missing file and an unknown org are one-line failures', async () => {
    const dataDir = tempDir();
    const missing = await cli(['import', '--org', 'acme', '/nonexistent/file.json', '--data-dir', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read/);
    const unknown = await cli(['export', '--org', 'nobody', '-', '--data-dir', dataDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no org 'nobody'/);
  });

  it('retention keeps the newest deliveries per dataset', async () => {
    const dataDir = tempDir();
    const [record] = fixtureRecords(4, 5, 'ret').filter((r) => r.deliveryEventList.length === 4);
    const oldest = record!.deliveryEventList[3]!.deliveryId!;
    const newest = record!.deliveryEventList[0]!.deliveryId!;
    const tasks = {
      [oldest]: fixtureTasks(oldest, record!.datasetId),
      [newest]: fixtureTasks(newest, record!.datasetId),
    };
    const file = snapshotFile(tempDir(), { datasets: [record], tasks });
    expect(
      (await cli(['import', '--org', 'acme', '--retention', '2', file, '--data-dir', dataDir])).code,
    ).toBe(0);
    const exported = JSON.parse(
      (await cli(['export', '--org', 'acme', '-', '--data-dir', dataDir])).stdout,
    ) as Snapshot;
    expect(exported.datasets[0]!.deliveryEventList.map((e) => e.deliveryId)).toEqual(
      record!.deliveryEventList.slice(0, 2).map((e) => e.deliveryId),
    );
    // Tasks are kept for retained deliveries only.
    expect(Object.keys(exported.tasks ?? {})).toEqual([newest]);
  });
});

describe('demo', () => {
  it('fills the org with valid, realistic records', async () => {
    const dataDir = tempDir();
    const run = await cli(['demo', '--datasets', '40', '--seed', '3', '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/Generated 40 datasets in org demo/);
    const exported = JSON.parse(
      (await cli(['export', '--org', 'demo', '-', '--data-dir', dataDir])).stdout,
    ) as Snapshot;
    expect(exported.datasets).toHaveLength(40);
    for (const record of exported.datasets) expect(Value.Check(DatasetRecord, record)).toBe(true);
    expect(Object.keys(exported.tasks ?? {}).length).toBeGreaterThan(0);
  });
});
