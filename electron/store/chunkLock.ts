/**
 * The lock a chunked transaction holds (see `Store.transactionInChunks`): while it is open, only its
 * own slices may use the store; everyone else waits through `whenIdle`, since a read between two
 * slices would see a half-written sync.
 */

/** Thrown when the store is used while a chunked transaction holds it without waiting (`whenIdle`). */
export class StoreBusyError extends Error {
  constructor() {
    super('the store is busy with a chunked transaction (a sync commit); wait with store.whenIdle()');
    this.name = 'StoreBusyError';
  }
}

/** Runs one slice of a chunked transaction's work (see `Store.transactionInChunks`). */
export type ChunkRunner = <R>(slice: () => R) => Promise<R>;

/** Lets timers and I/O callbacks run between two slices of work (a macrotask, unlike a microtask). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class ChunkLock {
  /** Settles when the chunked transaction in progress ends; undefined when none is open. */
  private held: Promise<void> | undefined;
  /** True while a slice of the chunked transaction runs: only then may the store be used. */
  private inSlice = false;

  /** Waits for the chunked transaction in progress, then holds the lock; call the result to release it. */
  async acquire(): Promise<() => void> {
    while (this.held) await this.held;
    this.checkFree();
    let release!: () => void;
    this.held = new Promise((resolve) => (release = resolve));
    return () => {
      this.held = undefined;
      release();
    };
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
   * Runs `fn` once no chunked transaction is open. The check and the call happen in one synchronous
   * step, so nothing can begin in between.
   */
  async whenIdle<T>(fn: () => T): Promise<T> {
    while (this.held) await this.held;
    return fn();
  }

  /** Waits until no chunked transaction is open. */
  async idle(): Promise<void> {
    while (this.held) await this.held;
  }

  /** A chunked transaction is open and the caller is not one of its slices. */
  get busy(): boolean {
    return this.held !== undefined && !this.inSlice;
  }

  checkFree(): void {
    if (this.busy) throw new StoreBusyError();
  }
}
