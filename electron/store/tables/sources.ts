/** Sources: the remote orgs this mirror syncs (docs/architecture.md#sync). The API key is kept sealed, never plain. */
import type { Store } from '../database';
import { assertOrgId, ensureOrg } from './orgs';

export interface Source {
  id: string;
  /** The local org the remote org is mirrored into. */
  orgId: string;
  name: string;
  baseUrl: string;
  enabled: boolean;
  /** The remote key as the secret keeper sealed it, or null when the key comes from elsewhere (env). */
  apiKeySealed: string | null;
  createdAt: string;
}

export class SourceError extends Error {}

const SOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** An http(s) base URL without query or fragment, normalized without a trailing slash. */
export function normalizeBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new SourceError(`'${text}' is not a URL (expected e.g. https://health.example.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SourceError(`'${text}': only http and https remotes are supported`);
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (url.protocol === 'http:' && !loopback) {
    // The remote key travels in every request: plain http only on this machine (a simulator).
    throw new SourceError(`'${text}': use https (plain http is accepted for 127.0.0.1 and localhost only)`);
  }
  if (url.search || url.hash || url.username || url.password) {
    throw new SourceError(`'${text}': give the base URL only, without credentials, query or fragment`);
  }
  return url.toString().replace(/\/+$/, '');
}

export function assertSourceId(id: string): void {
  if (!SOURCE_ID.test(id)) {
    throw new SourceError(
      `'${id}' is not a valid source id (1–64 characters: letters, digits, '.', '_', '-')`,
    );
  }
}

function fromRow(row: Record<string, unknown>): Source {
  return {
    id: String(row.id),
    orgId: String(row.org_id),
    name: String(row.name),
    baseUrl: String(row.base_url),
    enabled: Number(row.enabled) === 1,
    apiKeySealed: row.api_key_sealed === null ? null : String(row.api_key_sealed),
    createdAt: String(row.created_at),
  };
}

export function listSources(store: Store): Source[] {
  return store.all('SELECT * FROM sources ORDER BY id').map(fromRow);
}

export function getSource(store: Store, id: string): Source | undefined {
  const row = store.get('SELECT * FROM sources WHERE id = ?', [id]);
  return row ? fromRow(row) : undefined;
}

export interface SourceInput {
  id: string;
  orgId: string;
  name?: string;
  baseUrl: string;
  enabled?: boolean;
  apiKeySealed?: string | null;
}

/** Adds or replaces a source (its org is created when new). Returns the stored source. */
export function saveSource(store: Store, input: SourceInput, now: Date): Source {
  assertSourceId(input.id);
  assertOrgId(input.orgId);
  const baseUrl = normalizeBaseUrl(input.baseUrl);
  const other = store.get('SELECT id FROM sources WHERE org_id = ? AND id <> ?', [input.orgId, input.id]);
  if (other) {
    // Two remotes writing one local org would remove each other's datasets at every complete crawl.
    throw new SourceError(`org '${input.orgId}' is already mirrored by source '${String(other.id)}'`);
  }
  store.transaction(() => {
    ensureOrg(store, input.orgId, now);
    store.run(
      `INSERT INTO sources (id, org_id, name, base_url, enabled, api_key_sealed, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET org_id = excluded.org_id, name = excluded.name,
         base_url = excluded.base_url, enabled = excluded.enabled,
         api_key_sealed = coalesce(excluded.api_key_sealed, sources.api_key_sealed)`,
      [
        input.id,
        input.orgId,
        input.name ?? input.id,
        baseUrl,
        input.enabled === false ? 0 : 1,
        input.apiKeySealed ?? null,
        now.toISOString(),
      ],
    );
  });
  return getSource(store, input.id)!;
}

/** Removes the source (its org's mirrored data stays until the org is cleared). False when unknown. */
export function removeSource(store: Store, id: string): boolean {
  return store.run('DELETE FROM sources WHERE id = ?', [id]) > 0;
}
