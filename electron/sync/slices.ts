/**
 * Long work cut into slices of a few milliseconds with the event loop free in between, so a sync of
 * thousands of datasets never freezes the tray, the window or the local API (docs/architecture.md#performance-budgets: stalls
 * ≤ 50 ms).
 */
import type { ChunkRunner } from '../store/database';

/** Work per slice: well under the stall budget (one step — a GC, the in-memory file growing — can overshoot it), large enough that yielding costs little. */
export const SLICE_MS = 8;

/** Runs a slice after the event loop has had a turn (outside any transaction). */
export const freeSlice: ChunkRunner = async (fn) => {
  await new Promise((resolve) => setImmediate(resolve));
  return fn();
};

/** Calls `each` for every item, in slices of about SLICE_MS run by `slice`. */
export async function inSlices<T>(
  slice: ChunkRunner,
  items: readonly T[],
  each: (item: T) => void,
  signal?: AbortSignal,
): Promise<void> {
  let next = 0;
  while (next < items.length) {
    signal?.throwIfAborted();
    await slice(() => {
      const until = performance.now() + SLICE_MS;
      do each(items[next++]!);
      while (next < items.length && performance.now() < until);
    });
  }
}

/** Runs `steps` (a generator that pauses between steps) to its end, in slices of about SLICE_MS run by `slice`. */
export async function stepsInSlices<R>(slice: ChunkRunner, steps: Generator<void, R, void>): Promise<R> {
  for (;;) {
    const step = await slice(() => {
      const until = performance.now() + SLICE_MS;
      let next = steps.next();
      while (!next.done && performance.now() < until) next = steps.next();
      return next;
    });
    if (step.done) return step.value;
  }
}
