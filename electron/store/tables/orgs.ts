/** Local orgs: every dataset, key and sync run belongs to one. */
import type { Store } from '../database';

export interface Org {
  id: string;
  name: string;
  createdAt: string;
  lastSyncedAt: string | null;
}

const ORG_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class OrgIdError extends Error {}

/** The org is well formed but not in this data directory (a typo, a wrong case): nothing was created. */
export class UnknownOrgError extends OrgIdError {
  constructor(
    readonly orgId: string,
    readonly known: string[],
    readonly suggestion: string | null,
  ) {
    const orgs = known.length === 0 ? 'none yet' : `orgs: ${known.join(', ')}`;
    const hint = suggestion === null ? '.' : `; did you mean '${suggestion}'?`;
    super(`no org '${orgId}' in this data directory (${orgs})${hint}`);
  }
}

const ESCAPES = new Map([
  ['\n', '\\n'],
  ['\r', '\\r'],
  ['\t', '\\t'],
]);

/** Format characters (bidi overrides and isolates, zero-width ones), and line and paragraph separators. */
const INVISIBLE = /[\p{Cf}\p{Zl}\p{Zp}]/gu;

/** `\u202e`, or for a character beyond the BMP each UTF-16 unit (`\udb40\udc01`), as JSON writes it. */
const escaped = (char: string): string =>
  Array.from(
    { length: char.length },
    (_, i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`,
  ).join('');

/**
 * Text as one printable line: control characters (\p{Cc}: C0, DEL, C1) escaped as `\n` or `\u001b`, and
 * format characters and separators (\p{Cf}, \p{Zl}, \p{Zp}) as `\u202e`, so stored or typed text can
 * neither break a table or a one-line error, nor drive the terminal, nor reverse or hide what follows it
 * on the line (a U+202E in a dataset name would print the rest of an `ack` line backwards).
 */
export function printable(text: string): string {
  return text.replace(/\p{Cc}/gu, (char) => ESCAPES.get(char) ?? escaped(char)).replace(INVISIBLE, escaped);
}

/**
 * JSON for a terminal: as JSON.stringify writes it, with format characters and separators escaped too
 * (JSON.stringify escapes controls only). The same JSON value, safe to print.
 */
export function printableJson(value: unknown): string {
  return escapeInvisible(JSON.stringify(value, null, 2));
}

/** JSON text with its format characters and separators escaped (`\u202e`): still the same JSON value. */
export const escapeInvisible = (json: string): string => json.replace(INVISIBLE, escaped);

/** An input echoed in a message: printable, and cut after 80 characters. */
const echo = (text: string): string =>
  printable(text.length > 80 ? `${text.slice(0, 80)}… (${text.length} characters)` : text);

export function assertOrgId(id: string): void {
  if (!ORG_ID.test(id)) {
    throw new OrgIdError(
      `'${echo(id)}' is not a valid org id (1–64 characters: letters, digits, '.', '_', '-'; starting with a letter or digit)`,
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

/** Edit distance, for "did you mean": org ids are short (64 characters at most). */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Throws UnknownOrgError unless the org exists, suggesting the nearest existing id (same letters in
 * another case, else at most two edits away). Looked up in SQL and arrays only, never as an object key,
 * so ids like `constructor` or `__proto__` are ordinary unknown orgs.
 */
export function requireOrg(store: Store, id: string): void {
  assertOrgId(id);
  if (store.get('SELECT 1 AS found FROM orgs WHERE id = ?', [id])) return;
  const known = store.all('SELECT id FROM orgs ORDER BY id').map((row) => String(row.id));
  const sameLetters = known.find((org) => org.toLowerCase() === id.toLowerCase());
  const near = known
    .map((org) => ({ org, edits: distance(org.toLowerCase(), id.toLowerCase()) }))
    .filter(({ edits }) => edits <= 2)
    .sort((a, b) => a.edits - b.edits)[0];
  throw new UnknownOrgError(id, known, sameLetters ?? near?.org ?? null);
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
