/**
 * Work in slices (electron/sync/slices.ts): a generator's steps run to its end with the event loop free
 * between slices of about SLICE_MS, and its result returned.
 */
import { describe, expect, it } from 'vitest';
import type { ChunkRunner } from '../../../electron/store/database';
import { SLICE_MS, freeSlice, stepsInSlices } from '../../../electron/sync/slices';

/** A step that takes `ms` of busy time. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('stepsInSlices', () => {
  it('runs every step in order, several to a slice, and returns the result', async () => {
    const ran: number[] = [];
    let slices = 0;
    const counting: ChunkRunner = (fn) => {
      slices += 1;
      return freeSlice(fn);
    };
    function* steps(): Generator<void, string, void> {
      for (let i = 0; i < 40; i += 1) {
        ran.push(i);
        busy(SLICE_MS / 4);
        yield;
      }
      return 'grouped';
    }
    await expect(stepsInSlices(counting, steps())).resolves.toBe('grouped');
    expect(ran).toEqual([...Array(40).keys()]);
    // 40 steps of a quarter slice each: about ten slices, never one per step nor all in one.
    expect(slices).toBeGreaterThan(5);
    expect(slices).toBeLessThan(40);
  });

  it('lets timers run between slices', async () => {
    let ticks = 0;
    const timer = setInterval(() => (ticks += 1), 0);
    function* steps(): Generator<void, void, void> {
      for (let i = 0; i < 20; i += 1) {
        busy(SLICE_MS);
        yield;
      }
    }
    await stepsInSlices(freeSlice, steps());
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(3);
  });

  it('a step that throws rejects with its error', async () => {
    function* steps(): Generator<void, void, void> {
      yield;
      throw new Error('the disk refused');
    }
    await expect(stepsInSlices(freeSlice, steps())).rejects.toThrow('the disk refused');
  });
});
