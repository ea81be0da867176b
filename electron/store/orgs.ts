/** Local orgs: every dataset, key and sync run belongs to one. */
import type { Store } from './database';

export interface Org {
  id: string;
  name: string;
  createdAt: string;
  lastSyncedAt: string | null;
}

const ORG_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class OrgIdError extends Error {}

export function assertOrgId(id: string): void {
  if (!ORG_ID.test(id)) {
    throw new OrgIdError(
      `'${id}' is not a valid org id (1–64 characters: letters, digits, '.', '_', '-'; starting with a letter or digit)`,
    );
  }
}

/** Creates the org if it does not exist yet. */
export function ensureOrg(store: Store, id: string, now: Date, name = id): void {
  assertOrgId(id);
  store.run('INSERT INTO orgs (id, name, created_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING', [
    id,
    name,
    now.toISOString(),
  ]);
}

export function getOrg(store: Store, id: string): Org | undefined {
  const row = store.get('SELECT id, name, created_at, last_synced_at FROM orgs WHERE id = ?', [id]);
  if (!row) return undefined;
  return {
    id: String(row.id),
    name: String(row.name),
    createdAt: String(row.created_at),
    lastSyncedAt: row.last_synced_at === null ? null : String(row.last_synced_at),
  };
}

export function listOrgs(store: Store): (Org & { datasets: number })[] {
  return store
    .all(
      `SELECT o.id, o.name, o.created_at, o.last_synced_at, (SELECT count(*) FROM datasets d WHERE d.org_id = o.id) AS n
       FROM orgs o ORDER BY o.id`,
    )
    .map((row) => ({
      id: String(row.id),
      name: String(row.name),
      createdAt: String(row.created_at),
      lastSyncedAt: row.last_synced_at === null ? null : String(row.last_synced_at),
      datasets: Number(row.n),
    }));
}

/** Records a successful sync of the org: the `X-Synced-At` of its API answers. */
export function markOrgSynced(store: Store, id: string, at: Date): void {
  store.run('UPDATE orgs SET last_synced_at = ? WHERE id = ?', [at.toISOString(), id]);
}
