/**
 * The keys read so far in a snapshot's `tasks` and `timeline`, to refuse one given twice (`JSON.parse`
 * would silently keep the last). An import keeps them in its database, not in memory (fileLedger.ts);
 * `KeySets` holds them in Sets, for text read whole.
 */
export type KeyedMember = 'tasks' | 'timeline';

export interface SnapshotKeys {
  /** Notes a key read; false when the file gave it before. */
  note(member: KeyedMember, key: string): boolean;
}

export class KeySets implements SnapshotKeys {
  private readonly keys: Record<KeyedMember, Set<string>> = { tasks: new Set(), timeline: new Set() };

  note(member: KeyedMember, key: string): boolean {
    const keys = this.keys[member];
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  }
}
