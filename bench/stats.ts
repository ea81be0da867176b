/** Timing helpers for the benchmarks: repeated measurements and their percentiles, in milliseconds. */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface Summary {
  n: number;
  p50: number;
  p99: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of already sorted samples (p in 0–100). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
}

/** Warm-up goes on for at least this long: V8 first runs WebAssembly (sql.js) unoptimized, then tiers up. */
const MIN_WARMUP_MS = 300;

/**
 * Calls `fn(i)` untimed at least `warmup` times and for at least MIN_WARMUP_MS, then `iterations` times
 * timed; returns the timings in ms. `i` counts on across warm-up and timed calls, so a caller can cycle
 * through its inputs.
 */
export function timeSync(iterations: number, warmup: number, fn: (i: number) => void): number[] {
  const warmupStarted = performance.now();
  let i = 0;
  while (i < warmup || performance.now() - warmupStarted < MIN_WARMUP_MS) fn(i++);
  const samples: number[] = [];
  for (let n = 0; n < iterations; n++) {
    const start = performance.now();
    fn(i++);
    samples.push(performance.now() - start);
  }
  return samples;
}

/** Up to `count` items spread evenly over `items` (all of them when there are fewer). */
export function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]!);
}

export interface Timed<T> {
  result: T;
  ms: number;
  /** Longest event-loop stall while it ran (perf_hooks.monitorEventLoopDelay, 5 ms resolution). */
  stallMs: number;
}

/** Runs `work`, timing it and watching the event loop meanwhile. */
export async function timed<T>(work: () => Promise<T>): Promise<Timed<T>> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  // The monitor's timer starts on the next turn of the loop: a block before that would go unseen.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const started = performance.now();
  try {
    const result = await work();
    return { result, ms: performance.now() - started, stallMs: loop.max / 1e6 };
  } finally {
    loop.disable();
  }
}
