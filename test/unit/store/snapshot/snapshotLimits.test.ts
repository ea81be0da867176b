/**
 * The limits that hold whatever a snapshot file's size (store/snapshot/snapshotLimits.ts): a record's
 * bytes, its nesting, a name's bytes, and how much of a file that is not an object is kept. Each is
 * refused at the byte that passes it, with the JSON path, and the same wherever the file is cut into
 * chunks: the reader never buffers past a limit, so a never-ending value costs the limit, not the file.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_LIMITS, type SnapshotLimits } from '../../../../electron/store/snapshot/snapshotLimits';
import { SnapshotError, SnapshotSplitter } from '../../../../electron/store/snapshot/snapshotText';

const MiB = 1024 * 1024;

/**
 * Feeds `source` (called for each chunk until it returns null) to a splitter; says how many bytes it
 * had been given when it refused, and why (or that it read the whole file).
 */
function feed(
  source: (i: number) => Buffer | null,
  limits: Partial<SnapshotLimits> = {},
): { given: number; refusal: string | null; records: number } {
  const splitter = new SnapshotSplitter(() => {}, undefined, limits);
  let given = 0;
  try {
    for (let i = 0; ; i++) {
      const chunk = source(i);
      if (chunk === null) break;
      given += chunk.length;
      splitter.push(chunk);
    }
    splitter.end();
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw error;
    return { given, refusal: error.message, records: splitter.records };
  }
  return { given, refusal: null, records: splitter.records };
}

/** `head`, then `fill` repeated in chunks of `size` for about `total` bytes. */
function endless(head: string, fill: string, size: number, total: number) {
  const first = Buffer.from(head);
  const body = Buffer.from(fill.repeat(Math.ceil(size / fill.length)).slice(0, size));
  return (i: number): Buffer | null => (i === 0 ? first : i * size > total ? null : body);
}

/** `text` cut into chunks of `size` bytes. */
const cut =
  (text: string, size: number) =>
  (i: number): Buffer | null => {
    const bytes = Buffer.from(text);
    return i * size >= bytes.length ? null : bytes.subarray(i * size, (i + 1) * size);
  };

describe('a never-ending value', () => {
  it('a string without end is refused once the record passes 64 MiB, not at the end of a 200 MiB file', () => {
    const run = feed(endless('{"datasets":[{"datasetId":"', 'x', MiB, 200 * MiB));
    expect(run.refusal).toBe(
      '$.datasets[0] (line 1, column 14): over 64 MiB of JSON text, the limit for one record',
    );
    // The chunk that passed the limit was the last one given.
    expect(run.given).toBeLessThanOrEqual(SNAPSHOT_LIMITS.recordBytes + 2 * MiB);
  });

  it('is refused at the byte that passes the limit, however the file is cut', () => {
    for (const size of [1, 7, 64, 1000, 4096]) {
      const run = feed(endless('{"datasets":[{"datasetId":"', 'ab\\"', size, 1_000_000), {
        recordBytes: 1000,
      });
      expect(run.refusal).toMatch(/^\$\.datasets\[0\] \(line 1, column 14\): over 1000 bytes of JSON text/);
      // The record starts at byte 13: it has 1000 bytes at byte 1013, and passes at the next.
      expect(run.given - size).toBeLessThan(13 + 1001);
      expect(run.given).toBeGreaterThanOrEqual(13 + 1001);
    }
  });

  it('a top-level value without end is refused at the same limit, as one value', () => {
    const run = feed(endless('{"tasks":"', 'x', 4096, 1_000_000), { recordBytes: 10_000 });
    expect(run.refusal).toBe(
      '$.tasks (line 1, column 10): over 10000 bytes of JSON text, the limit for one value',
    );
    expect(run.given).toBeLessThan(20_000);
  });
});

describe('a record over the size limit', () => {
  const record = (n: number): string => JSON.stringify({ datasetId: 'x'.repeat(n - 16) });
  it('a record of exactly the limit is read, one byte more is refused, on its own line or not', () => {
    expect(record(1000)).toHaveLength(1000);
    for (const [layout, join] of [
      ['a line each (as export writes)', '\n'],
      ['one line', ''],
    ]) {
      for (const size of [64, 999, 4096]) {
        const at = (n: number): string =>
          `{"datasets":[${join}${record(100)},${join}${record(n)},${join}${record(100)}${join}]}`;
        const fits = feed(cut(at(1000), size), { recordBytes: 1000 });
        expect(fits.refusal, `${layout}, chunks of ${size}`).toBeNull();
        expect(fits.records).toBe(3);
        const over = feed(cut(at(1001), size), { recordBytes: 1000 });
        expect(over.refusal, `${layout}, chunks of ${size}`).toMatch(
          /^\$\.datasets\[1\] \(line \d, column \d+\): over 1000 bytes of JSON text, the limit for one record$/,
        );
        expect(over.records).toBe(1);
      }
    }
  });

  it('the same in tasks and timeline records, named by their key', () => {
    const big = JSON.stringify({ ingest: { tasks: [{ taskId: 't', message: 'm'.repeat(2000) }] } });
    expect(feed(cut(`{"datasets":[],"tasks":{"d1":${big}}}`, 512), { recordBytes: 1000 }).refusal).toMatch(
      /^\$\.tasks\["d1"\] \(line 1, column 30\): over 1000 bytes of JSON text/,
    );
    expect(
      feed(cut(`{"datasets":[],"timeline":{"a":[${big}]}}`, 512), { recordBytes: 1000 }).refusal,
    ).toMatch(/^\$\.timeline\["a"\] \(line 1, column 32\): over 1000 bytes/);
  });
});

