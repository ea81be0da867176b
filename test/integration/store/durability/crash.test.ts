/**
 * The promise of docs/storage.md: "a kill at any instant never loses a committed change older than the debounce window,
 * and never leaves an unreadable database". A child process commits numbered rows to a store of a few
 * MB; we SIGKILL it at a seeded random moment, reopen the folder and check what survived. Half the runs
 * checkpoint every few commits, so kills land while journal records are appended, while an image is
 * written (a temp file is left), and between the image's rename and the removal of folded journals.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '../../../../electron/store/database';

const DEBOUNCE_MS = 50;
/** How long a write may take once its debounce window is over, on a loaded 2-core CI machine. */
const WRITE_MARGIN_MS = 1_500;
const ITERATIONS = 32;
/** A checkpoint each time the journal passes this: one every few commits, nearly back to back. */
const CHECKPOINT_BYTES = 64 * 1024;
const SEED = 0x5eed_2026;

const REPO = fileURLToPath(new URL('../../../..', import.meta.url));
const WRITER = fileURLToPath(new URL('../../../helpers/crash-writer.ts', import.meta.url));

let root: string;
const children = new Set<ChildProcess>();

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dh-crash-'));
});

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  rmSync(root, { recursive: true, force: true });
});

/** Small seeded PRNG (mulberry32): the same kill moments on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Run {
  /** Commit times reported by the child, in row order: row n committed at `commits[n - 1]`. */
  commits: number[];
  killedAt: number;
}

/** Starts the writer on `dir`, SIGKILLs it `killAfterMs` after it is ready, and collects what it said. */
async function runAndKill(dir: string, killAfterMs: number, checkpoints: boolean): Promise<Run> {
  const args = [WRITER, dir, String(DEBOUNCE_MS), ...(checkpoints ? [String(CHECKPOINT_BYTES)] : [])];
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout });
  const allLinesRead = new Promise((resolve) => lines.once('close', resolve));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.once('close', (code, signal) => resolve(signal ?? code)),
  );

  const commits: number[] = [];
  let protocolError: string | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    lines.on('line', (line) => {
      const [word, first, second] = line.split(' ');
      if (word === 'ready') resolve();
      else if (word === 'committed' && Number(first) === commits.length + 1) commits.push(Number(second));
      else protocolError ??= `unexpected line from the writer: ${line}`;
    });
    void exited.then((status) =>
      reject(new Error(`the writer exited before it was ready (${status}): ${stderr}`)),
    );
  });

  await ready;
  await new Promise((resolve) => setTimeout(resolve, killAfterMs));
  const killedAt = Date.now();
  child.kill('SIGKILL');
  const status = await exited;
  await allLinesRead;
  children.delete(child);

  expect(status, `the writer died on its own: ${stderr}`).toBe('SIGKILL');
  expect(protocolError).toBeUndefined();
  expect(stderr).toBe('');
  return { commits, killedAt };
}

/** Kills the writer once at a seeded moment on `dir`, reopens the folder and checks it; returns a summary. */
async function killAndCheck(
  dir: string,
  killAfterMs: number,
  long: boolean,
  checkpoints: boolean,
): Promise<{ required: number; line: string; midImage: boolean }> {
  const { commits, killedAt } = await runAndKill(dir, killAfterMs, checkpoints);
  // A checkpoint's temp file: the kill came while an image was being written.
  const midImage = readdirSync(dir).some((name) => name.startsWith('health.sqlite.tmp-'));

  const warnings: string[] = [];
  const store = await Store.open({
    dataDir: dir,
    log: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
  });
  try {
    const context = `${dir}, killed ${killAfterMs} ms after ready`;
    expect(store.value('PRAGMA quick_check'), context).toBe('ok');
    // Atomic replacement means the main file itself is always whole: no recovery needed.
    expect(warnings, context).toEqual([]);

    const rows = store.column<number>('SELECT n FROM crash_log ORDER BY n');
    const kept = rows.length;
    expect(rows, `${context}: rows are a prefix 1..k`).toEqual(Array.from({ length: kept }, (_, i) => i + 1));
    expect(kept, `${context}: no row the writer had not reported`).toBeLessThanOrEqual(commits.length);
    const required = commits.filter((at) => at < killedAt - DEBOUNCE_MS - WRITE_MARGIN_MS).length;
    expect(
      kept,
      `${context}: rows committed over ${DEBOUNCE_MS + WRITE_MARGIN_MS} ms before the kill`,
    ).toBeGreaterThanOrEqual(required);
    if (long) expect(required, `${context}: the run was long enough to test durability`).toBeGreaterThan(0);
    if (kept > 0) {
      const payload = store.value<string>('SELECT payload FROM crash_log WHERE n = ?', [kept]);
      expect(payload?.startsWith(`${kept}:`), context).toBe(true);
    }
    const mode = checkpoints ? `checkpointing${midImage ? ', killed mid-image' : ''}` : 'journal only';
    return {
      required,
      midImage,
      line: `${killAfterMs} ms (${mode}): ${kept}/${commits.length} rows kept, ${required} required`,
    };
  } finally {
    await store.close();
  }
}

it(`a kill at any moment keeps every commit older than the debounce window and a readable file (${ITERATIONS} kills)`, async () => {
  const next = random(SEED);
  // Mostly short runs (kills during the first writes); every fourth runs long enough to have commits
  // older than the window, which must all survive.
  const plan = Array.from({ length: ITERATIONS }, (_, iteration) => {
    const long = iteration % 4 === 3;
    // Half of the short runs and half of the long ones checkpoint.
    const checkpoints = long ? iteration % 8 === 3 : iteration % 2 === 0;
    const killAfterMs = Math.round(long ? 2_000 + next() * 1_500 : 50 + next() * 550);
    return { iteration, long, checkpoints, killAfterMs };
  });
  const summary: string[] = [];
  let requiredTotal = 0;
  let midImageKills = 0;
  let failed = false;

  // Two writers at a time halve the run time; a failure stops both lanes before cleanup.
  const lane = async (laneIndex: number) => {
    for (const { iteration, long, checkpoints, killAfterMs } of plan.filter(
      (_, i) => Math.floor(i / 4) % 2 === laneIndex,
    )) {
      if (failed) return;
      const dir = join(root, `run-${iteration}`);
      mkdirSync(dir);
      try {
        const { required, line, midImage } = await killAndCheck(dir, killAfterMs, long, checkpoints);
        requiredTotal += required;
        if (midImage) midImageKills += 1;
        summary[iteration] = line;
      } catch (error) {
        failed = true;
        throw error;
      }
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const results = await Promise.allSettled([lane(0), lane(1)]);
  for (const result of results) if (result.status === 'rejected') throw result.reason;

  if (process.env.CRASH_TEST_VERBOSE) console.log(summary.join('\n'));
  expect(requiredTotal).toBeGreaterThan(0);
  // Checkpoints run nearly back to back in those runs: some kills must have caught one writing its image.
  expect(midImageKills, summary.join('\n')).toBeGreaterThan(0);
}, 180_000);
