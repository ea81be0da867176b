/**
 * Everything the benchmark leaves behind, tracked so it is removed on every exit path: temp dirs and
 * the child processes it spawned (by their own pid only), also on Ctrl+C.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dirs = new Set<string>();
const children = new Set<ChildProcess>();

/** A new directory under `parent` (default: the system temp folder), removed at exit at the latest. */
export function makeTempDir(prefix: string, parent = tmpdir()): string {
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, prefix));
  dirs.add(dir);
  return dir;
}

/** Removes `dir` (made by someone else) at exit at the latest. */
export function trackTempDir(dir: string): void {
  dirs.add(dir);
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
  dirs.delete(dir);
}

const running = (child: ChildProcess): boolean => child.exitCode === null && child.signalCode === null;

export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

/** Asks the child to stop (SIGTERM: `serve` persists and exits), killing it if it takes too long. */
export async function stopChild(child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  if (!running(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(timer);
}

function cleanUpNow(): void {
  for (const child of children) if (running(child)) child.kill('SIGKILL');
  children.clear();
  for (const dir of [...dirs]) {
    try {
      removeTempDir(dir);
    } catch (error) {
      process.stderr.write(`bench: could not remove ${dir}: ${(error as Error).message}\n`);
    }
  }
}

/** Removes what is left on normal exit, and on SIGINT/SIGTERM before exiting. */
export function installCleanup(): void {
  process.once('exit', cleanUpNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench: ${signal}, cleaning up…\n`);
      cleanUpNow();
      process.exit(130);
    });
  }
}
