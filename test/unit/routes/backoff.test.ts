/** The wait before a route is tried again: doubling from the first, jittered by the injected random, capped. */
import { describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../../electron/routes/backoff';

describe('retryDelayMs', () => {
  const policy = { maxAttempts: 6, firstDelayMs: 30_000, maxDelayMs: 15 * 60_000 };
  it.each([
    [1, 0.5, 30_000],
    [2, 0.5, 60_000],
    [3, 0, 60_000],
    [3, 0.999, 179_880],
    [5, 0.5, 480_000],
    [9, 0.5, 900_000],
    [9, 0.999, 900_000],
  ])('after %i attempts, random %f: %i ms', (attempts, random, delay) => {
    expect(retryDelayMs(attempts, policy, () => random)).toBe(delay);
  });
});
