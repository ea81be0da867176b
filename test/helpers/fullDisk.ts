/**
 * A disk the test fills and empties: while it is full, the store's journal files open on `/dev/full`,
 * whose writes fail with a real ENOSPC from the kernel. The store opens a journal at a checkpoint and
 * after a failed write, so `fill` takes effect at the next commit's flush.
 */
import { open } from 'node:fs/promises';
import type { Store } from '../../electron/store/database';
import type { OpenJournalFile } from '../../electron/store/durability/journal';

export interface FillableDisk {
  full: boolean;
  /** For `Store.open({ openJournal })`. */
  openJournal: OpenJournalFile;
}

export function fillableDisk(): FillableDisk {
  const disk: FillableDisk = {
    full: false,
    openJournal: (file, flags) => open(disk.full ? '/dev/full' : file, disk.full ? 'r+' : flags, 0o600),
  };
  return disk;
}

/** Saves what is committed, fills the disk and starts a new journal: the next flush fails with ENOSPC. */
export async function fill(disk: FillableDisk, store: Store): Promise<void> {
  await store.flush();
  disk.full = true;
  await store.persistence!.checkpoint();
}
