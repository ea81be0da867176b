/**
 * What one piece of a snapshot file may be, whatever the file's size (docs/decisions.md "Import"): a
 * well-formed file of any size is read, but no single value is buffered without end. Each limit is
 * passed at a byte, and refused at that byte with its JSON path, so a never-ending string or absurd
 * nesting costs at most the limit's bytes, never the file's. Tests pass smaller ones.
 */
export interface SnapshotLimits {
  /** Bytes of JSON text of one record (a dataset, a tasks record, a timeline, …) or top-level value. */
  recordBytes: number;
  /** Brackets open at once inside one record, its own included. */
  depth: number;
  /** Bytes of JSON text of a member name of the snapshot object, or a key of `tasks` / `timeline`. */
  nameBytes: number;
  /** Bytes kept of a file that is not an object, to say what it is (`[]`, `null`, not JSON). */
  notObjectBytes: number;
}

export const SNAPSHOT_LIMITS: Readonly<SnapshotLimits> = {
  // The largest record of a real 100k export is 0.2 MB (a dataset of 30 deliveries with their run
  // details): 300 times that room, and still far below V8's longest string (512 Mi characters), which
  // a record's text must fit in to be parsed.
  recordBytes: 64 * 1024 * 1024,
  // A record nests about 5 levels (dataset, events, an event, its run details, one of them); a depth
  // counter costs nothing, and 64 leaves room for any reasonable hand-made file.
  depth: 64,
  // A key is an id of at most MAX_ID_LENGTH (256) characters: at most 6 bytes each (`\uXXXX`) plus
  // the quotes is 1,538 bytes; a name past 4 KiB is no id and no member, whatever follows.
  nameBytes: 4 * 1024,
  // Enough for `JSON.parse` to name a small file's value as today's messages do; a larger file that
  // is not an object is refused by what it starts with, without reading on.
  notObjectBytes: 4 * 1024,
};
