/** Export of an org's snapshot (DESIGN.md §7): every record with all stored events, and its tasks. */
import type { Store } from '../store/database';
import { unpackTasks } from '../store/tasksBlob';
import { recordJsonSql } from './recordSql';

const EXPORT_RECORD = `SELECT ${recordJsonSql({ includeRunDetails: true, eventLimit: '-1' })}
  FROM datasets d WHERE d.org_id = ? ORDER BY d.name_key, d.dataset_id`;

/** Writes the org's snapshot as JSON text, one record at a time (a large org is never one string). */
export function exportSnapshot(
  store: Store,
  orgId: string,
  write: (chunk: string) => void,
): { datasets: number; tasks: number } {
  write('{"datasets":[');
  // Run details as stored (given by the source), never the ones derived from tasks: a re-import must not
  // freeze a derivation, or an empty list for tasks that arrive later.
  let separator = '\n';
  const datasets = store.eachValue<string>(EXPORT_RECORD, [orgId], (record) => {
    write(separator + record);
    separator = ',\n';
  });
  write('\n],"tasks":{');
  separator = '\n';
  const tasks = store.eachValue<string>(
    'SELECT delivery_id FROM delivery_tasks WHERE org_id = ? ORDER BY delivery_id',
    [orgId],
    (deliveryId) => {
      const blob = store.value<Uint8Array>(
        'SELECT json FROM delivery_tasks WHERE org_id = ? AND delivery_id = ?',
        [orgId, deliveryId],
      );
      write(`${separator}${JSON.stringify(deliveryId)}:${JSON.stringify(unpackTasks(blob!))}`);
      separator = ',\n';
    },
  );
  write('\n}}\n');
  return { datasets, tasks };
}
