/**
 * An import's memory does not grow with its file (docs/storage.md "Memory"): it is read a chunk at a
 * time, and what its checks across records need is kept in the database, not in JS. Each run is a
 * child process (test/helpers/import-memory.ts) reading a snapshot generated as it is read
 * (test/helpers/snapshotStream.ts), reporting its JS heap, sampled between chunks and slices.
 *
 * The heap is what is judged: sql.js holds the database in memory (outside the JS heap), so the
 * process's RSS grows with what is imported, and is only reported.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const MiB = 1024 * 1024;
/** The largest file import took before it read files as they come (`--max-size` default). */
const OLD_CAP = 256 * MiB;

/**
 * What the larger run may hold beyond the smaller: V8's code and feedback for what ran longer, a
 * chunk's records in flight, the packer's batches. Keeping every delivery of the file in a Map (the
 * checks before) added 38 MiB at the import's sizes below and 154 MiB at the million datasets; now
 * the two runs are within a MiB or two. `peakHeap` (not collected first) also moves with when V8
 * collects, hence its larger allowance.
 */
const LIVE_MARGIN = 8;
const HEAP_MARGIN = 16;

interface Figures {
  records: number;
  bytes: number;
  peakHeapMiB: number;
  peakLiveMiB: number;
  maxRssMiB: number;
  seconds: number;
}

const children = new Set<ChildProcess>();
afterEach(() => {
  // A run cut short by the test's timeout.
  for (const child of children) child.kill('SIGKILL');
  children.clear();
});

function run(args: string[]): Promise<Figures> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', 'test/helpers/import-memory.ts', ...args],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      children.delete(child);
      if (code !== 0) reject(new Error(`import-memory ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as Figures);
    });
  });
}

/** Both runs' figures, side by side (in the test's output when it fails). */
const compare = (small: Figures, large: Figures): string => JSON.stringify({ small, large });

describe('the JS heap of an import does not grow with its file', () => {
  it('an import of 310 MB (over the old cap) holds what one of 20 MB holds', async () => {
    // 10 deliveries a dataset, the tasks of one in 10 with 4,000-character messages (the bytes).
    const small = await run(['import', '2000', '10', '10', '4000']);
    const large = await run(['import', '32000', '10', '10', '4000']);
    expect(small.records).toBe(2_000);
    expect(large.records).toBe(32_000);
    expect(small.bytes).toBeGreaterThan(18 * MiB);
    expect(large.bytes).toBeGreaterThan(OLD_CAP);
    const figures = compare(small, large);
    expect(large.peakLiveMiB - small.peakLiveMiB, figures).toBeLessThanOrEqual(LIVE_MARGIN);
    expect(large.peakHeapMiB - small.peakHeapMiB, figures).toBeLessThanOrEqual(HEAP_MARGIN);
  }, 240_000);

  it('a million datasets read and checked hold what a hundred thousand hold', async () => {
    // A delivery each (~290 MB): every record cut out, parsed, checked and its datasetId noted.
    const small = await run(['read', '100000']);
    const large = await run(['read', '1000000']);
    expect(small.records).toBe(100_000);
    expect(large.records).toBe(1_000_000);
    const figures = compare(small, large);
    expect(large.peakLiveMiB - small.peakLiveMiB, figures).toBeLessThanOrEqual(LIVE_MARGIN);
    expect(large.peakHeapMiB - small.peakHeapMiB, figures).toBeLessThanOrEqual(HEAP_MARGIN);
  }, 240_000);
});
