/** Opens a data directory's store for a CLI command, holding the directory's lock while it runs. */
import { acquireDataDirLock } from '../store/instance/lock';
import { Store, type StoreLogger } from '../store/database';
import type { CliIo } from './io';

export interface OpenedStore {
  store: Store;
  /** Persists, closes and releases the directory. */
  close(): Promise<void>;
}

/** The store's warnings (a file moved aside, a disk that refuses writes) as lines on stderr. */
export const stderrStoreLog = (io: CliIo): StoreLogger => ({
  warn: (m) => io.stderr(`warning: ${m}\n`),
  error: (m) => io.stderr(`error: ${m}\n`),
});

export async function openDataDir(
  dataDir: string,
  purpose: string,
  io: CliIo,
  log: StoreLogger = stderrStoreLog(io),
): Promise<OpenedStore> {
  // A held directory throws DataDirLockedError: its message names the holder (the CLI prints it).
  const lock = acquireDataDirLock(dataDir, { purpose, now: () => io.now() });
  try {
    // Closing writes what the image lacks as a new image, as serve and the app do: a command that
    // changed something leaves a `health.sqlite` any SQLite tool reads whole (docs/storage.md).
    const store = await Store.open({ dataDir, log, openJournal: io.openJournal });
    return {
      store,
      close: async () => {
        try {
          await store.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** Runs `work` with the store open, always closing it (and persisting what was committed). */
export async function withDataDir<T>(
  dataDir: string,
  purpose: string,
  io: CliIo,
  work: (store: Store) => Promise<T> | T,
): Promise<T> {
  const opened = await openDataDir(dataDir, purpose, io);
  try {
    return await work(opened.store);
  } finally {
    await opened.close();
  }
}