describe('absurd nesting', () => {
  it('is refused at depth 65, at the byte, not at the end of the file', () => {
    const run = feed(endless('{"datasets":[', '[', 4096, 100 * MiB));
    expect(run.refusal).toBe(
      '$.datasets[0] (line 1, column 78): nested deeper than 64 levels, the limit for one record',
    );
    expect(run.given).toBeLessThanOrEqual(13 + 4096);
  });

  it('a record of 64 levels is read; nesting in a member value is refused the same way', () => {
    const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    expect(feed(cut(`{"datasets":[\n{"a":${deep(63)}}\n]}`, 10)).refusal).toBeNull();
    expect(feed(cut(`{"datasets":[{"a":${deep(64)}}]}`, 10)).refusal).toMatch(
      /^\$\.datasets\[0\] \(line 1, column 82\): nested deeper than 64 levels/,
    );
    expect(feed(cut(`{"datasets":[],"tasks":${deep(100)}}`, 10), { depth: 8 }).refusal).toBe(
      '$.tasks (line 1, column 32): nested deeper than 8 levels, the limit for one value',
    );
  });

  it('brackets inside strings are not nesting', () => {
    const text = `{"datasets":[{"a":"${'['.repeat(1000)}"}]}`;
    expect(feed(cut(text, 100), { depth: 2 }).refusal).toBeNull();
  });
});

describe('a name without end', () => {
  it('a tasks key past 4 KiB is refused there, quoted by its start', () => {
    const run = feed(endless('{"datasets":[],"tasks":{"', 'k', 1024, 50 * MiB));
    expect(run.refusal).toBe(
      `$.tasks["${'k'.repeat(64)}…"]: a deliveryId of more than 4 KiB, over the limit of 256 characters`,
    );
    expect(run.given).toBeLessThanOrEqual(25 + 4096 + 1024);
  });

  it('a timeline key says datasetId; a key cut inside an escape is still quoted', () => {
    // Chunks of whole escapes; the limit falls inside one.
    const run = feed(endless('{"datasets":[],"timeline":{"', '\\u00e9', 102, MiB), { nameBytes: 1000 });
    expect(run.refusal).toBe(
      `$.timeline["${'é'.repeat(64)}…"]: a datasetId of more than 1000 bytes, over the limit of 256 characters`,
    );
  });

  it('a member name past the limit is an unknown field, as before the limit', () => {
    const run = feed(endless('{"datasets":[],"', 'x', MiB, 50 * MiB));
    expect(run.refusal).toBe(
      `$["${'x'.repeat(64)}…"]: unknown field '${'x'.repeat(64)}…' (allowed: datasets, tasks, timeline, acknowledgements, syncOutages, incidents)`,
    );
    expect(run.given).toBeLessThanOrEqual(16 + MiB);
  });

  it('a key of 256 characters, each escaped, is read', () => {
    const key = '\\u0041'.repeat(256);
    const run = feed(cut(`{"datasets":[],"tasks":{"${key}":{}}}`, 100));
    expect(run.refusal).toBeNull();
    expect(run.records).toBe(1);
  });
});

describe('a file that is not an object', () => {
  it('a large one is refused by what it starts with, 4 KiB in, not read whole', () => {
    const run = feed(endless('  [{"datasetId":"a"},', '{"datasetId":"b"},', MiB, 100 * MiB));
    expect(run.refusal).toBe(
      `$: expected an object with "datasets" (and optionally "tasks"), but the file starts with '[{"datasetId":"a"},{"dat…'`,
    );
    expect(run.given).toBeLessThanOrEqual(MiB + 22);
  });

  it('a small one is named as before (what JSON.parse makes of it)', () => {
    const told = (text: string, size: number): string | null => feed(cut(text, size)).refusal;
    for (const size of [1, 3, 4096]) {
      expect(told('[]', size)).toBe(
        '$: expected an object with "datasets" (and optionally "tasks"), got an array',
      );
      expect(told(` "${'s'.repeat(4000)}" `, size)).toMatch(/got a string$/);
      expect(told('nul', size)).toMatch(/^not valid JSON: /);
    }
    expect(told(`"${'s'.repeat(5000)}"`, 100)).toMatch(/but the file starts with '"s{23}…'$/);
    // A terminal escape and backslashes, shown escaped: the refusal is one plain line.
    expect(told(`[${'"\u001b[2J\\\\",'.repeat(1000)}]`, 100)).toContain(
      String.raw`but the file starts with '["\u001b[2J\\\\","\u001b[2J\\\\","\u001b[2J…'`,
    );
  });
});

describe('the limits do not change what is read', () => {
  it('a file whose records fit is read the same wherever it is cut; one with a record over is refused the same way', () => {
    const record = fc.record({
      datasetId: fc.string({ maxLength: 40 }),
      n: fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(
        fc.array(record, { maxLength: 5 }),
        fc.array(fc.nat(400), { maxLength: 5 }),
        fc.integer({ min: 50, max: 400 }),
        (datasets, cuts, recordBytes) => {
          const text = `{"datasets":[${datasets.map((d) => `\n${JSON.stringify(d)}`).join(',')}\n]}`;
          const limits = { recordBytes };
          const whole = feed((i) => (i === 0 ? Buffer.from(text) : null), limits);
          const bytes = Buffer.from(text);
          const edges = [...new Set([0, ...cuts.filter((c) => c < bytes.length), bytes.length])].sort(
            (a, b) => a - b,
          );
          const pieces = edges.slice(1).map((end, i) => bytes.subarray(edges[i], end));
          const inPieces = feed((i) => pieces[i] ?? null, limits);
          expect(inPieces.refusal).toBe(whole.refusal);
          expect(inPieces.records).toBe(whole.records);
        },
      ),
      { numRuns: 2_000, seed: 25 },
    );
  });
});
