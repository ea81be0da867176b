/** A row as a query returns it: column name to value (the store's and a migration's raw database alike). */
import type { SqlValue } from 'sql.js';

export type Row = Record<string, SqlValue>;
