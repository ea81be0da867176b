/**
 * The team's operations as the team server keeps them (docs/decisions.md "On call as a team:
 * operations"): appended, never changed, read back per org by a cursor.
 *
 * - **Once per id.** A push sent again (its answer lost) stores nothing new. An operation under a known
 *   id with another content is refused, and with it the whole push, so no member can rewrite history.
 * - **No gaps behind a cursor.** A pull asks for an org's operations after the last `seq` it has. Were
 *   two pushes to commit out of the order of their numbers, a pull between the two commits would skip
 *   the first for good. Appends to one org hold an advisory lock for their transaction, so an org's
 *   numbers are taken, and committed, one push at a time (two servers on one database included).
 * - Each push that stored something wakes the org's listeners (`NOTIFY team_operations, org`), across
 *   every server on the database.
 */
import type { TeamOperation } from '../../../shared/team';
import type { TeamDatabase } from './driver';

export const OPERATIONS_CHANNEL = 'team_operations';

/** An operation as stored: with its place in its org's order. */
export type StoredOperation = TeamOperation & { seq: number };

/** A push refused: an id already stored with another content. */
export class OperationConflict extends Error {
  constructor(readonly opId: string) {
    super(`operation ${opId} is already stored with another content; operations never change`);
    this.name = 'OperationConflict';
  }
}

/** JSON with object keys sorted: how two contents are compared (jsonb keeps its own key order). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

const contentOf = (op: {
  orgId: string;
  author: string;
  at: string;
  kind: string;
  payload: unknown;
}): string => canonical([op.orgId, op.author, op.at, op.kind, op.payload]);

interface Row {
  seq: string | number;
  op_id: string;
  org_id: string;
  author: string;
  at: string;
  kind: string;
  payload: unknown;
}

const toOperation = (row: Row): StoredOperation =>
  ({
    seq: Number(row.seq),
    opId: row.op_id,
    orgId: row.org_id,
    author: row.author,
    at: row.at,
    kind: row.kind,
    payload: row.payload,
  }) as StoredOperation;

/**
 * Stores `operations` (checked by the caller: shape, org, author) in one transaction. Returns those that
 * were new, with their numbers; throws OperationConflict, storing nothing, if one rewrites a stored id.
 */
export async function appendOperations(
  db: TeamDatabase,
  operations: readonly TeamOperation[],
  /** Runs once the operations are written, before the commit: lets a test hold a push open. */
  beforeCommit: () => Promise<void> = async () => {},
): Promise<StoredOperation[]> {
  if (operations.length === 0) return [];
  const orgs = [...new Set(operations.map((op) => op.orgId))].sort();
  const added = await db.transaction(async (sql) => {
    // In one order everywhere, so two pushes over the same orgs cannot wait on each other.
    for (const org of orgs)
      await sql.query(`SELECT pg_advisory_xact_lock(hashtext('${OPERATIONS_CHANNEL}'), hashtext($1))`, [org]);
    const stored: StoredOperation[] = [];
    for (const op of operations) {
      const [row] = await sql.query<{ seq: string }>(
        `INSERT INTO team_operations (op_id, org_id, author, at, kind, payload)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (op_id) DO NOTHING RETURNING seq`,
        [op.opId, op.orgId, op.author, op.at, op.kind, JSON.stringify(op.payload)],
      );
      if (row !== undefined) {
        stored.push({ ...op, seq: Number(row.seq) });
        continue;
      }
      const [known] = await sql.query<Row>(
        'SELECT seq, op_id, org_id, author, at, kind, payload FROM team_operations WHERE op_id = $1',
        [op.opId],
      );
      if (known === undefined || contentOf(toOperation(known)) !== contentOf(op))
        throw new OperationConflict(op.opId);
    }
    for (const org of new Set(stored.map((op) => op.orgId)))
      await sql.query('SELECT pg_notify($1, $2)', [OPERATIONS_CHANNEL, org]);
    await beforeCommit();
    return stored;
  });
  return added;
}

/** The org's operations after `cursor` (a `seq`; 0 for all), oldest first, at most `limit`. */
export async function operationsAfter(
  db: TeamDatabase,
  orgId: string,
  cursor: number,
  limit: number,
): Promise<StoredOperation[]> {
  const rows = await db.query<Row>(
    `SELECT seq, op_id, org_id, author, at, kind, payload FROM team_operations
     WHERE org_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [orgId, cursor, limit],
  );
  return rows.map(toOperation);
}

/** The orgs that have operations. */
export async function operationOrgs(db: TeamDatabase): Promise<string[]> {
  const rows = await db.query<{ org_id: string }>(
    'SELECT DISTINCT org_id FROM team_operations ORDER BY org_id',
  );
  return rows.map((row) => row.org_id);
}
