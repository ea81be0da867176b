/**
 * Which keys were maybe seen before, in a fixed 1 MiB however many there are (a Bloom filter): "no" is
 * certain, "maybe" is looked up where the keys are kept (fileLedger.ts, in the database). At 200k keys
 * (the tasks of a 100k org) about one key in 10,000 is a "maybe" never seen; at 2M, one in 200.
 */
const BITS = 1 << 23;
const HASHES = 3;

/** A 32-bit hash of a string's UTF-16 units (murmur-style mixing), seeded. */
function hash(key: string, seed: number): number {
  let h = seed ^ key.length;
  for (let i = 0; i < key.length; i++) {
    h = Math.imul(h ^ key.charCodeAt(i), 0x5bd1e995);
    h ^= h >>> 15;
  }
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class KeyFilter {
  private bits: Uint32Array | null = null;

  /** Notes `key` (of keyspace `space`); false when it surely was not noted before. */
  add(space: number, key: string): boolean {
    const bits = (this.bits ??= new Uint32Array(BITS / 32));
    const a = hash(key, 0x9e3779b9 ^ space);
    // Odd, so the probes of one key are distinct (double hashing).
    const b = hash(key, 0x85ebca6b ^ space) | 1;
    let seen = true;
    for (let i = 0; i < HASHES; i++) {
      const bit = (a + i * b) & (BITS - 1);
      const word = bit >>> 5;
      const mask = 1 << (bit & 31);
      if ((bits[word]! & mask) === 0) {
        seen = false;
        bits[word] = bits[word]! | mask;
      }
    }
    return seen;
  }
}
