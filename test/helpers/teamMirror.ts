/**
 * A member's mirror of an org for the team's tests: ds-a FAILED with delivery d-1 (its tasks stored, so
 * it has a cause), ds-b MISSING d-2, grouped into incidents and marked synced — what a member's store
 * holds before operations are applied to it — and what its window shows of the team's state (the
 * acknowledgements and snoozes tables).
 */
import type { Store } from '../../electron/store/database';
import { putFailure, regroup } from './incidents';

export const MIRRORED_AT = new Date('2026-11-29T12:30:00.000Z');

export async function mirrorTwoTroubles(store: Store, orgId: string): Promise<void> {
  putFailure(store, orgId, {
    id: 'ds-a',
    deliveryId: 'd-1',
    deadline: '2026-11-29T11:00:00.000Z',
    deliveredAt: '2026-11-29T11:05:00.000Z',
    task: { stage: 'ingest', code: 'E_AUTH_FAILED', endedAt: '2026-11-29T11:04:00.000Z' },
  });
  putFailure(store, orgId, {
    id: 'ds-b',
    status: 'MISSING',
    deliveryId: 'd-2',
    deadline: '2026-11-29T11:00:00.000Z',
  });
  store.transaction(() => {
    regroup(store, orgId, MIRRORED_AT);
    store.run('UPDATE orgs SET last_synced_at = ? WHERE id = ?', [MIRRORED_AT.toISOString(), orgId]);
  });
}

/** What the window, the alerts and the API read of an org's team state (of every org: no `orgId`). */
export const shownState = (store: Store, orgId?: string) => {
  const where = orgId === undefined ? '' : 'WHERE org_id = ?';
  const params = orgId === undefined ? [] : [orgId];
  return {
    acknowledgements: store.all(
      `SELECT org_id, dataset_id, delivery_id, status, cause_id, note, by_name, at, ended_at, end_reason
       FROM acknowledgements ${where} ORDER BY org_id, dataset_id, delivery_id`,
      params,
    ),
    snoozes: store.all(
      `SELECT org_id, dataset_id, kind, until, delivery_id, created_at FROM snoozes ${where} ORDER BY org_id, dataset_id`,
      params,
    ),
  };
};
