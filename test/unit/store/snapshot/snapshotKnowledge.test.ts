/**
 * The local knowledge in a snapshot (docs/architecture.md#snapshots "covered by export/import"; store/snapshot/knowledgeRecords.ts):
 * a store's timeline, acknowledgements (open and ended), sync outages and incidents (ended ones, over
 * failures, ids whose founder moved, when the mirror learned of each failure) survive export → import
 * into a fresh store → export byte for byte, and read back the same through what the window and the
 * API call; a file's knowledge is checked as strictly as its records (the first problem in file order,
 * named by its JSON path, and nothing written); retention bounds the timeline in a sync and in an import.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatasetRecord } from '../../../../shared/schemas';
import { MAX_NOTE_LENGTH } from '../../../../shared/causes';
import { acknowledgeDataset, unacknowledgeDataset } from '../../../../electron/knowledge/acknowledge';
import { getIncident, listIncidents } from '../../../../electron/query/incidents';
import { exportSnapshot } from '../../../../electron/query/exportSnapshot';
import { storedDatasetIds } from '../../../../electron/query/storedHealth';
import { listAcknowledgements } from '../../../../electron/store/tables/acknowledgements';
import { Store } from '../../../../electron/store/database';
import { writeTasks } from '../../../../electron/store/tables/datasetWriter';
import {
  type ImportOptions,
  SnapshotError,
  importSnapshotFile,
} from '../../../../electron/store/snapshot/importSnapshot';
import { openOutage } from '../../../../electron/store/tables/outages';
import { addTimelineEntry, datasetTimeline } from '../../../../electron/store/tables/timeline';
import { applySync } from '../../../../electron/sync/apply';
import { ChangeSet, defaultSpoolOptions } from '../../../../electron/sync/changes';
import { fixtureRecords, fixtureTasks } from '../../../helpers/fixtures';
import { incidentOf, regroup } from '../../../helpers/incidents';

const ORG = 'acme';
const stores: Store[] = [];
let store: Store;
let clock: Date;

async function newStore(): Promise<Store> {
  const opened = await Store.open({ dataDir: null });
  stores.push(opened);
  return opened;
}

beforeEach(async () => {
  store = await newStore();
  clock = new Date('2026-11-21T06:00:00.000Z');
});
afterEach(async () => {
  for (const each of stores.splice(0)) await each.close();
});

const who = () => ({ by: 'sam', now: clock });
const tick = (minutes: number) => (clock = new Date(clock.getTime() + minutes * 60_000));

/** Dataset `id` as the remote reports it: its latest delivery `deliveryId`, due at `deadline`. */
function record(id: string, status: string, deliveryId: string, deadline: string): DatasetRecord {
  const base = fixtureRecords(1, 5, id)[0]!;
  return {
    ...base,
    datasetId: id,
    datasetName: `Dataset ${id}`,
    supplier: { id: 'sup-a', name: 'Supplier A' },
    deliveryId,
    latestDeliveryStatus: status,
    deliveryEventList: [
      {
        ...base.deliveryEventList[0]!,
        status,
        deliveryId,
        deliveryDeadline: deadline,
        deliveredAt: status === 'MISSING' ? null : clock.toISOString(),
      },
    ],
  };
}

/** One sync cycle that received these records (their FAILED deliveries' tasks stored, as the sync does). */
async function sync(target: Store, retention: number, ...records: DatasetRecord[]): Promise<void> {
  const changes = new ChangeSet(defaultSpoolOptions());
  for (const each of records) changes.add({ record: each, hash: `${Math.random()}` }, 100);
  const stored = new Map(storedDatasetIds(target, ORG).map((id) => [id, true]));
  await applySync(target, { orgId: ORG, changes, stored, now: clock, deliveriesPerDataset: retention });
  target.transaction(() => {
    for (const each of records)
      if (each.latestDeliveryStatus === 'FAILED')
        writeTasks(target, ORG, each.deliveryId!, fixtureTasks(each.deliveryId!, each.datasetId));
    regroup(target, ORG, clock);
  });
}

/** A sync cycle's commit before the tasks of its new failures are stored (their causes not known yet). */
async function syncWithoutTasks(...records: DatasetRecord[]): Promise<void> {
  const changes = new ChangeSet(defaultSpoolOptions());
  for (const each of records) changes.add({ record: each, hash: `${Math.random()}` }, 100);
  const stored = new Map(storedDatasetIds(store, ORG).map((id) => [id, true]));
  await applySync(store, { orgId: ORG, changes, stored, now: clock, deliveriesPerDataset: 100 });
}

function exported(from: Store): string {
  let text = '';
  exportSnapshot(from, ORG, (chunk) => (text += chunk));
  return text;
}

async function* chunks(text: string, size = 4096): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

const importText = (into: Store, text: string, options: Partial<ImportOptions> = {}) =>
  importSnapshotFile(into, ORG, chunks(text), { now: clock, ...options });

/** An outage still open in a snapshot is another machine's: said so on the importing mirror's timelines. */
const IMPORTED_OPEN = ' (still out when the snapshot was exported)';

