/**
 * Memory for a database file in sql.js's in-memory file system that grows in place (issue 12 item 3).
 *
 * The file system keeps a file in one typed array and grows it by allocating a larger one and copying
 * (an eighth more each time): near 1 GB (100k datasets) every growth briefly holds the database twice.
 * A length-tracking view over a resizable ArrayBuffer grows without a copy (the pages are reserved,
 * and resident only once written), so we hand the file system one: an image read at open is adopted
 * as it is (no copy either), and a new database's storage moves into one at its first write. Where
 * this cannot apply (a file past 4 GiB, the file system replaced its array), the file system's own
 * growth goes on working as before.
 */

/** The largest resizable buffer V8 accepts. */
const MAX_BYTES = 2 ** 32;
/** Growth step: a quarter more, at least 1 MiB (few resizes, little reserved beyond the database). */
const MIN_STEP = 1024 * 1024;

type FileNode = Record<string, unknown>;

/** ES2024's resizable ArrayBuffer (Node 20, Electron's V8), typed here: the project targets ES2023. */
export interface ResizableArrayBuffer extends ArrayBuffer {
  readonly resizable: boolean;
  readonly maxByteLength: number;
  resize(size: number): void;
}
export const ResizableArrayBuffer = ArrayBuffer as unknown as new (
  size: number,
  options: { maxByteLength: number },
) => ResizableArrayBuffer;
const resizable = (view: Uint8Array): ResizableArrayBuffer => view.buffer as ResizableArrayBuffer;

/** The growable view of each file node, and the node property that holds the file's bytes. */
const growable = new WeakMap<object, { key: string; view: Uint8Array }>();

/** A zeroed buffer of `size` bytes that can later grow in place. */
export function growableBuffer(size: number): Uint8Array {
  if (size > MAX_BYTES) return new Uint8Array(size);
  return new Uint8Array(new ResizableArrayBuffer(size, { maxByteLength: MAX_BYTES }));
}

/**
 * A buffer from `growableBuffer` at least `length` long: grown in place (by `step`, else a quarter
 * more), or copied past 4 GiB.
 */
export function ensureLength(view: Uint8Array, length: number, step?: number): Uint8Array {
  if (length <= view.length) return view;
  const size = Math.max(length, view.length + (step ?? Math.max(MIN_STEP, Math.ceil(view.length / 4))));
  if (isGrowableView(view) && size <= MAX_BYTES) {
    resizable(view).resize(size);
    return view;
  }
  const larger = new Uint8Array(size);
  larger.set(view);
  return larger;
}

/** Cuts a buffer from `growableBuffer` to `size` bytes (a database smaller than the image it came from). */
export function shrink(view: Uint8Array, size: number): Uint8Array {
  if (isGrowableView(view)) {
    resizable(view).resize(size);
    return view;
  }
  return view.subarray(0, size);
}

function isGrowableView(view: Uint8Array): boolean {
  return resizable(view).resizable === true;
}

/** The node's property holding the file's bytes (its name is minified in sql.js's build). */
function contentsKey(node: FileNode): string | undefined {
  return Object.keys(node).find((key) => ArrayBuffer.isView(node[key]) && !(node[key] instanceof DataView));
}

/** After the file system took `view` as the file's whole contents: keep the growable view itself. */
export function adopt(node: FileNode, view: Uint8Array): void {
  const key = contentsKey(node);
  if (!key || !isGrowableView(view)) return;
  node[key] = view;
  growable.set(node, { key, view });
}

/** After a write to a watched file: its first one moves the bytes into growable storage. */
export function makeGrowable(node: FileNode): void {
  if (growable.has(node)) return;
  const key = contentsKey(node);
  if (!key) return;
  const current = node[key] as Uint8Array;
  const view = growableBuffer(Math.max(MIN_STEP, Math.ceil(current.length * 1.25)));
  if (!isGrowableView(view)) return;
  // The whole array (its capacity beyond the file's end is zeros): the file's size is kept apart.
  view.set(new Uint8Array(current.buffer, current.byteOffset, current.length));
  node[key] = view;
  growable.set(node, { key, view });
}

/** Before a write that ends at `end`: grows the file's storage in place when it is too small. */
export function reserve(node: FileNode, end: number): void {
  const entry = growable.get(node);
  // The file system replaced the array (a truncate): its own growth applies from now on.
  if (!entry || node[entry.key] !== entry.view || end <= entry.view.length) return;
  const step = Math.max(MIN_STEP, Math.ceil(entry.view.length / 4));
  const size = Math.min(MAX_BYTES, Math.max(end, entry.view.length + step));
  if (size >= end) resizable(entry.view).resize(size);
}
