/** Schema versions: a new database is at the latest version; one from a newer app is refused, untouched. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store, loadSqlJs } from '../../../../electron/store/database';
import { MIGRATIONS } from '../../../../electron/store/schema/migrations';
import { listIncidents } from '../../../../electron/query/incidents';
import { writeDataset, writeTasks } from '../../../../electron/store/tables/datasetWriter';
import { ensureOrg, markOrgSynced } from '../../../../electron/store/tables/orgs';
import { fixtureRecords, tasksFailingAt } from '../../../helpers/fixtures';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('migrations', () => {
  it('a new database is at the latest schema version, with every table', async () => {
    const store = await Store.open({ dataDir: null });
    expect(store.value('PRAGMA user_version')).toBe(MIGRATIONS.length);
    const tables = store.column<string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
    expect(tables).toEqual(
      expect.arrayContaining([
        'orgs',
        'datasets',
        'events',
        'delivery_tasks',
        'api_keys',
        'announced_deliveries',
        'snoozes',
        'sync_runs',
        'sources',
      ]),
    );
    await store.close();
  });

  it('a database of schema 1 (before sync) is upgraded in place, its data kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dh-migrations-'));
    dirs.push(dir);
    const SQL = await loadSqlJs();
    const old = new SQL.Database();
    old.exec(MIGRATIONS[0] as string);
    old.run("INSERT INTO orgs (id, name, created_at) VALUES ('acme', 'acme', '2026-01-01T00:00:00.000Z')");
    old.run('PRAGMA user_version = 1');
    writeFileSync(join(dir, 'health.sqlite'), old.export());
    old.close();
    const store = await Store.open({ dataDir: dir });
    expect(store.value('PRAGMA user_version')).toBe(MIGRATIONS.length);
    expect(store.column('SELECT id FROM orgs')).toEqual(['acme']);
    expect(store.column('SELECT count(*) FROM sources')).toEqual([0]);
    expect(
      store.column("SELECT count(*) FROM pragma_table_info('datasets') WHERE name = 'remote_hash'"),
    ).toEqual([1]);
    await store.close();
  });

  it('a database from before incidents gets its failures grouped and timed at upgrade', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dh-migrations-'));
    dirs.push(dir);
    // A mirror of the release before: a FAILED dataset with its tasks, synced at 06:00, no incidents.
    const before = await Store.open({ dataDir: null });
    const base = fixtureRecords(1, 3, 'a')[0]!;
    before.transaction(() => {
      ensureOrg(before, 'acme', new Date('2026-11-21T00:00:00.000Z'));
      writeDataset(
        before,
        'acme',
        {
          ...base,
          datasetId: 'a',
          deliveryId: 'a-1',
          latestDeliveryStatus: 'FAILED',
          deliveryEventList: [
            {
              ...base.deliveryEventList[0]!,
              status: 'FAILED',
              deliveryId: 'a-1',
              deliveryDeadline: '2026-11-21T08:00:00.000Z',
              deliveredAt: null,
            },
          ],
        },
        { events: 'replace', deliveriesPerDataset: 100 },
      );
      writeTasks(
        before,
        'acme',
        'a-1',
        tasksFailingAt('a-1', 'a', 'ingest', 'E_AUTH_FAILED', 'refused', '2026-11-21T05:30:00.000Z'),
      );
      markOrgSynced(before, 'acme', new Date('2026-11-21T06:00:00.000Z'));
    });
    const image = before.db.export();
    await before.close();
    const SQL = await loadSqlJs();
    const old = new SQL.Database(image);
    // Before the incidents' two migrations, the lookup indexes, the stored failed delivery, the team's
    // tables, the rules and the routes' outbox after them.
    old.exec(`DROP TABLE incident_failures; DROP TABLE incidents; DROP INDEX events_troubled;
      DROP INDEX timeline_handoff_changes; DROP INDEX timeline_handoff_notes; DROP INDEX events_failed;
      DROP INDEX datasets_failed; ALTER TABLE datasets DROP COLUMN failed_delivery;
      ALTER TABLE delivery_tasks DROP COLUMN fail_at; DROP TABLE team_log; DROP TABLE team_links;
      DROP TABLE rule_sets; DROP TABLE digest_items; DROP TABLE rule_notifications; DROP TABLE route_outbox;
      DROP TABLE timeline_cuts; PRAGMA user_version = ${MIGRATIONS.length - 9};`);
    writeFileSync(join(dir, 'health.sqlite'), old.export());
    old.close();
    const store = await Store.open({ dataDir: dir });
    expect(store.value('PRAGMA user_version')).toBe(MIGRATIONS.length);
    // Its failure time is its task's end (05:30), not its deadline ahead (08:00); learned by the last sync.
    expect(listIncidents(store, 'acme')).toMatchObject([
      {
        causeId: 'ingest:E_AUTH_FAILED',
        count: 1,
        firstFailureAt: '2026-11-21T05:30:00.000Z',
        lastFailureAt: '2026-11-21T05:30:00.000Z',
        datasets: [{ datasetId: 'a', since: '2026-11-21T05:30:00.000Z' }],
      },
    ]);
    // And the lookups read through their indexes again.
    for (const name of [
      'timeline_handoff_changes',
      'timeline_handoff_notes',
      'events_failed',
      'datasets_failed',
    ])
      expect(store.value(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?`, [name])).toBe(1);
    // The failed delivery is stored on the row, from the events it had.
    expect(store.value(`SELECT failed_delivery FROM datasets WHERE dataset_id = 'a'`)).toBe('a-1');
    await store.close();
  });

  it('a database from before the stored failed delivery gets it from its events, and its index', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dh-migrations-'));
    dirs.push(dir);
    const before = await Store.open({ dataDir: null });
    const base = fixtureRecords(1, 3, 'f')[0]!;
    const event = (deliveryId: string, status: string, day: number) => ({
      ...base.deliveryEventList[0]!,
      deliveryId,
      status,
      deliveryDeadline: `2026-11-2${day}T08:00:00.000Z`,
      deliveredAt: null,
    });
    before.transaction(() => {
      ensureOrg(before, 'acme', new Date('2026-11-21T00:00:00.000Z'));
      // Failed on the 21st, healthy since: its newest FAILED event is still the 21st's.
      const events = [event('f-3', 'HEALTHY', 3), event('f-2', 'FAILED', 2), event('f-1', 'FAILED', 1)];
      const record = { ...base, datasetId: 'f', deliveryId: 'f-3', deliveryEventList: events };
      writeDataset(before, 'acme', record, { events: 'replace', deliveriesPerDataset: 100 });
      writeDataset(
        before,
        'acme',
        { ...record, datasetId: 'g', deliveryEventList: [event('g-1', 'HEALTHY', 1)] },
        {
          events: 'replace',
          deliveriesPerDataset: 100,
        },
      );
    });
    const image = before.db.export();
    await before.close();
    const SQL = await loadSqlJs();
    const old = new SQL.Database(image);
    old.exec(`DROP INDEX datasets_failed; ALTER TABLE datasets DROP COLUMN failed_delivery;
      DROP TABLE team_log; DROP TABLE team_links; DROP TABLE rule_sets; DROP TABLE digest_items;
      DROP TABLE rule_notifications; DROP TABLE route_outbox; DROP TABLE timeline_cuts;
      PRAGMA user_version = ${MIGRATIONS.length - 6};`);
    writeFileSync(join(dir, 'health.sqlite'), old.export());
    old.close();
    const store = await Store.open({ dataDir: dir });
    expect(store.value('PRAGMA user_version')).toBe(MIGRATIONS.length);
    expect(store.all('SELECT dataset_id, failed_delivery FROM datasets ORDER BY dataset_id')).toEqual([
      { dataset_id: 'f', failed_delivery: 'f-2' },
      { dataset_id: 'g', failed_delivery: null },
    ]);
    expect(store.value(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'datasets_failed'`)).toBe(
      1,
    );
    await store.close();
  });

  it('a new database holds its page-token secret from the start (32 random bytes)', async () => {
    const [a, b] = await Promise.all([Store.open({ dataDir: null }), Store.open({ dataDir: null })]);
    const secretOf = (store: Store) =>
      store.value<string>("SELECT value FROM meta WHERE key = 'pageTokenSecret'");
    expect(Buffer.from(secretOf(a) ?? '', 'base64')).toHaveLength(32);
    expect(secretOf(a)).not.toBe(secretOf(b));
    await Promise.all([a.close(), b.close()]);
  });

  it.each([
    ['without a page-token secret gets one at open', null],
    [
      'keeps the one it has (tokens already handed out stay valid)',
      'c2VjcmV0IGZyb20gYW4gZWFybGllciBHRVQgICAgICA=',
    ],
  ])('a database of schema 3 %s', async (_name, secret) => {
    const dir = mkdtempSync(join(tmpdir(), 'dh-migrations-'));
    dirs.push(dir);
    const SQL = await loadSqlJs();
    const old = new SQL.Database();
    for (const migration of MIGRATIONS.slice(0, 3)) old.exec(migration as string);
    if (secret !== null) old.run("INSERT INTO meta (key, value) VALUES ('pageTokenSecret', ?)", [secret]);
    old.run('PRAGMA user_version = 3');
    writeFileSync(join(dir, 'health.sqlite'), old.export());
    old.close();
    const store = await Store.open({ dataDir: dir });
    const stored = store.value<string>("SELECT value FROM meta WHERE key = 'pageTokenSecret'");
    if (secret === null) expect(Buffer.from(stored ?? '', 'base64')).toHaveLength(32);
    else expect(stored).toBe(secret);
    await store.close();
    // Saved with the migration: the next open finds the same secret.
    const again = await Store.open({ dataDir: dir });
    expect(again.value("SELECT value FROM meta WHERE key = 'pageTokenSecret'")).toBe(stored);
    await again.close();
  });

  it('a database written by a newer version is refused and left as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dh-migrations-'));
    dirs.push(dir);
    const SQL = await loadSqlJs();
    const newer = new SQL.Database();
    newer.run(`PRAGMA user_version = ${MIGRATIONS.length + 1}`);
    const file = join(dir, 'health.sqlite');
    writeFileSync(file, newer.export());
    newer.close();
    const before = readFileSync(file);
    await expect(Store.open({ dataDir: dir })).rejects.toThrow(/written by a newer Dataset Health/);
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});
