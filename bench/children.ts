/** Servers under test run in their own Node processes, so they never share the benchmark's event loop. */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stopChild, trackChild } from './cleanup';
import { processMemory } from './proc';

export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** performance.now() just before spawning, and when the URL line arrived. */
  spawnedAt: number;
  urlAt: number;
  stop(): Promise<void>;
}

/** Runs a TypeScript entry of the project under tsx: `node --import tsx <script> ...args`. */
export function startTsServer(
  script: string,
  args: readonly string[],
  urlLine?: RegExp,
): Promise<ServerProcess> {
  return startNodeServer(script, ['--import', 'tsx', script, ...args], undefined, urlLine);
}

/** The remote simulator of a reference org (seed 1) in its own process, as a real remote would be. */
export function startSimulator(size: number, extraArgs: readonly string[] = []): Promise<ServerProcess> {
  return startTsServer('electron/cli/main.ts', [
    'simulate-remote',
    '--port',
    '0',
    '--datasets',
    String(size),
    '--seed',
    '1',
    ...extraArgs,
  ]);
}

/**
 * Spawns `node ...nodeArgs` in the project folder and resolves once it prints a line holding an
 * `http://127.0.0.1:<port>` URL; rejects (with its stderr) if it exits or times out first.
 */
export function startNodeServer(
  name: string,
  nodeArgs: readonly string[],
  timeoutMs = 60_000,
  /** The line to wait for; its first group (else the whole match) is the URL. */
  urlLine = /http:\/\/127\.0\.0\.1:\d+/,
): Promise<ServerProcess> {
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, nodeArgs, {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    const fail = (reason: string): void => {
      clearTimeout(timer);
      void stopChild(child);
      reject(new Error(`${name} ${reason}${stderr ? `: ${stderr.trim()}` : ''}`));
    };
    const timer = setTimeout(() => fail(`printed no URL within ${timeoutMs} ms`), timeoutMs);
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      fail(`exited (${signal ?? code}) before printing its URL`);
    child.once('exit', onExit);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const match = urlLine.exec(line);
      if (!match) return;
      const urlAt = performance.now();
      clearTimeout(timer);
      child.off('exit', onExit);
      lines.close();
      child.stdout?.resume();
      resolve({
        child,
        pid: child.pid!,
        url: match[1] ?? match[0],
        spawnedAt,
        urlAt,
        stop: () => stopChild(child),
      });
    });
  });
}

export interface Finished {
  /** From spawning to the exit, in ms. */
  ms: number;
  code: number | null;
  stderr: string;
  /** Its peak RSS (VmHWM) as last read before it exited, sampled every 50 ms; null without /proc. */
  peakRssBytes: number | null;
}

/** Runs `node ...nodeArgs` in the project folder to its exit (killed after `timeoutMs`). */
export function runNode(nodeArgs: readonly string[], timeoutMs = 300_000): Promise<Finished> {
  const started = performance.now();
  const child = spawn(process.execPath, nodeArgs, { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  trackChild(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let peakRssBytes: number | null = null;
  const sample = (): void => {
    const memory = child.pid === undefined ? null : processMemory(child.pid);
    if (memory !== null && Number.isFinite(memory.peak))
      peakRssBytes = Math.max(peakRssBytes ?? 0, memory.peak);
  };
  const sampler = setInterval(sample, 50);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearInterval(sampler);
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearInterval(sampler);
      clearTimeout(timer);
      resolve({ ms: performance.now() - started, code, stderr, peakRssBytes });
    });
  });
}
