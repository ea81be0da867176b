import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hex8, iso } from '../../../electron/demo/format';
import { Rng, hash32, mix32, unmix32 } from '../../../electron/demo/random';

describe('demo randomness and formatting', () => {
  it('replays a stream from its seed or state, with values in range', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const values = Array.from({ length: 1000 }, () => a.next());
    expect(Array.from({ length: 1000 }, () => b.next())).toEqual(values);
    expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
    const replay = new Rng(a.state);
    expect(replay.next()).toBe(a.next());
    const rng = new Rng(7);
    for (let i = 0; i < 1000; i++) {
      const n = rng.int(3, 5);
      expect(n >= 3 && n <= 5 && Number.isInteger(n)).toBe(true);
    }
    expect(rng.subset(['a', 'b', 'c', 'd'], 2)).toHaveLength(2);
  });

  it('mixes 32-bit values bijectively and hashes beyond 32 bits', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 100_000; i++) seen.add(mix32(i ^ 0x5bd1e995));
    expect(seen.size).toBe(100_000);
    expect(hash32(1, 2)).not.toBe(hash32(2, 1));
    expect(hash32(2 ** 40)).not.toBe(hash32(0));
  });

  it('unmix32 inverts mix32 both ways (delivery ids are read back into dataset and deadline)', () => {
    const uint32 = fc.integer({ min: 0, max: 2 ** 32 - 1 });
    fc.assert(
      fc.property(uint32, (n) => unmix32(mix32(n)) === n && mix32(unmix32(n)) === n),
      { numRuns: 10_000 },
    );
    for (const edge of [0, 1, 0x7fffffff, 0x80000000, 0xffffffff]) expect(unmix32(mix32(edge))).toBe(edge);
  });

  it('formats like toISOString and hex like toString(16)', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(iso(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2000 },
    );
    expect(iso(null)).toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), (n) => {
        expect(hex8(n)).toBe(n.toString(16).padStart(8, '0'));
      }),
    );
  });
});
