/**
 * The on-call layer's memory grows with the deliveries it holds, not by objects per dataset
 * (docs/decisions.md "The history in columns"): the history of an org holds a few hundred bytes of heap
 * per dataset beside its deliveries' columns, and a held statistics answer is a table of typed arrays,
 * not a group object with a figures object and a week object per week. Measured after full
 * collections (V8's `gc`, exposed at run time), with margins far from both layouts.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  type DatasetHistory,
  HistoryIndex,
  OrgHistory,
  STATUS_CODE,
} from '../../../electron/knowledge/history';
import { StatsCache } from '../../../electron/knowledge/statsCache';
import { Store } from '../../../electron/store/database';
import { writeDataset } from '../../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { dailyDeliveries, historyRecord, scheduleConfig } from '../../helpers/history';

const ORG = 'acme';
const TO = Date.parse('2026-11-21T00:00:00Z');
const DAY = 86_400_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Heap and array buffers after two full collections (a closed WebAssembly memory goes at the second). */
function used(): number {
  gc();
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

describe('memory of the on-call layer', () => {
  it('the history holds a few hundred bytes of heap per dataset, not an object with three typed arrays each', async () => {
    const store = await Store.open({ dataDir: null });
    try {
      const count = 3000;
      store.transaction(() => {
        ensureOrg(store, ORG, new Date(TO));
        for (let i = 0; i < count; i += 1) {
          const id = `d${String(i).padStart(4, '0')}`;
          const deliveries = dailyDeliveries(
            '2026-11-20T06:00:00Z',
            Array.from({ length: 10 }, (_, d) => ({ status: 'HEALTHY', offsetMinutes: d - 5 })),
          );
          // Distinct names, as a real org's: only the suppliers' and products' texts repeat.
          const record = historyRecord({ id, name: `Dataset ${id}`, cron: '0 6 * * *', deliveries });
          writeDataset(store, ORG, record, { events: 'replace', deliveriesPerDataset: 100, remoteHash: id });
        }
      });
      // The code of a read is compiled before the measure (it is heap too); that history is garbage by
      // then (read in a function of its own: an awaited value can stay in the caller's frame).
      const warmUp = async () => {
        await new HistoryIndex(store, { between: async () => {} }).current(ORG);
      };
      await warmUp();
      const before = heap();
      const history = await new HistoryIndex(store, { between: async () => {} }).current(ORG);
      const perDataset = (heap() - before) / count;
      expect(history.size).toBe(count);
      // An object per dataset with its facts, a signature and three typed arrays was ~1.4 KB of heap each;
      // in columns, ~110 bytes.
      expect(perDataset).toBeLessThan(400);
    } finally {
      await store.close();
    }
  });

  it('a held answer per dataset over 90 days is a table of a few hundred bytes per group', async () => {
    const count = 3000;
    const deliveries = 90;
    const datasets = Array.from({ length: count }, (_, i): DatasetHistory => ({
      pk: i,
      datasetId: `d${String(i).padStart(4, '0')}`,
      name: `Dataset ${i}`,
      supplierId: `s${i % 10}`,
      supplierName: `Supplier ${i % 10}`,
      dataProductName: 'Prices',
      status: 'HEALTHY',
      config: scheduleConfig('0 6 * * *'),
      deadlines: Float64Array.from({ length: deliveries }, (_, d) => TO - (d + 0.5) * DAY),
      delivered: Float64Array.from(
        { length: deliveries },
        (_, d) => TO - (d + 0.5) * DAY + ((i + d) % 9) * 60_000,
      ),
      statuses: Uint8Array.from({ length: deliveries }, (_, d) =>
        (i + d) % 5 === 0 ? STATUS_CODE.FAILED : STATUS_CODE.HEALTHY,
      ),
      latestSettledDeadline: TO - 0.5 * DAY,
    }));
    const history = OrgHistory.of(ORG, 'r1', datasets);
    const cache = new StatsCache({ between: async () => {} });
    // As the history test: the code is compiled first, and each answer is dropped in a function of its own.
    const look = async (days: 7 | 90) => {
      expect((await cache.get(history, 'dataset', days, TO)).groups).toHaveLength(count);
    };
    await look(7);
    cache.forget(ORG);
    const before = used();
    await look(90);
    const perGroup = (used() - before) / count;
    expect(cache.heldSlots()).toHaveLength(1);
    // As objects (a group, its figures and 13 weeks) it was ~3 KB a group; as a table, ~430 bytes.
    expect(perGroup).toBeLessThan(700);
    expect(cache.heldBytes()).toBeLessThan(count * 400);
  });
});
