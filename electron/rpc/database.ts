/**
 * The database's status for the window (shared/database.ts) once the engine runs: open, and what the
 * disk refuses. Before the engine runs, the app's shell answers "opening" itself (main/startup.ts).
 */
import type { DatabaseStatus, WriteProblem } from '../../shared/database';
import type { Store } from '../store/database';

type Persisted = Pick<Store, 'persistence'>;

function writeProblem(store: Persisted): WriteProblem | null {
  const problem = store.persistence?.problem ?? null;
  if (problem === null) return null;
  return { message: problem.message, since: problem.since.toISOString(), pendingBytes: problem.pendingBytes };
}

export function databaseStatus(store: Persisted, dataDir: string): DatabaseStatus {
  return { state: 'open', dataDir, opening: null, writeProblem: writeProblem(store) };
}

/**
 * Calls `listener` whenever the status says something new: the disk starts or stops refusing, or more
 * is waiting. (The store reports again at every retry; an unchanged report is not news.)
 */
export function watchDatabaseStatus(
  store: Persisted,
  dataDir: string,
  listener: (status: DatabaseStatus) => void,
): () => void {
  if (!store.persistence) return () => undefined;
  let last = JSON.stringify(databaseStatus(store, dataDir));
  return store.persistence.onProblem(() => {
    const status = databaseStatus(store, dataDir);
    const key = JSON.stringify(status);
    if (key === last) return;
    last = key;
    listener(status);
  });
}
