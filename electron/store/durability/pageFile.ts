/**
 * The database file of a data directory, kept on disk instead of in memory (docs/storage.md "Memory").
 *
 * sql.js keeps a database in one in-memory file: at 100k datasets that alone is 0.9 GB resident. Here
 * the file SQLite reads and writes is two files on disk instead: the **base**, the image the database
 * was opened from (or the last checkpoint wrote), which is only ever read; and a **scratch** file that
 * holds every page written since, one slot per page. A read takes each page from its slot, else from
 * the base; the operating system's page cache, not the process, keeps the hot ones in memory.
 *
 * Durability does not depend on the scratch file: the journal records every commit and the checkpoint
 * writes new images, exactly as before; a killed process leaves only an unlinked scratch file. After a
 * checkpoint the new image becomes the base and the slots of pages it holds are freed (`rebase`).
 *
 * All calls are synchronous: SQLite's reads and writes are. A page read the OS has cached costs a few
 * microseconds; SQLite's own page cache keeps the hottest pages from even that.
 *
 * The first pages written since the last checkpoint are kept in memory instead (up to `memoryBytes`,
 * by default an eighth of the image, 32–128 MiB), only later ones in the scratch file: a poll's few
 * hundred changed pages then cost no disk write beyond the journal's, as when the database was held in
 * memory, and a checkpoint frees them (docs/storage.md "Memory").
 */