/** Everything of the org the doors show: its acknowledgements, incidents (live, and ended too) and timelines. */
function seen(from: Store): unknown {
  return {
    acknowledgements: listAcknowledgements(from, ORG, true),
    causes: listIncidents(from, ORG),
    incidents: listIncidents(from, ORG, { includeEnded: true }).map(({ incidentId }) =>
      getIncident(from, ORG, incidentId),
    ),
    timelines: storedDatasetIds(from, ORG)
      .sort()
      .map((id) => [
        id,
        datasetTimeline(from, ORG, id, 500).map((entry) => ({
          ...entry,
          text: entry.text?.replace(IMPORTED_OPEN, ' (not regained yet)') ?? null,
        })),
      ]),
  };
}

/**
 * A store that lived: status transitions through the sync, an acknowledgement that ended when its
 * dataset delivered, one that holds, a notification on a timeline, two sync outages (one still open).
 */
async function livedIn(): Promise<void> {
  await sync(
    store,
    100,
    record('a', 'FAILED', 'a1', '2026-11-21T05:00:00.000Z'),
    record('b', 'FAILED', 'b1', '2026-11-21T05:00:00.000Z'),
    record('c', 'MISSING', 'c1', '2026-11-21T05:00:00.000Z'),
    record('d', 'HEALTHY', 'd1', '2026-11-21T05:00:00.000Z'),
  );
  store.transaction(() =>
    addTimelineEntry(store, {
      orgId: ORG,
      datasetId: 'a',
      at: clock.toISOString(),
      kind: 'notified',
      deliveryId: 'a1',
      text: 'FAILED: Dataset a',
    }),
  );
  tick(5);
  acknowledgeDataset(store, ORG, 'a', 'rotating the key — "quoted", ünïcode', who());
  acknowledgeDataset(store, ORG, 'b', null, { by: 'Ana María', now: clock });
  tick(30);
  await sync(store, 100, record('a', 'HEALTHY', 'a2', '2026-11-21T06:00:00.000Z'));
  store.run(
    `INSERT INTO sync_outages (org_id, source_id, source_name, last_success_at, lost_at, regained_at)
     VALUES (?, 'src-1', 'Remote one', '2026-11-21T03:00:00.000Z', '2026-11-21T03:03:00.000Z', '2026-11-21T04:00:00.000Z'),
            (?, 'src-1', 'Remote one', '2026-11-21T06:30:00.000Z', '2026-11-21T06:33:00.000Z', NULL)`,
    [ORG, ORG],
  );
}

