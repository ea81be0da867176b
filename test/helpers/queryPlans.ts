/**
 * What a read asks of the store, and how SQLite answers it: the queries `read` runs through
 * `store.all`, each with its plan (EXPLAIN QUERY PLAN, its lines joined by " | "). For tests that an
 * index serves a question at any size.
 */
import type { Store } from '../../electron/store/database';

export interface PlannedQuery {
  sql: string;
  plan: string;
}

export function plannedQueries(store: Store, read: () => void): PlannedQuery[] {
  const asked: { sql: string; params: unknown[] }[] = [];
  const all = store.all.bind(store);
  store.all = ((sql: string, params: unknown[] = []) => {
    asked.push({ sql, params });
    return all(sql, params as never);
  }) as typeof store.all;
  try {
    read();
  } finally {
    store.all = all;
  }
  return asked.map(({ sql, params }) => ({
    sql,
    plan: all(`EXPLAIN QUERY PLAN ${sql}`, params as never)
      .map((row) => String(row.detail))
      .join(' | '),
  }));
}
