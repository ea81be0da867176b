/**
 * The on-call layer's history (docs/architecture.md#the-on-call-layer): held in blocks of columns, a look
 * re-reads only the datasets whose stored record changed (by the remote's fingerprint, or every column the
 * history reads for an imported record), keeps the blocks without a change as they are, and agrees with
 * a read from scratch (its memory: memory.test.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryWriter } from '../../../electron/knowledge/deliveryColumns';
import { HistoryIndex, type OrgHistory } from '../../../electron/knowledge/history';
import { Store } from '../../../electron/store/database';
import { deleteDataset, writeDataset } from '../../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { dailyDeliveries, type HistorySpec, historyRecord } from '../../helpers/history';

const ORG = 'acme';
const NOW = new Date('2026-11-21T12:00:00Z');

function spec(id: string, deliveries = 5, name = `Dataset ${id}`): HistorySpec {
  return {
    id,
    name,
    cron: '0 6 * * *',
    deliveries: dailyDeliveries(
      '2026-11-21T06:00:00Z',
      Array.from({ length: deliveries }, (_, i) => ({
        status: ['HEALTHY', 'DELIVERED_LATE', 'MISSING', 'FAILED'][i % 4]!,
        offsetMinutes: i % 4 === 2 ? null : i * 7 - 10,
      })),
    ),
  };
}

/** Writes the datasets as one commit; `fingerprint` as a sync would (null: as an import does). */
function write(store: Store, specs: HistorySpec[], fingerprint: (spec: HistorySpec) => string | null): void {
  store.transaction(() => {
    ensureOrg(store, ORG, NOW);
    for (const each of specs)
      writeDataset(store, ORG, historyRecord(each), {
        events: 'replace',
        deliveriesPerDataset: 100,
        remoteHash: fingerprint(each),
      });
  });
}

const synced = (version: string) => (each: HistorySpec) => `${each.id}@${version}`;
const ids = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => `d${String(from + i).padStart(3, '0')}`);
/** A read from scratch, to compare a refreshed history with. */
const fresh = (store: Store) => new HistoryIndex(store, { between: async () => {} }).current(ORG);
const blockIds = (history: OrgHistory) => history.blocks.map((block) => [...block.ids]);
/** Every dataset whole: facts and deliveries. */
const whole = (history: OrgHistory) =>
  Array.from({ length: history.size }, (_, ordinal) => history.datasetAt(ordinal));

describe('HistoryIndex', () => {
  let store: Store;
  beforeEach(async () => {
    store = await Store.open({ dataDir: null });
  });
  afterEach(async () => {
    await store.close();
  });

  it('re-reads only the changed, added datasets; keeps the unchanged blocks; agrees with a read from scratch', async () => {
    write(
      store,
      ids(10).map((id) => spec(id)),
      synced('1'),
    );
    const index = new HistoryIndex(store, { blockSize: 4, between: async () => {} });
    const first = await index.current(ORG);
    expect(index.datasetsRead).toBe(10);
    expect(blockIds(first)).toEqual([ids(4), ids(4, 4), ids(2, 8)]);
    expect(await index.current(ORG)).toBe(first);

    // A sync: d005 has a new delivery, d001 is removed, d010 and d011 are new.
    write(store, [spec('d005', 6), ...ids(2, 10).map((id) => spec(id))], synced('2'));
    store.transaction(() => deleteDataset(store, ORG, 'd001'));
    const second = await index.current(ORG);
    expect(index.datasetsRead).toBe(10 + 3);
    expect(second.revision).toBe(store.dataRevision);
    expect(blockIds(second)).toEqual([['d000', 'd002', 'd003'], ids(4, 4), ids(2, 8), ids(2, 10)]);
    // The block without a change is the one held before, not a copy.
    expect(second.blocks[2]).toBe(first.blocks[2]);
    expect(second.dataset('d005')!.statuses).toHaveLength(6);
    expect(second.dataset('d001')).toBeUndefined();
    expect(whole(second)).toEqual(whole(await fresh(store)));
  });

  it('reads an imported record again when any column it reads changes, its name alone included', async () => {
    write(
      store,
      ids(3).map((id) => spec(id)),
      () => null,
    );
    const index = new HistoryIndex(store, { between: async () => {} });
    await index.current(ORG);
    write(store, [spec('d001', 5, 'Renamed')], () => null);
    const after = await index.current(ORG);
    expect(index.datasetsRead).toBe(3 + 1);
    expect(after.dataset('d001')!.name).toBe('Renamed');
    expect(whole(after)).toEqual(whole(await fresh(store)));
  });

  it('datasets added a few at a time do not leave a block per addition', async () => {
    const index = new HistoryIndex(store, { blockSize: 8, between: async () => {} });
    for (let round = 0; round < 10; round += 1) {
      write(
        store,
        ids(2, round * 2).map((id) => spec(id, 1)),
        synced('1'),
      );
      await index.current(ORG);
    }
    const history = await index.current(ORG);
    expect(history.size).toBe(20);
    // 20 datasets in blocks of 8: small blocks merge, so no more than a few blocks.
    expect(history.blocks.length).toBeLessThanOrEqual(4);
    expect(whole(history)).toEqual(whole(await fresh(store)));
  });
});

describe('DeliveryColumns', () => {
  const at = (iso: string) => Date.parse(iso);
  const DAY = 86_400_000;
  // [deadline, delivered]: what fits the Int32 columns and what is kept beside them.
  const cases: [number, number][] = [
    [at('2026-11-20T06:00:00Z'), at('2026-11-20T06:04:31.123Z')], // whole seconds, a delay in ms
    [at('2026-11-20T06:00:00Z'), NaN], // not delivered
    [at('2026-11-20T06:00:00.250Z'), at('2026-11-20T06:01:00Z')], // a deadline with milliseconds
    [at('2026-11-20T06:00:00Z'), at('2026-11-20T06:00:00Z') + 30 * DAY], // delivered a month late
    [at('2026-11-20T06:00:00Z'), at('2026-11-20T06:00:00Z') - 30 * DAY], // a month early
    [NaN, at('2026-11-20T07:00:00Z')], // no deadline, delivered
    [NaN, NaN],
    [at('2100-01-01T00:00:00Z'), at('2100-01-01T00:00:01Z')], // past the Int32 seconds
    [at('1900-01-01T00:00:00Z'), at('1900-01-01T00:00:01Z')],
    [at('2026-11-20T06:00:00Z'), at('2026-11-20T06:00:00Z') + 0.5], // a fraction of a millisecond
  ];

  it('reads back every time as it was written, also copied into another block', () => {
    const writer = new DeliveryWriter();
    cases.forEach(([deadline, delivered], code) => writer.add(deadline, delivered, code % 6));
    writer.end();
    const columns = writer.done();
    const copy = new DeliveryWriter();
    copy.add(at('2026-01-01T00:00:00Z'), NaN, 1);
    copy.end();
    copy.copy(columns, 0, cases.length);
    copy.end();
    const copied = copy.done();
    cases.forEach(([deadline, delivered], i) => {
      expect(columns.deadline(i)).toBe(deadline);
      expect(columns.delivered(i)).toBe(delivered);
      expect(columns.statuses[i]).toBe(i % 6);
      expect(copied.deadline(i + 1)).toBe(deadline);
      expect(copied.delivered(i + 1)).toBe(delivered);
    });
    expect([...copied.starts]).toEqual([0, 1, 1 + cases.length]);
    // Nine bytes a delivery that fits, the others beside them.
    expect(columns.seconds.byteLength + columns.delays.byteLength + columns.statuses.byteLength).toBe(
      9 * cases.length,
    );
  });
});
