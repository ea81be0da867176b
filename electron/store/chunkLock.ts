/**
 * Who may use the store when (see `Store.transactionInChunks` and `Store.holdingWriters`):
 * - a chunked transaction (a sync commit in slices): while it is open, only its own slices may use the
 *   store; everyone else waits through `whenIdle` or `whenReadable`, since a read between two slices
 *   would see a half-written sync;
 * - a writer hold (an export in slices, docs/decisions.md "Export in slices"): while one is held, readers
 *   go on (`whenReadable`) and writers wait (`whenIdle`, a chunked transaction), so what the holder reads
 *   across many turns of the event loop is the data of one moment.
 */

/** Thrown when the store is used while a chunked transaction or an export holds it without waiting (`whenIdle`). */
export class StoreBusyError extends Error {
  constructor(holder = 'a chunked transaction (a sync commit)') {
    super(`the store is busy with ${holder}; wait with store.whenIdle()`);
    this.name = 'StoreBusyError';
  }
}

/** A write inside `whenReadable`: a bug (the caller said it only reads), refused before anything changes. */
export class StoreReadOnlyError extends Error {
  constructor() {
    super('a write inside store.whenReadable(), which is for reads only: use store.whenIdle()');
    this.name = 'StoreReadOnlyError';
  }
}

/** Runs one slice of a chunked transaction's work (see `Store.transactionInChunks`). */
export type ChunkRunner = <R>(slice: () => R) => Promise<R>;

/** Lets timers and I/O callbacks run between two slices of work (a macrotask, unlike a microtask). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A promise settled by `fire`: what waiters await until the lock's state changes. */
class Change {
  readonly promise: Promise<void>;
  readonly fire: () => void;
  constructor() {
    let fire!: () => void;
    this.promise = new Promise((resolve) => (fire = resolve));
    this.fire = fire;
  }
}

export class ChunkLock {
  /** Settles when the chunked transaction in progress ends; undefined when none is open. */
  private held: Promise<void> | undefined;
  /** True while a slice of the chunked transaction runs: only then may the store be used. */
  private inSlice = false;
  /** Writer holds (exports) in progress: writers wait for all of them. */
  private holds = 0;
  /** Writers (`whenIdle`, chunked transactions) waiting: a new hold waits for them, so none starves. */
  private writersWaiting = 0;
  /** True while a `whenReadable` callback runs: a write then is refused. */
  private readOnly = false;
  private change = new Change();

  /** Wakes every waiter, which looks again at what it waits for. */
  private changed(): void {
    const change = this.change;
    this.change = new Change();
    change.fire();
  }

  /** Nothing is held that a writer must wait for. */
  private get writable(): boolean {
    return this.held === undefined && this.holds === 0;
  }

  /** Waits for the chunked transaction and the writer holds in progress, then holds the lock; call the result to release it. */
  async acquire(): Promise<() => void> {
    if (!this.writable) {
      this.writersWaiting++;
      try {
        while (!this.writable) await this.change.promise;
      } finally {
        this.writerIn();
      }
    }
    this.checkFree();
    let release!: () => void;
    this.held = new Promise((resolve) => (release = resolve));
    return () => {
      this.held = undefined;
      release();
      this.changed();
    };
  }

  /**
   * A waiting writer's turn came. Its caller acts in this same synchronous step (so nothing can begin in
   * between); the waiters woken here look again after it.
   */
  private writerIn(): void {
    // The last writer in: a hold waiting for the writers may begin once this one has run.
    if (--this.writersWaiting === 0) this.changed();
  }

  /** A runner for the holder's slices: each runs on a later turn of the loop. */
  runner(): ChunkRunner {
    return async (fn) => {
      await nextTurn();
      this.inSlice = true;
      try {
        return fn();
      } finally {
        this.inSlice = false;
      }
    };
  }

  /**
   * Runs `fn` once neither a chunked transaction nor a writer hold is open. The check and the call happen
   * in one synchronous step, so nothing can begin in between.
   */
  async whenIdle<T>(fn: () => T): Promise<T> {
    if (!this.writable) {
      this.writersWaiting++;
      try {
        while (!this.writable) await this.change.promise;
      } finally {
        this.writerIn();
      }
    }
    return fn();
  }

  /**
   * Runs `fn`, which only reads, once no chunked transaction is open: during a writer hold too. A write
   * inside it throws `StoreReadOnlyError`.
   */
  async whenReadable<T>(fn: () => T): Promise<T> {
    while (this.held) await this.held;
    const outer = this.readOnly;
    this.readOnly = true;
    try {
      return fn();
    } finally {
      this.readOnly = outer;
    }
  }

  /**
   * Keeps writers out until the result is called: waits for a chunked transaction in progress and for the
   * writers already waiting, then holds. Readers go on meanwhile; several holds may overlap.
   */
  async holdWriters(): Promise<() => void> {
    while (this.held !== undefined || this.writersWaiting > 0) await this.change.promise;
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.changed();
    };
  }

  /** Waits until neither a chunked transaction nor a writer hold is open. */
  async idle(): Promise<void> {
    while (!this.writable) await this.change.promise;
  }

  /** A chunked transaction is open and the caller is not one of its slices. */
  get busy(): boolean {
    return this.held !== undefined && !this.inSlice;
  }

  /** For a read: throws `StoreBusyError` while a chunked transaction is open outside its slices. */
  checkFree(): void {
    if (this.busy) throw new StoreBusyError();
  }

  /** For a write: as `checkFree`, and refused inside `whenReadable` or while writers are held. */
  checkWritable(): void {
    this.checkFree();
    if (this.readOnly) throw new StoreReadOnlyError();
    if (this.holds > 0) throw new StoreBusyError('an export in progress');
  }
}