import {
  close,
  closeSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  rm,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { tempFile } from './files';

/** An image a page file reads pages from: an open file descriptor and the bytes of it that count. */
export interface BaseImage {
  fd: number;
  size: number;
}

/** Pages written since the last checkpoint kept in memory by default, before the scratch file takes them. */
export const MEMORY_BYTES = 32 * 1024 * 1024;
/** The most kept in memory by default, for an image of 1 GiB or more. */
export const MAX_MEMORY_BYTES = 128 * 1024 * 1024;

/**
 * Memory for the pages written since the last checkpoint, by default: an eighth of the image, between
 * MEMORY_BYTES and MAX_MEMORY_BYTES. A poll at 100k datasets changes ~5 MiB of pages (the sort indexes
 * are many): with 32 MiB, the scratch file took them from the sixth poll after a checkpoint on, 3 MiB
 * of disk writes a poll against a journal of 0.6 MiB.
 */
export const memoryBytesFor = (imageBytes: number): number =>
  Math.min(MAX_MEMORY_BYTES, Math.max(MEMORY_BYTES, Math.floor(imageBytes / 8)));
/** Memory pages are allocated this many at a time. */
const MEMORY_CHUNK_PAGES = 256;

export class PageFile {
  /** The file's size as SQLite sees it. */
  size: number;
  /**
   * For each page (0-based): its scratch slot + 1 (> 0), or −(its memory slot + 1) (< 0); 0 when the
   * base (or nothing: zeros) holds it.
   */
  private slots = new Int32Array(0);
  /** For each page in a slot, the epoch of its last write (see `markSnapshot`). */
  private writtenIn = new Uint32Array(0);
  private epoch = 1;
  /** The smallest size since the last mark: pages past it were cut off, whatever the image holds. */
  private smallestSinceMark: number;
  private readonly freeSlots: number[] = [];
  /** Slots handed out so far (the scratch file's length in pages). */
  private slotCount = 0;
  /** Base bytes at or past this read as zeros: the file was cut shorter since it was opened. */
  private baseEnd: number;
  private closed = false;
  /** Memory slots: chunks of MEMORY_CHUNK_PAGES pages, made as needed, dropped when none is in use. */
  private memory: Uint8Array[] = [];
  private readonly freeMemory: number[] = [];
  private memoryCount = 0;
  private memoryCapacity: number;

  private constructor(
    private readonly dataDir: string,
    readonly pageSize: number,
    private base: BaseImage | null,
    private scratch: number,
    /** The scratch file's name while it still has one (Windows, or an unlink that failed). */
    private scratchName: string | null,
    /** null: `memoryBytesFor` the image, again at each rebase. */
    private readonly memoryBytes: number | null,
  ) {
    this.size = base?.size ?? 0;
    this.memoryCapacity = Math.floor((memoryBytes ?? memoryBytesFor(this.size)) / pageSize);
    this.baseEnd = this.size;
    this.smallestSinceMark = this.size;
  }

  /**
   * A page file over `base` (taken over: closed with the page file), its scratch file made in
   * `dataDir` (removed at once where the platform allows, else at close or by the next start).
   */
  static create(
    dataDir: string,
    pageSize: number,
    base: BaseImage | null,
    memoryBytes: number | null = null,
  ): PageFile {
    if (!Number.isInteger(pageSize) || pageSize < 512 || (pageSize & (pageSize - 1)) !== 0)
      throw new Error(`a page file needs a power-of-two page size, not ${pageSize}`);
    const { fd, name } = newScratch(dataDir);
    return new PageFile(dataDir, pageSize, base, fd, name, memoryBytes);
  }

  /** Opens `file` read-only as a base image of its current size. */
  static openBase(file: string): BaseImage {
    const fd = openSync(file, 'r');
    return { fd, size: fstatSync(fd).size };
  }

  /** Copies up to `length` bytes from `position` into `into` at `at`; returns how many (0 past the end). */
  read(into: Uint8Array, at: number, length: number, position: number): number {
    if (position >= this.size) return 0;
    const total = Math.min(length, this.size - position);
    const { pageSize } = this;
    let done = 0;
    while (done < total) {
      const from = position + done;
      const page = Math.floor(from / pageSize);
      const slot = this.slotOf(page);
      let run = Math.min(pageSize - (from % pageSize), total - done);
      if (slot < 0) {
        const { chunk, offset } = this.inMemory(slot);
        into.set(chunk.subarray(offset + (from % pageSize), offset + (from % pageSize) + run), at + done);
      } else if (slot !== 0) {
        // Following pages in the following slots: one read (a first sync writes pages in order).
        let next = page + 1;
        while (done + run < total && this.slotOf(next) === slot + (next - page)) {
          run = Math.min(run + pageSize, total - done);
          next += 1;
        }
        readFully(this.scratch, into, at + done, run, (slot - 1) * pageSize + (from % pageSize));
      } else {
        let next = page + 1;
        while (done + run < total && this.slotOf(next) === 0) {
          run = Math.min(run + pageSize, total - done);
          next += 1;
        }
        const fromBase = this.base ? Math.max(0, Math.min(run, this.baseEnd - from)) : 0;
        if (fromBase > 0) readFully(this.base!.fd, into, at + done, fromBase, from);
        into.fill(0, at + done + fromBase, at + done + run);
      }
      done += run;
    }
    return total;
  }

  /** Writes `length` bytes of `from` (at `at`) to the file at `position`. */
  write(from: Uint8Array, at: number, length: number, position: number): void {
    const { pageSize } = this;
    let done = 0;
    while (done < length) {
      const offset = position + done;
      const page = Math.floor(offset / pageSize);
      const inPage = offset % pageSize;
      const run = Math.min(pageSize - inPage, length - done);
      let slot = this.slotOf(page);
      if (slot === 0) {
        // Part of a page (SQLite writes whole pages; kept correct for anything else): its other bytes first.
        const whole = run < pageSize ? new Uint8Array(pageSize) : null;
        if (whole) this.read(whole, 0, pageSize, page * pageSize);
        slot = this.newSlot();
        this.setSlot(page, slot);
        if (whole) this.put(slot, whole, 0, pageSize, 0);
      }
      this.put(slot, from, at + done, run, inPage);
      this.writtenIn[page] = this.epoch;
      done += run;
    }
    this.size = Math.max(this.size, position + length);
  }

  /** Sets the file's size: bytes past it are gone, and read as zeros should the file grow again. */
  truncate(size: number): void {
    const { pageSize } = this;
    if (size < this.size) {
      const firstGone = Math.ceil(size / pageSize);
      for (let page = firstGone; page < this.slots.length; page++) this.freeSlot(page);
      const cut = size % pageSize;
      if (cut !== 0) {
        // The page cut in two: its tail must read as zeros if the file grows again.
        const tail = new Uint8Array(pageSize - cut);
        this.write(tail, 0, tail.length, size);
      }
      this.baseEnd = Math.min(this.baseEnd, size);
      this.smallestSinceMark = Math.min(this.smallestSinceMark, size);
    }
    this.size = size;
  }

  /**
   * A checkpoint's moment: pages written from now on are newer than the image it writes. Returns the
   * mark `rebase` takes once that image is in place.
   */
  markSnapshot(): number {
    this.epoch += 1;
    this.smallestSinceMark = this.size;
    return this.epoch;
  }

  /**
   * The image a checkpoint wrote as of `mark` becomes the base: pages not written since are in it, so
   * their slots are freed; the scratch file is emptied when no slot is left in use.
   */
  rebase(image: BaseImage, mark: number): void {
    const old = this.base;
    this.base = image;
    if (this.memoryBytes === null)
      this.memoryCapacity = Math.floor(memoryBytesFor(image.size) / this.pageSize);
    this.baseEnd = Math.min(image.size, this.smallestSinceMark);
    for (let page = 0; page < this.slots.length; page++)
      if (this.slots[page] !== 0 && this.writtenIn[page]! < mark) this.freeSlot(page);
    if (this.freeSlots.length === this.slotCount && this.slotCount > 0) {
      // A new scratch file, the old one let go on the thread pool: after a first sync it holds most
      // of the database, and emptying it (or closing it) frees its blocks in the call, 150 ms at
      // 100k datasets on the event loop. Where no new file can be made, the old one is emptied.
      let fresh: { fd: number; name: string | null } | null = null;
      try {
        fresh = newScratch(this.dataDir);
      } catch {
        ftruncateSync(this.scratch, 0);
      }
      if (fresh) {
        letGo(this.scratch, this.scratchName);
        this.scratch = fresh.fd;
        this.scratchName = fresh.name;
      }
      this.freeSlots.length = 0;
      this.slotCount = 0;
    }
    if (this.freeMemory.length === this.memoryCount) {
      this.freeMemory.length = 0;
      this.memoryCount = 0;
      this.memory = [];
    }
    // The old image may be unlinked by now (a backup replaced): its last close frees it, likewise.
    if (old) letGo(old.fd, null);
  }

  /** Pages held in the scratch file (for tests and the benchmark). */
  get scratchPages(): number {
    return this.slotCount - this.freeSlots.length;
  }

  /** Pages held in memory (for tests and the benchmark). */
  get memoryPages(): number {
    return this.memoryCount - this.freeMemory.length;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.scratch);
    if (this.base) closeSync(this.base.fd);
    if (this.scratchName !== null) rmSync(this.scratchName, { force: true });
    this.scratchName = null;
  }

  private slotOf(page: number): number {
    return page < this.slots.length ? this.slots[page]! : 0;
  }

  private setSlot(page: number, slot: number): void {
    if (page >= this.slots.length) {
      const length = Math.max(page + 1, this.slots.length * 2, 1024);
      const slots = new Int32Array(length);
      slots.set(this.slots);
      const writtenIn = new Uint32Array(length);
      writtenIn.set(this.writtenIn);
      this.slots = slots;
      this.writtenIn = writtenIn;
    }
    this.slots[page] = slot;
  }

  private freeSlot(page: number): void {
    const slot = this.slots[page]!;
    if (slot === 0) return;
    this.slots[page] = 0;
    if (slot < 0) this.freeMemory.push(slot);
    else this.freeSlots.push(slot);
  }

  /** A place for a page not held yet: in memory while there is room, else in the scratch file. */
  private newSlot(): number {
    const free = this.freeMemory.pop();
    if (free !== undefined) return free;
    if (this.memoryCount < this.memoryCapacity) {
      const m = this.memoryCount++;
      if (m % MEMORY_CHUNK_PAGES === 0) this.memory.push(new Uint8Array(MEMORY_CHUNK_PAGES * this.pageSize));
      return -(m + 1);
    }
    return this.freeSlots.pop() ?? ++this.slotCount;
  }

  private inMemory(slot: number): { chunk: Uint8Array; offset: number } {
    const m = -slot - 1;
    return {
      chunk: this.memory[Math.floor(m / MEMORY_CHUNK_PAGES)]!,
      offset: (m % MEMORY_CHUNK_PAGES) * this.pageSize,
    };
  }

  /** Writes `length` bytes of `from` (at `at`) into `slot`'s page at `inPage`. */
  private put(slot: number, from: Uint8Array, at: number, length: number, inPage: number): void {
    if (slot < 0) {
      const { chunk, offset } = this.inMemory(slot);
      chunk.set(from.subarray(at, at + length), offset + inPage);
    } else writeFully(this.scratch, from, at, length, (slot - 1) * this.pageSize + inPage);
  }
}

