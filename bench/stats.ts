/** Timing helpers for the benchmarks: repeated measurements and their percentiles, in milliseconds. */

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