describe('export → import → export', () => {
  it('is byte for byte the same, and every door reads the same knowledge', async () => {
    await livedIn();
    const first = exported(store);
    const parsed = JSON.parse(first) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual([
      'datasets',
      'tasks',
      'timeline',
      'acknowledgements',
      'syncOutages',
      'incidents',
    ]);
    // One per line, by id; failures by dataset, delivery, status (a's is over: it recovered).
    expect(first.split('"incidents":[\n')[1]!.split('\n')).toEqual([
      '{"incidentId":"inc-aa89b56a29","causeId":"missing:sup-a","title":"MISSING from Supplier A","firstFailureAt":"2026-11-21T05:00:00.000Z","lastFailureAt":"2026-11-21T05:00:00.000Z","openedAt":"2026-11-21T06:00:00.000Z","endedAt":null,"failures":[{"datasetId":"c","deliveryId":"c1","status":"MISSING","failureAt":"2026-11-21T05:00:00.000Z","learnedAt":"2026-11-21T06:00:00.000Z","endedAt":null}]},',
      '{"incidentId":"inc-db0ed9c40e","causeId":"normalize:E_SCHEMA_MISMATCH","title":"Normalize failed: E_SCHEMA_MISMATCH","firstFailureAt":"2026-11-20T05:10:00.000Z","lastFailureAt":"2026-11-20T05:10:00.000Z","openedAt":"2026-11-21T06:00:00.000Z","endedAt":null,"failures":[{"datasetId":"a","deliveryId":"a1","status":"FAILED","failureAt":"2026-11-20T05:10:00.000Z","learnedAt":"2026-11-21T06:00:00.000Z","endedAt":"2026-11-21T06:35:00.000Z"},{"datasetId":"b","deliveryId":"b1","status":"FAILED","failureAt":"2026-11-20T05:10:00.000Z","learnedAt":"2026-11-21T06:00:00.000Z","endedAt":null}]}',
      ']}',
      '',
    ]);
    expect(Object.keys(parsed.timeline as object)).toEqual(['a', 'b', 'c', 'd']);
    expect((parsed.timeline as Record<string, { kind: string }[]>).a!.map((e) => e.kind)).toEqual([
      'status',
      'notified',
      'acknowledged',
      'status',
      'acknowledgement-ended',
    ]);
    expect(parsed.acknowledgements).toEqual([
      expect.objectContaining({ datasetId: 'a', deliveryId: 'a1', endReason: 'delivered (HEALTHY)' }),
      expect.objectContaining({ datasetId: 'b', deliveryId: 'b1', by: 'Ana María', endedAt: null }),
    ]);
    expect(parsed.syncOutages).toEqual([
      {
        sourceId: 'src-1',
        sourceName: 'Remote one',
        lastSuccessAt: '2026-11-21T03:00:00.000Z',
        lostAt: '2026-11-21T03:03:00.000Z',
        regainedAt: '2026-11-21T04:00:00.000Z',
      },
      expect.objectContaining({ lostAt: '2026-11-21T06:33:00.000Z', regainedAt: null }),
    ]);

    const fresh = await newStore();
    // An hour on: the importing mirror learns of nothing, the file says when the first one did.
    tick(60);
    const counts = await importText(fresh, first);
    expect(counts).toEqual({
      datasets: 4,
      tasks: 2,
      timelineEntries: 9,
      acknowledgements: 2,
      syncOutages: 2,
      incidents: 2,
    });
    expect(exported(fresh)).toBe(first);
    expect(seen(fresh)).toEqual(seen(store));
    // Imported again into itself: the same (the file replaces what it holds; outages by source and start).
    await importText(fresh, first);
    expect(exported(fresh)).toBe(first);
  });

  it('a withdrawn acknowledgement (its entries, no acknowledgement) and one made again travel too', async () => {
    await sync(store, 100, record('w', 'FAILED', 'w1', '2026-11-21T05:00:00.000Z'));
    for (const step of ['ack', 'unack', 'ack', 'unack', 'ack'] as const) {
      tick(1);
      if (step === 'ack') acknowledgeDataset(store, ORG, 'w', `note ${clock.getMinutes()}`, who());
      else unacknowledgeDataset(store, ORG, 'w', who());
    }
    tick(1);
    unacknowledgeDataset(store, ORG, 'w', who());
    const withdrawn = exported(store);
    expect(JSON.parse(withdrawn)).toMatchObject({ acknowledgements: [] });
    const fresh = await newStore();
    await importText(fresh, withdrawn);
    expect(exported(fresh)).toBe(withdrawn);
    // Made again: its acknowledgement is in the file beside the entries of the withdrawn ones.
    tick(1);
    acknowledgeDataset(store, ORG, 'w', 'back on it', who());
    const again = exported(store);
    await importText(fresh, again);
    expect(exported(fresh)).toBe(again);
  });

  it('a snapshot without knowledge (an older one) still imports', async () => {
    await livedIn();
    const { datasets, tasks } = JSON.parse(exported(store)) as Record<string, unknown>;
    const fresh = await newStore();
    const counts = await importText(fresh, JSON.stringify({ datasets, tasks }));
    expect(counts).toMatchObject({
      datasets: 4,
      timelineEntries: 0,
      acknowledgements: 0,
      syncOutages: 0,
      incidents: 0,
    });
    expect(listAcknowledgements(fresh, ORG, true)).toEqual([]);
  });

  it('a snapshot without incidents (an older one) imports and groups its failures; one it replaces keeps its own', async () => {
    await livedIn();
    const whole = JSON.parse(exported(store)) as Record<string, unknown>;
    const { incidents: _incidents, ...older } = whole;
    const before = listIncidents(store, ORG, { includeEnded: true });
    tick(60);
    const fresh = await newStore();
    const counts = await importText(fresh, JSON.stringify(older));
    expect(counts).toMatchObject({ datasets: 4, acknowledgements: 2, incidents: 0 });
    // The failures troubled now, grouped at the import: learned then, failing since their deliveries say.
    const grouped = listIncidents(fresh, ORG, { includeEnded: true });
    expect(
      grouped.map(({ causeId, count, recovered, firstFailureAt, datasets }) => ({
        causeId,
        count,
        recovered,
        firstFailureAt,
        datasets: datasets.map((d) => d.datasetId),
      })),
    ).toEqual([
      {
        causeId: 'missing:sup-a',
        count: 1,
        recovered: 0,
        firstFailureAt: '2026-11-21T05:00:00.000Z',
        datasets: ['c'],
      },
      {
        causeId: 'normalize:E_SCHEMA_MISMATCH',
        count: 1,
        recovered: 0,
        firstFailureAt: '2026-11-20T05:10:00.000Z',
        datasets: ['b'],
      },
    ]);
    const file = JSON.parse(exported(fresh)) as { incidents: { failures: { learnedAt: string }[] }[] };
    expect(file.incidents.flatMap((i) => i.failures.map((f) => f.learnedAt))).toEqual([
      clock.toISOString(),
      clock.toISOString(),
    ]);
    // Into the store it came from: the org's incidents stay as they were (the file says nothing of them).
    await importText(store, JSON.stringify(older));
    expect(listIncidents(store, ORG, { includeEnded: true })).toEqual(before);
  });

  it('an incident that ended, and one whose founder moved to its own cause, keep their ids and times', async () => {
    // p and q fail before their tasks are stored: one provisional incident, founded by p (first by id).
    await syncWithoutTasks(
      record('p', 'FAILED', 'p1', '2026-11-21T05:00:00.000Z'),
      record('q', 'FAILED', 'q1', '2026-11-21T05:00:00.000Z'),
    );
    const unknown = incidentOf(store, ORG, 'unknown');
    tick(10);
    // p's tasks arrive: p moves to its cause's incident; q stays in the one p founded.
    store.transaction(() => {
      writeTasks(store, ORG, 'p1', fixtureTasks('p1', 'p'));
      regroup(store, ORG, clock);
    });
    const schema = incidentOf(store, ORG, 'normalize:E_SCHEMA_MISMATCH');
    tick(30);
    // p recovers: its incident ends.
    await sync(store, 100, record('p', 'HEALTHY', 'p2', '2026-11-21T06:30:00.000Z'));
    const ended = getIncident(store, ORG, schema)!;
    expect(ended.endedAt).toBe(clock.toISOString());
    expect(incidentOf(store, ORG, 'unknown')).toBe(unknown);
    const file = exported(store);

    tick(24 * 60);
    const fresh = await newStore();
    expect(await importText(fresh, file)).toMatchObject({ incidents: 2 });
    expect(exported(fresh)).toBe(file);
    expect(seen(fresh)).toEqual(seen(store));
    expect(getIncident(fresh, ORG, schema)).toEqual(ended);

    // Without them, the same failures grouped again at the import: another id, and the ended one gone.
    const { incidents: _incidents, ...older } = JSON.parse(file) as Record<string, unknown>;
    const regrouped = await newStore();
    await importText(regrouped, JSON.stringify(older));
    expect(listIncidents(regrouped, ORG, { includeEnded: true }).map((i) => i.incidentId)).toEqual([
      expect.not.stringMatching(unknown),
    ]);
  });

  it('"incidents": [] replaces the org\'s incidents with none, then groups what is troubled', async () => {
    await livedIn();
    const before = listIncidents(store, ORG, { includeEnded: true });
    const file = JSON.parse(exported(store)) as Record<string, unknown>;
    tick(60);
    expect(await importText(store, JSON.stringify({ ...file, incidents: [] }))).toMatchObject({
      incidents: 0,
    });
    const after = listIncidents(store, ORG, { includeEnded: true });
    // c founded its incident, which is grouped the same; a founded the other, and a is over (not regrouped).
    expect(after.map((i) => i.causeId)).toEqual(before.map((i) => i.causeId));
    expect(after.find((i) => i.causeId === 'missing:sup-a')!.incidentId).toBe(
      before.find((i) => i.causeId === 'missing:sup-a')!.incidentId,
    );
    const schema = after.find((i) => i.causeId === 'normalize:E_SCHEMA_MISMATCH')!;
    expect(schema.incidentId).not.toBe(
      before.find((i) => i.causeId === 'normalize:E_SCHEMA_MISMATCH')!.incidentId,
    );
    expect(schema.recovered).toBe(0);
    // null is no incidents given: the org's stay.
    const now = listIncidents(store, ORG, { includeEnded: true });
    await importText(store, JSON.stringify({ ...file, incidents: null }));
    expect(listIncidents(store, ORG, { includeEnded: true })).toEqual(now);
  });

  it("replaces the knowledge of the file's datasets, keeps the others' and adds outages", async () => {
    await livedIn();
    const whole = JSON.parse(exported(store)) as {
      datasets: DatasetRecord[];
      timeline: Record<string, unknown[]>;
      acknowledgements: { datasetId: string }[];
    };
    // A file of dataset b alone, its acknowledgement gone and its timeline one entry long.
    const onlyB = {
      datasets: whole.datasets.filter((d) => d.datasetId === 'b'),
      timeline: { b: whole.timeline.b!.slice(0, 1) },
      acknowledgements: [],
      syncOutages: [
        { sourceId: 'src-2', sourceName: 'Remote two', lostAt: '2026-11-21T05:00:00Z', regainedAt: null },
      ],
    };
    const before = seen(store) as { timelines: [string, unknown[]][] };
    await importText(store, JSON.stringify(onlyB));
    const after = seen(store) as typeof before & { acknowledgements: { datasetId: string }[] };
    expect(after.acknowledgements.map((ack) => ack.datasetId)).toEqual(['a']);
    expect(datasetTimeline(store, ORG, 'b', 500).filter((e) => e.kind !== 'outage')).toHaveLength(1);
    // Dataset a's own entries are as they were (the new outage shows on every timeline it overlaps).
    const own = (timelines: [string, { kind: string }[]][]) =>
      timelines.find(([id]) => id === 'a')![1].filter((e) => e.kind !== 'outage');
    expect(own(after.timelines as never)).toEqual(own(before.timelines as never));
    // The outages that overlap a's timeline (from its first entry on): the two still open.
    expect(
      datasetTimeline(store, ORG, 'a', 500)
        .filter((e) => e.kind === 'outage')
        .map((e) => e.text),
    ).toEqual([
      'Lost contact with Remote one (not regained yet)',
      'Lost contact with Remote two (still out when the snapshot was exported)',
    ]);
    const outages = (JSON.parse(exported(store)) as { syncOutages: { sourceId: string }[] }).syncOutages;
    expect(outages.map((o) => o.sourceId)).toEqual(['src-1', 'src-2', 'src-1']);
    // Another machine's outage is never this mirror's contact with a source named alike.
    expect(openOutage(store, ORG, 'src-2')).toBeNull();
    expect(openOutage(store, ORG, 'src-1')).not.toBeNull();
  });

  it('reads knowledge that comes before the datasets', async () => {
    await livedIn();
    const whole = JSON.parse(exported(store)) as Record<string, unknown>;
    const { datasets, ...rest } = whole;
    const fresh = await newStore();
    await importText(fresh, JSON.stringify({ ...rest, datasets }));
    expect(exported(fresh)).toBe(exported(store));
  });
});

