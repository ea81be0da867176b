/**
 * A query over many ids of one org, asked in slices: SQLite binds at most 32766 parameters, and a
 * cycle's or a replay's facts can name tens of thousands of datasets or deliveries.
 */
import type { Store } from '../store/database';
import type { Row } from '../store/schema/row';

const SLICE = 500;

/**
 * The rows of `sql(placeholders)` for each slice of `ids`, bound as `[orgId, ...slice]`: the query
 * names the org first and takes the slice's `?, ?, …` where it says `IN (${placeholders})`.
 */
export function* rowsForIds(
  store: Store,
  orgId: string,
  ids: readonly string[],
  sql: (placeholders: string) => string,
): Generator<Row> {
  for (let start = 0; start < ids.length; start += SLICE) {
    const slice = ids.slice(start, start + SLICE);
    yield* store.all(sql(slice.map(() => '?').join(', ')), [orgId, ...slice]);
  }
}
