/**
 * Local API keys (docs/api.md#keys): `dhk_` + 43 base64url characters, shown once, stored only as a SHA-256
 * hash, scoped to one org, revocable, with created and last-used times.
 */
import { CONTROL, codePoint } from '../../../shared/controlCharacters';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyView } from '../../../shared/views';
import type { Store } from '../database';
import { ensureOrg, requireOrg } from './orgs';

export const API_KEY_PATTERN = /^dhk_[A-Za-z0-9_-]{43}$/;

/** A key as lists show it (the window's contract type: the same fields, one definition). */
export type ApiKeyInfo = ApiKeyView;

export interface CreatedApiKey extends ApiKeyInfo {
  /** The secret itself: returned once, never stored. */
  key: string;
}

/** Longest key name, in characters (code points). */
export const KEY_NAME_MAX = 128;

/** A key name that cannot be stored (empty, too long, a control character). */
export class KeyNameError extends Error {}

/** Throws KeyNameError unless the name can be stored and printed as it is. */
export function checkKeyName(name: string): void {
  if (name.length === 0) throw new KeyNameError('key names may not be empty');
  const length = [...name].length;
  if (length > KEY_NAME_MAX)
    throw new KeyNameError(`key names are at most ${KEY_NAME_MAX} characters (this one has ${length})`);
  const control = CONTROL.exec(name);
  if (control)
    throw new KeyNameError(`key names may not contain control characters (${codePoint(control[0])})`);
}

const hashKey = (key: string): Buffer => createHash('sha256').update(key).digest();

/**
 * Creates a key for the org. With `newOrg: false` (the CLI and the window) an org that is not in the store
 * is refused with UnknownOrgError; the default creates it (the built-in demo's key, before its first sync).
 */
export function createApiKey(
  store: Store,
  orgId: string,
  name: string,
  now: Date,
  { newOrg = true }: { newOrg?: boolean } = {},
): CreatedApiKey {
  checkKeyName(name);
  const key = `dhk_${randomBytes(32).toString('base64url')}`;
  const id = `key_${randomBytes(6).toString('hex')}`;
  const createdAt = now.toISOString();
  store.transaction(() => {
    if (newOrg) ensureOrg(store, orgId, now);
    else requireOrg(store, orgId);
    store.run('INSERT INTO api_keys (id, org_id, name, hash, created_at) VALUES (?, ?, ?, ?, ?)', [
      id,
      orgId,
      name,
      hashKey(key).toString('hex'),
      createdAt,
    ]);
  });
  return { id, orgId, name, createdAt, lastUsedAt: null, revokedAt: null, key };
}

function toInfo(row: Record<string, unknown>): ApiKeyInfo {
  const text = (value: unknown): string | null => (value === null ? null : String(value));
  return {
    id: String(row.id),
    orgId: String(row.org_id),
    name: String(row.name),
    createdAt: String(row.created_at),
    lastUsedAt: text(row.last_used_at),
    revokedAt: text(row.revoked_at),
  };
}

export function listApiKeys(store: Store, orgId?: string): ApiKeyInfo[] {
  const columns = 'id, org_id, name, created_at, last_used_at, revoked_at';
  const rows =
    orgId === undefined
      ? store.all(`SELECT ${columns} FROM api_keys ORDER BY org_id, created_at, id`)
      : store.all(`SELECT ${columns} FROM api_keys WHERE org_id = ? ORDER BY created_at, id`, [orgId]);
  return rows.map(toInfo);
}

/** Revokes the key; false when there is no such key or it was already revoked. */
export function revokeApiKey(store: Store, id: string, now: Date): boolean {
  return (
    store.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [
      now.toISOString(),
      id,
    ]) > 0
  );
}

export interface Authenticated {
  keyId: string;
  orgId: string;
}

/** The key's identity, or null for an unknown, malformed or revoked key. */
export function authenticateApiKey(store: Store, key: string): Authenticated | null {
  if (!API_KEY_PATTERN.test(key)) return null;
  const hash = hashKey(key);
  const row = store.get('SELECT id, org_id, hash, revoked_at FROM api_keys WHERE hash = ?', [
    hash.toString('hex'),
  ]);
  if (!row || row.revoked_at !== null) return null;
  // The lookup already matched; the constant-time comparison keeps the check itself free of timing signal.
  if (!timingSafeEqual(Buffer.from(String(row.hash), 'hex'), hash)) return null;
  return { keyId: String(row.id), orgId: String(row.org_id) };
}

/** Bookkeeping only: it does not renew ETags or cached pages. */
export function recordKeyUse(store: Store, id: string, at: Date): void {
  store.transaction(
    () => store.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [at.toISOString(), id]),
    {
      dataChange: false,
    },
  );
}