describe('retention', () => {
  it('a sync drops timeline entries older than the oldest delivery it keeps', async () => {
    await sync(store, 1, record('r', 'FAILED', 'r1', '2026-11-21T05:00:00.000Z'));
    tick(60);
    // Retention 1: r1 (due 05:00) goes, r2 (due 06:30) stays; the 06:00 entry is older than 06:30.
    await sync(store, 1, record('r', 'HEALTHY', 'r2', '2026-11-21T06:30:00.000Z'));
    expect(datasetTimeline(store, ORG, 'r', 500)).toEqual([
      expect.objectContaining({ at: '2026-11-21T07:00:00.000Z', from: 'FAILED', to: 'HEALTHY' }),
    ]);
  });

  it('an ended acknowledgement whose delivery retention dropped stays in the store, out of the export, which imports again', async () => {
    await sync(store, 1, record('r', 'FAILED', 'r1', '2026-11-21T05:00:00.000Z'));
    tick(5);
    acknowledgeDataset(store, ORG, 'r', 'on it', who());
    tick(30);
    // Retention 1: r1 goes; r2, due 06:00, stays, and the timeline from 06:00 on with it.
    await sync(store, 1, record('r', 'HEALTHY', 'r2', '2026-11-21T06:00:00.000Z'));
    expect(listAcknowledgements(store, ORG, true)).toEqual([
      expect.objectContaining({ deliveryId: 'r1', endReason: 'delivered (HEALTHY)' }),
    ]);
    const file = JSON.parse(exported(store)) as {
      acknowledgements: unknown[];
      timeline: Record<string, { kind: string; deliveryId: string }[]>;
    };
    // A file naming r1 without it would be refused: it goes with its delivery, as its tasks do.
    expect(file.acknowledgements).toEqual([]);
    // Its entries stay, history of a delivery the file no longer has (as a status entry's would).
    expect(file.timeline.r!.map((e) => `${e.kind} ${e.deliveryId}`)).toEqual([
      'status r1',
      'acknowledged r1',
      'status r2',
      'acknowledgement-ended r1',
    ]);
    const fresh = await newStore();
    await importText(fresh, exported(store), { deliveriesPerDataset: 1 });
    expect(exported(fresh)).toBe(exported(store));
  });

  const file = (): string => {
    const r = record('r', 'HEALTHY', 'r2', '2026-11-21T06:30:00.000Z');
    r.deliveryEventList.push({
      ...r.deliveryEventList[0]!,
      deliveryId: 'r1',
      deliveryDeadline: '2026-11-21T05:00:00Z',
    });
    const entry = (at: string) => ({ at, kind: 'status', from: null, to: 'HEALTHY', deliveryId: null });
    return JSON.stringify({
      datasets: [r],
      timeline: {
        r: [entry('2026-11-21T04:00:00Z'), entry('2026-11-21T05:30:00Z'), entry('2026-11-21T07:00:00Z')],
      },
    });
  };

  it.each([
    [100, ['2026-11-21T07:00:00.000Z', '2026-11-21T05:30:00.000Z']],
    [1, ['2026-11-21T07:00:00.000Z']],
  ])(
    'an import with --retention %i drops the entries older than the oldest delivery kept',
    async (retention, kept) => {
      const counts = await importText(store, file(), { deliveriesPerDataset: retention });
      expect(counts.timelineEntries).toBe(3);
      expect(datasetTimeline(store, ORG, 'r', 500).map((e) => e.at)).toEqual(kept);
    },
  );
});