/** Reads `length` bytes at `position`; a short file leaves zeros (never bytes of an earlier read). */
function readFully(fd: number, into: Uint8Array, at: number, length: number, position: number): void {
  let done = 0;
  while (done < length) {
    const got = readSync(fd, into, at + done, length - done, position + done);
    if (got === 0) break;
    done += got;
  }
  if (done < length) into.fill(0, at + done, at + length);
}

function writeFully(fd: number, from: Uint8Array, at: number, length: number, position: number): void {
  let done = 0;
  while (done < length) done += writeSync(fd, from, at + done, length - done, position + done);
}

/**
 * A new scratch file in `dataDir`: unlinked at once where the platform allows (its `name` null), else
 * removed at close or by the next start.
 */
function newScratch(dataDir: string): { fd: number; name: string | null } {
  const name = tempFile(dataDir);
  const fd = openSync(name, 'wx+', 0o600);
  if (process.platform === 'win32') return { fd, name };
  try {
    unlinkSync(name);
    return { fd, name: null };
  } catch {
    // Removed at close instead.
    return { fd, name };
  }
}

/** Closes `fd` (and removes `name`) on the thread pool; a failure only leaves a temp file for the next start. */
function letGo(fd: number, name: string | null): void {
  close(fd, () => {
    if (name !== null) rm(name, { force: true }, () => {});
  });
}
