/**
 * Secondary indexes set aside while an empty table fills (docs/decisions.md "Indexes built once, into
 * empty tables"): rows inserted in an order unrelated to an index's keys land all over it, and past
 * SQLite's page cache each insert reads and writes one of its pages. The datasets table has a dozen and
 * a half, one per sort order. Built once from the finished table (a sort) they cost a fraction.
 *
 * Used inside the caller's transaction: a rolled-back write leaves the indexes as they were. Only
 * indexes with SQL of their own are set aside; a UNIQUE constraint's index stays (upserts need it).
 */
import type { Store } from '../database';

export class DeferredIndexes {
  private constructor(
    private readonly store: Store,
    private readonly pending: { name: string; sql: string }[],
  ) {}

  /** The indexes of `tables` dropped, if any of those tables holds a row none is (else nothing is). */
  static whileEmpty(store: Store, tables: readonly string[]): DeferredIndexes {
    const pending: { name: string; sql: string }[] = [];
    for (const table of tables) {
      if (!/^[a-z_]+$/.test(table)) throw new Error(`not a table name: ${table}`);
      if (store.value(`SELECT 1 FROM ${table} LIMIT 1`) !== undefined) continue;
      const indexes = store.all(
        `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name = ?`,
        [table],
      );
      for (const { name, sql } of indexes) {
        store.db.run(`DROP INDEX "${String(name).replaceAll('"', '""')}"`);
        pending.push({ name: String(name), sql: String(sql) });
      }
    }
    return new DeferredIndexes(store, pending);
  }

  /** Builds the next index set aside; false when none is left (one per call: a caller slices them). */
  buildNext(): boolean {
    const index = this.pending.shift();
    if (index === undefined) return false;
    this.store.db.run(index.sql);
    return true;
  }

  /** Builds index `name` now, if it is still set aside (a check is about to read through it). */
  build(name: string): void {
    const at = this.pending.findIndex((index) => index.name === name);
    if (at >= 0) this.store.db.run(this.pending.splice(at, 1)[0]!.sql);
  }
}
