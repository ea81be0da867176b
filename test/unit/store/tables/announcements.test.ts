/**
 * The alerts' memory: FAILED deliveries never announced, what became of each, those held, and the
 * reminders of those someone was told of.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  MAX_REMINDERS,
  heldFailures,
  remember,
  rememberReminder,
  remindableFailures,
  unannouncedFailures,
} from '../../../../electron/store/tables/announcements';
import { acknowledge } from '../../../../electron/store/tables/acknowledgements';
import { datasetTimeline } from '../../../../electron/store/tables/timeline';
import { Store } from '../../../../electron/store/database';
import { deleteDataset } from '../../../../electron/store/tables/datasetWriter';
import { ORG, putDataset } from '../../../helpers/alerts';
import { plannedQueries } from '../../../helpers/queryPlans';

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
});
afterEach(() => store.close());

const NOW = new Date('2026-11-21T12:00:00.000Z');
const LATER = new Date('2026-11-21T13:00:00.000Z');

const failure = (n: number, deliveryId: string, orgId = ORG) => ({
  orgId,
  datasetId: `ds-${n}`,
  datasetName: `Dataset ${n}`,
  deliveryId,
});

describe('announced deliveries', () => {
  it('lists the org’s FAILED datasets by name whose failed delivery was never announced', () => {
    putDataset(store, 2, 'FAILED', 'd2');
    putDataset(store, 1, 'FAILED', 'd1');
    putDataset(store, 3, 'HEALTHY', 'd3');
    putDataset(store, 4, 'FAILED', 'e4', { orgId: 'other' });
    expect(unannouncedFailures(store, ORG)).toEqual([failure(1, 'd1'), failure(2, 'd2')]);
    remember(store, [failure(1, 'd1')], 'notified', NOW);
    expect(unannouncedFailures(store, ORG)).toEqual([failure(2, 'd2')]);
    // Failing again with a new delivery: that one is new.
    putDataset(store, 1, 'FAILED', 'd1b');
    expect(unannouncedFailures(store, ORG)).toEqual([failure(1, 'd1b'), failure(2, 'd2')]);
    expect(unannouncedFailures(store, 'other')).toEqual([failure(4, 'e4', 'other')]);
  });

  it('remembers as bookkeeping (no new data revision), and nothing for no datasets', () => {
    putDataset(store, 1, 'FAILED', 'd1');
    const revision = store.dataRevision;
    remember(store, [], 'notified', NOW);
    remember(store, [failure(1, 'd1')], 'snoozed', NOW);
    expect(store.dataRevision).toBe(revision);
    expect(unannouncedFailures(store, ORG)).toEqual([]);
  });

  it('holds failures until released, oldest first, with the dataset’s current name (null once gone)', () => {
    putDataset(store, 1, 'FAILED', 'd1');
    putDataset(store, 2, 'FAILED', 'd2');
    putDataset(store, 3, 'FAILED', 'e3', { orgId: 'other' });
    remember(store, [failure(2, 'd2'), failure(3, 'e3', 'other')], 'held', NOW);
    remember(store, [failure(1, 'd1')], 'held', LATER);
    expect(heldFailures(store)).toEqual([failure(2, 'd2'), failure(3, 'e3', 'other'), failure(1, 'd1')]);
    store.transaction(() => deleteDataset(store, 'other', 'ds-3'));
    remember(store, [failure(2, 'd2')], 'summarized', LATER);
    expect(heldFailures(store)).toEqual([
      { ...failure(3, 'e3', 'other'), datasetName: null },
      failure(1, 'd1'),
    ]);
  });

  it('with a title, writes a timeline entry per dataset in the same transaction, as a data change', () => {
    putDataset(store, 1, 'FAILED', 'd1');
    const revision = store.dataRevision;
    remember(store, [failure(1, 'd1')], 'notified', NOW, 'FAILED: Dataset 1');
    expect(store.dataRevision).not.toBe(revision);
    expect(datasetTimeline(store, ORG, 'ds-1', 10).filter((e) => e.kind === 'notified')).toEqual([
      expect.objectContaining({ at: NOW.toISOString(), deliveryId: 'd1', text: 'FAILED: Dataset 1' }),
    ]);
  });

  it('lists failures told of, still FAILED with that delivery, unacknowledged, reminded fewer than three times', () => {
    putDataset(store, 1, 'FAILED', 'd1');
    putDataset(store, 2, 'FAILED', 'd2');
    putDataset(store, 3, 'FAILED', 'd3');
    putDataset(store, 4, 'FAILED', 'd4');
    remember(store, [failure(1, 'd1')], 'notified', NOW);
    remember(store, [failure(2, 'd2')], 'summarized', NOW);
    remember(store, [failure(3, 'd3')], 'snoozed', NOW);
    remember(store, [failure(4, 'd4')], 'held', NOW);
    expect(remindableFailures(store, ORG).map((f) => [f.datasetId, f.announcedAt, f.reminders])).toEqual([
      ['ds-1', NOW.toISOString(), 0],
      ['ds-2', NOW.toISOString(), 0],
    ]);
    rememberReminder(store, [failure(1, 'd1')], LATER, 'Still failing');
    expect(remindableFailures(store, ORG)[0]).toMatchObject({
      reminders: 1,
      remindedAt: LATER.toISOString(),
    });
    expect(datasetTimeline(store, ORG, 'ds-1', 10)[0]).toMatchObject({
      kind: 'reminded',
      text: 'Still failing',
    });
    for (let n = 1; n < MAX_REMINDERS; n++)
      rememberReminder(store, [failure(1, 'd1')], LATER, 'Still failing');
    expect(remindableFailures(store, ORG).map((f) => f.datasetId)).toEqual(['ds-2']);
    store.transaction(() =>
      acknowledge(store, {
        orgId: ORG,
        datasetId: 'ds-2',
        deliveryId: 'd2',
        status: 'FAILED',
        causeId: null,
        note: null,
        by: 'sam',
        at: LATER.toISOString(),
      }),
    );
    expect(remindableFailures(store, ORG)).toEqual([]);
  });

  it('lists only those last told of at or before a time, when asked (the reminders due)', () => {
    putDataset(store, 1, 'FAILED', 'd1');
    putDataset(store, 2, 'FAILED', 'd2');
    remember(store, [failure(1, 'd1')], 'notified', NOW);
    remember(store, [failure(2, 'd2')], 'notified', LATER);
    const ids = (toldBefore: string) => remindableFailures(store, ORG, toldBefore).map((f) => f.datasetId);
    expect(ids(NOW.toISOString())).toEqual(['ds-1']);
    expect(ids(new Date(NOW.getTime() - 1).toISOString())).toEqual([]);
    expect(ids(LATER.toISOString())).toEqual(['ds-1', 'ds-2']);
    // Reminded since: told of then, not when announced.
    rememberReminder(store, [failure(1, 'd1')], LATER, 'Still failing');
    expect(ids(NOW.toISOString())).toEqual([]);
    expect(ids(LATER.toISOString())).toEqual(['ds-1', 'ds-2']);
  });

  it("reads each FAILED dataset's failed delivery from the index of FAILED datasets, not from rows or events", () => {
    putDataset(store, 1, 'FAILED', 'd1');
    remember(store, [failure(1, 'd1')], 'notified', NOW);
    const asked = plannedQueries(store, () => {
      unannouncedFailures(store, ORG);
      remindableFailures(store, ORG, LATER.toISOString());
    });
    expect(asked).toHaveLength(2);
    for (const { plan } of asked) {
      expect(plan).toContain('SEARCH d USING COVERING INDEX datasets_failed (org_id=?)');
      expect(plan).not.toContain('events');
    }
  });
});