/** The file with one change made to its parsed form; the message its import must get. */
type Row = [
  name: string,
  change: (file: Record<string, unknown[] | Record<string, unknown>>) => void,
  message: RegExp,
];

const ack = (file: Record<string, unknown>, i: number) =>
  (file.acknowledgements as Record<string, unknown>[])[i]!;
const entry = (file: Record<string, unknown>, id: string, i: number) =>
  (file.timeline as Record<string, Record<string, unknown>[]>)[id]![i]!;
/** livedIn's incidents: [0] c MISSING (live); [1] normalize:E_SCHEMA_MISMATCH, a's failure over, b's live. */
const incident = (file: Record<string, unknown>, i: number) =>
  (file.incidents as Record<string, unknown>[])[i]!;
const failure = (file: Record<string, unknown>, i: number, j: number) =>
  (incident(file, i).failures as Record<string, unknown>[])[j]!;

const REFUSED: Row[] = [
  [
    'an unknown timeline kind',
    (f) => void (entry(f, 'a', 1).kind = 'exploded'),
    /^\$\.timeline\["a"\]\[1\]\.kind: 'exploded' is not a timeline kind \(allowed: status, notified, reminded, ruled, acknowledged, unacknowledged, acknowledgement-ended, outage\)$/,
  ],
  [
    "an outage in a dataset's timeline (outages are the org's)",
    (f) => void (entry(f, 'b', 0).kind = 'outage'),
    /^\$\.timeline\["b"\]\[0\]\.kind: an outage is the org's, not a dataset's: give it in \$\.syncOutages/,
  ],
  [
    'a timeline time that is not one',
    (f) => void (entry(f, 'a', 0).at = '2026-02-30T00:00:00Z'),
    /^\$\.timeline\["a"\]\[0\]\.at: '2026-02-30T00:00:00Z' is not an RFC 3339 datetime$/,
  ],
  [
    'a timeline entry without a time',
    (f) => void delete entry(f, 'b', 0).at,
    /^\$\.timeline\["b"\]\[0\]\.at: missing; an RFC 3339 datetime$/,
  ],
  [
    'an unknown field in a timeline entry',
    (f) => void (entry(f, 'a', 0).orgId = 'other'),
    /^\$\.timeline\["a"\]\[0\]\.orgId: unknown field 'orgId' \(allowed: at, kind, from, to, deliveryId, text, by\)$/,
  ],
  [
    'a timeline of a dataset not in the file',
    (f) => void ((f.timeline as Record<string, unknown>).zz = []),
    /^\$\.timeline\["zz"\]: the timeline of dataset 'zz', which is not in the file's datasets/,
  ],
  [
    'a timeline entry naming a delivery of another dataset',
    (f) => void (entry(f, 'a', 0).deliveryId = 'b1'),
    /^\$\.timeline\["a"\]\[0\]\.deliveryId: delivery 'b1' belongs to dataset 'b' \(\$\.datasets\[1\]\.deliveryEventList\[0\]\.deliveryId\), not 'a'$/,
  ],
  [
    'a timeline that is not an array',
    (f) => void ((f.timeline as Record<string, unknown>).a = {}),
    /^\$\.timeline\["a"\]: expected an array of timeline entries, got an object$/,
  ],
  [
    'a status with markup',
    (f) => void (entry(f, 'a', 0).to = '<b>'),
    /^\$\.timeline\["a"\]\[0\]\.to: '<b>' is not a status/,
  ],
  [
    'an over-long note',
    (f) => void (ack(f, 0).note = 'n'.repeat(MAX_NOTE_LENGTH + 1)),
    new RegExp(
      `^\\$\\.acknowledgements\\[0\\]\\.note: ${MAX_NOTE_LENGTH + 1} characters, over the limit of ${MAX_NOTE_LENGTH} for note$`,
    ),
  ],
  [
    'an over-long timeline text',
    (f) => void (entry(f, 'a', 2).text = 'n'.repeat(MAX_NOTE_LENGTH + 1)),
    /^\$\.timeline\["a"\]\[2\]\.text: 2001 characters, over the limit of 2000 for text$/,
  ],
  [
    'an acknowledgement of a dataset not in the file',
    (f) => void (ack(f, 1).datasetId = 'zz'),
    /^\$\.acknowledgements\[1\]\.datasetId: an acknowledgement of dataset 'zz', which is not in the file's datasets/,
  ],
  [
    'an acknowledgement with its org',
    (f) => void (ack(f, 0).orgId = ORG),
    /^\$\.acknowledgements\[0\]\.orgId: unknown field 'orgId' \(allowed: datasetId, deliveryId, status, causeId, note, by, at, endedAt, endReason\)$/,
  ],
  [
    'an acknowledgement time that is not one',
    (f) => void (ack(f, 1).at = 'yesterday'),
    /^\$\.acknowledgements\[1\]\.at: 'yesterday' is not an RFC 3339 datetime$/,
  ],
  [
    'an acknowledgement that ended before it began',
    (f) => void (ack(f, 0).endedAt = '2020-01-01T00:00:00Z'),
    /^\$\.acknowledgements\[0\]\.endedAt: 2020-01-01T00:00:00\.000Z is before at \(2026-11-21T06:05:00\.000Z\)$/,
  ],
  [
    'an unknown cause',
    (f) => void (ack(f, 1).causeId = 'upload:E_X'),
    /^\$\.acknowledgements\[1\]\.causeId: cause 'upload:E_X': unknown stage 'upload'/,
  ],
  [
    'a name too long',
    (f) => void (ack(f, 1).by = 'x'.repeat(101)),
    /^\$\.acknowledgements\[1\]\.by: 101 characters, over the limit of 100 for by$/,
  ],
  [
    'a control character in who acknowledged',
    (f) => void (ack(f, 1).by = 'Ana\u0007 María'),
    /^\$\.acknowledgements\[1\]\.by: the name has a control character \(U\+0007\); a name is plain text$/,
  ],
  [
    "a control character in an acknowledgement's note on the timeline",
    (f) => void (entry(f, 'a', 2).text = 'rotating\u001b[8m'),
    /^\$\.timeline\["a"\]\[2\]\.text: the note has a control character \(U\+001B\); a note holds text, line breaks and tabs$/,
  ],
  [
    'the same failure acknowledged twice',
    (f) => void (f.acknowledgements as unknown[]).push({ ...ack(f, 0) }),
    /^\$\.acknowledgements\[2\]\.deliveryId: delivery 'a1' of dataset 'a' is acknowledged also at \$\.acknowledgements\[0\]/,
  ],
  [
    'an ended acknowledgement of a delivery its dataset does not have',
    (f) => void (ack(f, 0).deliveryId = 'a9'),
    /^\$\.acknowledgements\[0\]\.deliveryId: dataset 'a' has no delivery 'a9' in the file \(an acknowledgement is of one of its dataset's deliveries: an event's deliveryId or the record's\)$/,
  ],
  [
    'an acknowledgement left out while the timeline tells of it',
    (f) => void (f.acknowledgements as unknown[]).shift(),
    /^\$\.timeline\["a"\]\[2\]\.deliveryId: an 'acknowledged' entry of delivery 'a1', but the file has no acknowledgement of dataset 'a' and that delivery \(give it in \$\.acknowledgements, or an 'unacknowledged' entry at or after this one if it was withdrawn\)$/,
  ],
  [
    "an acknowledgement's end told of another delivery of its dataset",
    (f) => {
      const r = (f.datasets as DatasetRecord[]).find((d) => d.datasetId === 'a')!;
      entry(f, 'a', 4).deliveryId = r.deliveryEventList[0]!.deliveryId;
    },
    /^\$\.timeline\["a"\]\[4\]\.deliveryId: an 'acknowledgement-ended' entry of delivery 'a2', but the file has no acknowledgement of dataset 'a' and that delivery/,
  ],
  [
    'an acknowledged entry without its delivery',
    (f) => void (entry(f, 'a', 2).deliveryId = null),
    /^\$\.timeline\["a"\]\[2\]\.deliveryId: missing; an 'acknowledged' entry names the delivery acknowledged$/,
  ],
  [
    'an acknowledgement withdrawn before it was made',
    (f) => {
      const withdrawal = {
        ...entry(f, 'a', 2),
        kind: 'unacknowledged',
        at: '2026-11-21T06:04:59Z',
        text: null,
      };
      (f.timeline as Record<string, unknown[]>).a!.push(withdrawal);
      (f.acknowledgements as unknown[]).shift();
    },
    /^\$\.timeline\["a"\]\[2\]\.deliveryId: an 'acknowledged' entry of delivery 'a1', but the file has no acknowledgement/,
  ],
  [
    'an open acknowledgement of a failure that no longer holds',
    (f) => void Object.assign(ack(f, 0), { endedAt: null, endReason: null }),
    /^\$\.acknowledgements\[0\]\.endedAt: an open acknowledgement of FAILED delivery 'a1', but the file's dataset 'a' is HEALTHY \(give endedAt and endReason for one that ended\)$/,
  ],
  [
    'an end reason without an end',
    (f) => void (ack(f, 1).endReason = 'because'),
    /^\$\.acknowledgements\[1\]\.endReason: given without endedAt/,
  ],
  [
    'an outage regained before it was lost',
    (f) => void ((f.syncOutages as Record<string, unknown>[])[0]!.regainedAt = '2026-11-21T03:00:00Z'),
    /^\$\.syncOutages\[0\]\.regainedAt: 2026-11-21T03:00:00\.000Z is before lostAt \(2026-11-21T03:03:00\.000Z\)$/,
  ],
  [
    'an outage without its source',
    (f) => void delete (f.syncOutages as Record<string, unknown>[])[1]!.sourceId,
    /^\$\.syncOutages\[1\]\.sourceId: missing; a non-empty string of at most 256 characters$/,
  ],
  [
    'a sync outage given twice',
    (f) => {
      const outages = f.syncOutages as Record<string, unknown>[];
      outages.push({ ...outages[0]!, lostAt: '2026-11-21T04:03:00+01:00' });
    },
    /^\$\.syncOutages\[2\]\.lostAt: source 'src-1' lost contact at 2026-11-21T03:03:00\.000Z also at \$\.syncOutages\[0\] \(one outage per source and start\)$/,
  ],
  [
    'acknowledgements that are not an array',
    (f) => void (f.acknowledgements = {} as never),
    /^\$\.acknowledgements: expected an array of acknowledgements$/,
  ],
  [
    'an incident with its org',
    (f) => void (incident(f, 0).orgId = ORG),
    /^\$\.incidents\[0\]\.orgId: unknown field 'orgId' \(allowed: incidentId, causeId, title, firstFailureAt, lastFailureAt, openedAt, endedAt, failures\)$/,
  ],
  [
    'a failure with its own cause',
    (f) => void (failure(f, 1, 0).causeId = 'normalize:E_SCHEMA_MISMATCH'),
    /^\$\.incidents\[1\]\.failures\[0\]\.causeId: unknown field 'causeId' \(allowed: datasetId, deliveryId, status, failureAt, learnedAt, endedAt\)$/,
  ],
  [
    'an incident id not spelled as the app spells them',
    (f) => void (incident(f, 0).incidentId = 'INC-42'),
    /^\$\.incidents\[0\]\.incidentId: 'INC-42' is not an incident id \('inc-' and 10 lower-case hex digits, maybe '-N'\)$/,
  ],
  [
    'an incident of an unknown cause',
    (f) => void (incident(f, 1).causeId = 'upload:E_X'),
    /^\$\.incidents\[1\]\.causeId: cause 'upload:E_X': unknown stage 'upload'/,
  ],
  [
    'a failure after the mirror learned of it',
    (f) => void (failure(f, 1, 1).failureAt = '2026-11-21T07:00:01+01:00'),
    /^\$\.incidents\[1\]\.failures\[1\]\.failureAt: 2026-11-21T06:00:01\.000Z is after learnedAt \(2026-11-21T06:00:00\.000Z\): a failure is never later than when the mirror learned of it$/,
  ],
  [
    'a failure time that is not one',
    (f) => void (failure(f, 0, 0).learnedAt = '2026-11-21T25:00:00Z'),
    /^\$\.incidents\[0\]\.failures\[0\]\.learnedAt: '2026-11-21T25:00:00Z' is not an RFC 3339 datetime$/,
  ],
  [
    'a failure that is not FAILED or MISSING',
    (f) => void (failure(f, 1, 0).status = 'HEALTHY'),
    /^\$\.incidents\[1\]\.failures\[0\]\.status: 'HEALTHY' is not a failure's status \(FAILED or MISSING\)$/,
  ],
  [
    'a MISSING failure in an incident of a failed stage',
    (f) => void (failure(f, 1, 0).status = 'MISSING'),
    /^\$\.incidents\[1\]\.failures\[0\]\.status: a MISSING failure in an incident of cause 'normalize:E_SCHEMA_MISMATCH'/,
  ],
  [
    'an incident whose last failure is before its first',
    (f) => void (incident(f, 0).lastFailureAt = '2026-11-21T04:59:59Z'),
    /^\$\.incidents\[0\]\.lastFailureAt: 2026-11-21T04:59:59\.000Z is before firstFailureAt \(2026-11-21T05:00:00\.000Z\)$/,
  ],
  [
    'an incident ended while a failure of it is live',
    (f) => void (incident(f, 1).endedAt = '2026-11-21T07:00:00Z'),
    /^\$\.incidents\[1\]\.endedAt: given, but its failure at \$\.incidents\[1\]\.failures\[1\] is live/,
  ],
  [
    'a live incident whose failures are all over',
    (f) => void (failure(f, 0, 0).endedAt = '2026-11-21T06:30:00Z'),
    /^\$\.incidents\[0\]\.endedAt: null, but every one of its failures has ended/,
  ],
  [
    'an incident without failures',
    (f) => void (incident(f, 0).failures = []),
    /^\$\.incidents\[0\]\.failures: empty; an incident holds at least one failure$/,
  ],
  [
    'an incident given twice',
    (f) => void (f.incidents as unknown[]).push({ ...incident(f, 0) }),
    /^\$\.incidents\[2\]\.incidentId: incident 'inc-aa89b56a29' is also at \$\.incidents\[0\] \(one incident per id\)$/,
  ],
  [
    'one failure in two incidents',
    (f) =>
      void (f.incidents as unknown[]).push({
        ...incident(f, 1),
        incidentId: 'inc-0123456789',
        failures: [{ ...failure(f, 1, 1) }],
      }),
    /^\$\.incidents\[2\]\.failures\[0\]: the FAILED failure of dataset 'b', delivery 'b1' is also at \$\.incidents\[1\]\.failures\[1\] \(a failure belongs to one incident\)$/,
  ],
  [
    'a failure of a dataset the org does not have',
    (f) => void (failure(f, 1, 0).datasetId = 'zz'),
    /^\$\.incidents\[1\]\.failures\[0\]\.datasetId: a failure of dataset 'zz', which is neither in the file's datasets nor in org 'acme'$/,
  ],
  [
    "a failure of another dataset's delivery",
    (f) => void (failure(f, 1, 0).deliveryId = 'b1'),
    /^\$\.incidents\[1\]\.failures\[0\]\.deliveryId: delivery 'b1' belongs to dataset 'b' \(\$\.datasets\[1\]\.deliveryEventList\[0\]\.deliveryId\), not 'a'$/,
  ],
  [
    'an over-long incident title',
    (f) => void (incident(f, 0).title = 't'.repeat(MAX_NOTE_LENGTH + 1)),
    /^\$\.incidents\[0\]\.title: 2001 characters, over the limit of 2000 for title$/,
  ],
  [
    'incidents that are not an array',
    (f) => void (f.incidents = {} as never),
    /^\$\.incidents: expected an array of incidents$/,
  ],
];

describe('a file whose knowledge is wrong is refused, changing nothing', () => {
  it.each(REFUSED)('%s', async (_name, change, message) => {
    await livedIn();
    const file = JSON.parse(exported(store)) as Parameters<Row[1]>[0];
    change(file);
    const target = await newStore();
    // Into a store holding the org already (the file's own): it must stay as it is.
    await importText(target, exported(store));
    const before = exported(target);
    const refused = await importText(target, JSON.stringify(file)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SnapshotError);
    expect((refused as Error).message).toMatch(message);
    expect(exported(target)).toBe(before);
  });

  it('the first problem in file order is the one told', async () => {
    await livedIn();
    const file = JSON.parse(exported(store)) as Parameters<Row[1]>[0];
    ack(file, 1).note = 'n'.repeat(MAX_NOTE_LENGTH + 1);
    entry(file, 'a', 0).kind = 'exploded';
    const { acknowledgements, ...rest } = file;
    const ackFirst = JSON.stringify({ acknowledgements, ...rest });
    await expect(importText(await newStore(), ackFirst)).rejects.toThrow(/^\$\.acknowledgements\[1\]\.note/);
    await expect(importText(await newStore(), JSON.stringify(file))).rejects.toThrow(
      /^\$\.timeline\["a"\]\[0\]\.kind/,
    );
  });
});
