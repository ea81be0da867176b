/** Rows of one query read a few at a time (`Store.openRows`), for a reader that yields between them. */
import type { BindParams, Database, SqlValue } from 'sql.js';

export interface Rows {
  /** The next row's columns; undefined past the last (the statement is then freed). */
  next(): SqlValue[] | undefined;
  /** Frees the statement; the rows not read are dropped. Safe to call twice. */
  close(): void;
}

/**
 * Steps `sql` on a statement of its own (not the store's shared cache, which other readers reset while
 * these rows are open); `checkFree` runs before each step.
 */
export function openRows(db: Database, checkFree: () => void, sql: string, params: BindParams): Rows {
  checkFree();
  const statement = db.prepare(sql, params);
  let open = true;
  const close = (): void => {
    if (!open) return;
    open = false;
    statement.free();
  };
  return {
    next: () => {
      if (!open) return undefined;
      checkFree();
      if (statement.step()) return statement.get();
      close();
      return undefined;
    },
    close,
  };
}
