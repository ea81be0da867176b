/**
 * Seeded randomness for demo data: a small, fast PRNG (mulberry32) plus integer hashing used to
 * derive independent, reproducible streams (one per dataset, one per delivery attempt) and
 * collision-free identifiers. Nothing here reads the clock or Math.random.
 */

/** murmur3's 32-bit finalizer: a bijection on 32-bit integers with good avalanche. */
export function mix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * The inverse of `mix32`: each step of the finalizer is undone in reverse order (xor-shifts by
 * re-applying them, multiplications by the odd constants' inverses mod 2^32). It lets the remote
 * simulator read a dataset and a deadline back out of a delivery id instead of keeping an index.
 */
export function unmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7ed1b41d); // 0xc2b2ae35⁻¹
  h ^= (h >>> 13) ^ (h >>> 26);
  h = Math.imul(h, 0xa5cb9243); // 0x85ebca6b⁻¹
  h ^= h >>> 16;
  return h >>> 0;
}

function mixIn(h: number, value: number): number {
  h = mix32((h ^ mix32(value >>> 0)) + 0x7f4a7c15);
  // Values beyond 32 bits (such as epoch milliseconds) also mix in their high part.
  const high = Math.floor(value / 0x1_0000_0000);
  return high === 0 ? h : mix32(h ^ mix32(high >>> 0));
}

/** Combines up to four numbers into one 32-bit hash (order matters). Fixed arity: no allocation. */
export function hash32(a: number, b = 0, c = 0, d = 0): number {
  return mixIn(mixIn(mixIn(mixIn(0x9e3779b9, a), b), c), d) >>> 0;
}

/** A uniform number in [0, 1) from a hash of up to four numbers. */
export function unitHash(a: number, b = 0, c = 0, d = 0): number {
  return hash32(a, b, c, d) / 4294967296;
}

/** FNV-1a hash of a string, for folding names (such as an org id) into seeds. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A deterministic random stream (mulberry32). */
export class Rng {
  private current: number;

  constructor(seed: number) {
    this.current = seed >>> 0;
  }

  /** The current state: `new Rng(rng.state)` replays the stream from here. */
  get state(): number {
    return this.current;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.current = (this.current + 0x6d2b79f5) >>> 0;
    let t = this.current;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform in [min, max). */
  range(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks by weight; weights need not sum to 1. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, weight] of items) total += weight;
    let roll = this.next() * total;
    for (const [item, weight] of items) {
      roll -= weight;
      if (roll < 0) return item;
    }
    const last = items[items.length - 1];
    if (last === undefined) throw new RangeError('weighted pick from an empty list');
    return last[0];
  }

  /** `count` distinct items in their original order. */
  subset<T>(items: readonly T[], count: number): T[] {
    const chosen = new Set<number>();
    const wanted = Math.min(count, items.length);
    while (chosen.size < wanted) chosen.add(Math.floor(this.next() * items.length));
    return items.filter((_, index) => chosen.has(index));
  }
}
