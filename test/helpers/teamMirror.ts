/**
 * A member's mirror of an org for the team's tests: ds-a FAILED with delivery d-1 (its tasks stored, so
 * it has a cause), ds-b MISSING d-2, written through the sync's own commit and marked synced — what a
 * member's store holds before operations are applied to it — and what its window shows of the team's
 * state (the acknowledgements and snoozes tables).
 */
import type { DatasetRecord } from '../../shared/schemas';
import { storedDatasetIds } from '../../electron/query/storedHealth';
import type { Store } from '../../electron/store/database';
import { writeTasks } from '../../electron/store/tables/datasetWriter';
import { applySync } from '../../electron/sync/apply';
import { ChangeSet, defaultSpoolOptions } from '../../electron/sync/changes';
import { fixtureRecords, fixtureTasks } from './fixtures';
import { regroup } from './incidents';

export const MIRRORED_AT = new Date('2026-11-29T12:30:00.000Z');

function record(id: string, status: string, deliveryId: string): DatasetRecord {
  const base = fixtureRecords(1, 5, id)[0]!;
  return {
    ...base,
    datasetId: id,
    deliveryId,
    latestDeliveryStatus: status,
    deliveryEventList: [
      {
        ...base.deliveryEventList[0]!,
        status,
        deliveryId,
        deliveryDeadline: '2026-11-29T11:00:00.000Z',
        deliveredAt: status === 'MISSING' ? null : '2026-11-29T11:05:00.000Z',
      },
    ],
  };
}

export async function mirrorTwoTroubles(store: Store, orgId: string): Promise<void> {
  const changes = new ChangeSet(defaultSpoolOptions());
  const records = [record('ds-a', 'FAILED', 'd-1'), record('ds-b', 'MISSING', 'd-2')];
  for (const each of records) changes.add({ record: each, hash: each.datasetId }, 100);
  const stored = new Map(storedDatasetIds(store, orgId).map((id) => [id, true]));
  await applySync(store, { orgId, changes, stored, now: MIRRORED_AT, deliveriesPerDataset: 100 });
  store.transaction(() => {
    writeTasks(store, orgId, 'd-1', fixtureTasks('d-1', 'ds-a'));
    regroup(store, orgId, MIRRORED_AT);
    store.run('UPDATE orgs SET last_synced_at = ? WHERE id = ?', [MIRRORED_AT.toISOString(), orgId]);
  });
}

/** What the window, the alerts and the API read of an org's team state. */
export const shownState = (store: Store, orgId?: string) => ({
  acknowledgements: store.all(
    `SELECT org_id, dataset_id, delivery_id, status, cause_id, note, by_name, at, ended_at, end_reason
     FROM acknowledgements ${orgId === undefined ? '' : 'WHERE org_id = ?'} ORDER BY org_id, dataset_id, delivery_id`,
    orgId === undefined ? [] : [orgId],
  ),
  snoozes: store.all(
    `SELECT org_id, dataset_id, kind, until, delivery_id, created_at FROM snoozes
     ${orgId === undefined ? '' : 'WHERE org_id = ?'} ORDER BY org_id, dataset_id`,
    orgId === undefined ? [] : [orgId],
  ),
});
