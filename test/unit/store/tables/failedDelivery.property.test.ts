/**
 * `datasets.failed_delivery` (store/schema/failedDelivery.ts) is what the stored events say, whatever
 * wrote them: a new dataset's worked out before its events are written (a first sync, an import), a
 * stored one's read back after a merge, a replace or a trim by retention. Checked against the query
 * over the events it stands for, after every write of random records: delivery ids repeated or absent,
 * equal and unknown times, FAILED anywhere in the list, retention cutting through it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatasetRecord, DeliveryEvent } from '../../../../shared/schemas';
import { Store } from '../../../../electron/store/database';
import { newestFailedOf } from '../../../../electron/store/schema/failedDelivery';
import {
  keepNewestEvents,
  newestFailedOfNew,
  writeDataset,
} from '../../../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../../../electron/store/tables/orgs';
import { fixtureRecords } from '../../../helpers/fixtures';

let store: Store;
beforeAll(async () => {
  store = await Store.open({ dataDir: null });
  ensureOrg(store, 'acme', new Date('2026-01-01T00:00:00Z'));
});
afterAll(() => store.close());

const [template] = fixtureRecords(1, 3, 'fd');
const config = template!.deliveryEventList[0]!.processingDeadlineConfig;

/** Few ids, few times: repeats and ties are common. */
const event: fc.Arbitrary<DeliveryEvent> = fc
  .record({
    deliveryId: fc.option(fc.constantFrom('d1', 'd2', 'd3', 'd4', 'd5', 'd6'), { freq: 6 }),
    status: fc.constantFrom('FAILED', 'HEALTHY', 'DELIVERED_LATE', 'MISSING', null),
    deadline: fc.option(fc.integer({ min: 0, max: 2 }), { freq: 8 }),
    delivered: fc.option(fc.integer({ min: 0, max: 1 }), { freq: 2 }),
  })
  .map(({ deliveryId, status, deadline, delivered }) => ({
    ...template!.deliveryEventList[0]!,
    deliveryId,
    status,
    deliveryDeadline: deadline === null ? null : `2026-03-0${deadline + 1}T06:00:00.000Z`,
    deliveredAt: delivered === null ? null : `2026-03-0${delivered + 1}T07:00:00.000Z`,
    processingDeadlineConfig: config,
  }));

const recordOf = (datasetId: string, events: DeliveryEvent[]): DatasetRecord => ({
  ...template!,
  datasetId,
  latestDeliveryStatus: events[0]?.status ?? null,
  deliveryEventList: events,
});

/** The failed delivery by the query over the stored events, and as stored on the row. */
function both(datasetId: string): { stored: unknown; fromEvents: unknown } {
  const pk = store.value<number>("SELECT pk FROM datasets WHERE org_id = 'acme' AND dataset_id = ?", [
    datasetId,
  ]);
  return {
    stored: store.value('SELECT failed_delivery FROM datasets WHERE pk = ?', [pk!]) ?? null,
    fromEvents: store.value(`SELECT ${newestFailedOf('?1')}`, [pk!]) ?? null,
  };
}

const write = fc.record({
  events: fc.array(event, { maxLength: 9 }),
  mode: fc.constantFrom('new', 'new distinct', 'merge', 'replace'),
  limit: fc.integer({ min: 1, max: 8 }),
  trimAfter: fc.option(fc.integer({ min: 1, max: 6 }), { freq: 3 }),
});

let run = 0;

describe('the failed delivery stored on the dataset row', () => {
  it('equals the newest FAILED stored event after any sequence of writes', () => {
    fc.assert(
      fc.property(fc.array(write, { minLength: 1, maxLength: 4 }), (writes) => {
        const datasetId = `ds-${(run += 1)}`;
        store.transaction(() => {
          writes.forEach(({ events, mode, limit, trimAfter }, index) => {
            // "new" is only true of the first write; an import's events are distinct by its checks.
            const isNew = index === 0 && mode.startsWith('new');
            const distinct = mode === 'new distinct';
            const given = distinct
              ? events.filter(
                  (e, i) =>
                    e.deliveryId === null || events.findIndex((o) => o.deliveryId === e.deliveryId) === i,
                )
              : events;
            const pk = writeDataset(store, 'acme', recordOf(datasetId, given), {
              events: mode === 'replace' ? 'replace' : 'merge',
              deliveriesPerDataset: limit,
              isNew,
              distinctEvents: distinct && isNew,
            });
            const { stored, fromEvents } = both(datasetId);
            expect(stored).toBe(fromEvents);
            if (trimAfter !== null) {
              keepNewestEvents(store, pk, trimAfter);
              const after = both(datasetId);
              expect(after.stored).toBe(after.fromEvents);
            }
          });
        });
      }),
      { numRuns: 500 },
    );
  });

  it('of a new dataset, is worked out from its list as the list will be stored', () => {
    const at = (day: number): string => `2026-03-0${day}T06:00:00.000Z`;
    const listed = (deliveryId: string | null, status: string, day: number): DeliveryEvent => ({
      ...template!.deliveryEventList[0]!,
      deliveryId,
      status,
      deliveryDeadline: at(day),
      deliveredAt: null,
    });
    // Newest first by deadline, whatever the list's order.
    expect(newestFailedOfNew([listed('old', 'FAILED', 1), listed('new', 'FAILED', 2)], 10)).toBe('new');
    // Of two at the same times, the one listed first is the newer (the list is newest first).
    expect(newestFailedOfNew([listed('first', 'FAILED', 2), listed('second', 'FAILED', 2)], 10)).toBe(
      'first',
    );
    // A delivery listed again takes its later values: d2 is no longer FAILED.
    expect(
      newestFailedOfNew(
        [listed('d2', 'FAILED', 3), listed('d1', 'FAILED', 1), listed('d2', 'HEALTHY', 3)],
        10,
      ),
    ).toBe('d1');
    // Retention drops the only FAILED one.
    expect(newestFailedOfNew([listed('d3', 'HEALTHY', 3), listed('d1', 'FAILED', 1)], 1)).toBeNull();
    // A FAILED event without an id is the newest: the dataset's failure names no delivery.
    expect(newestFailedOfNew([listed(null, 'FAILED', 3), listed('d1', 'FAILED', 1)], 10)).toBeNull();
  });
});
