/**
 * The built desktop app (`out/main/index.js`) as a child process under plain Node, with only `electron`
 * replaced: a module hook maps it to the recording fake (test/helpers/fakeElectronModule.ts, compiled
 * here with esbuild since Node 20 cannot run TypeScript). electron-store, sql.js, Fastify and the rest
 * load from node_modules as they ship. The fake appends what the app did to an NDJSON file and obeys
 * commands sent over the IPC channel.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { FakeRecord } from '../../helpers/fakeElectronModule';

export const ROOT = join(import.meta.dirname, '../../..');
export const MAIN_BUNDLE = join(ROOT, 'out/main/index.js');

export interface CompiledFake {
  /** `--import` this: it registers the hook. */
  register: string;
  /** The fake `electron` module. */
  electron: string;
}

export async function compileFakeElectron(outdir: string): Promise<CompiledFake> {
  await build({
    entryPoints: {
      electron: join(ROOT, 'test/helpers/fakeElectronModule.ts'),
      register: join(import.meta.dirname, 'registerElectronHook.ts'),
      resolveElectron: join(import.meta.dirname, 'resolveElectron.ts'),
    },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
  return { register: join(outdir, 'register.mjs'), electron: join(outdir, 'electron.mjs') };
}

const running = new Set<AppProcess>();

/** Ends every app still running (a failed test must not leave one behind). */
export function killApps(): void {
  for (const app of running) app.child.kill('SIGKILL');
  running.clear();
}

export class AppProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  output = '';
  private nextId = 1;

  constructor(
    fake: CompiledFake,
    readonly recordFile: string,
    env: Record<string, string>,
    cwd: string,
  ) {
    this.child = fork(MAIN_BUNDLE, [], {
      cwd,
      execArgv: ['--import', pathToFileURL(fake.register).href],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: cwd,
        FAKE_ELECTRON_MODULE: pathToFileURL(fake.electron).href,
        FAKE_ELECTRON_RECORD: recordFile,
        FAKE_ELECTRON_USER_DATA: join(cwd, 'electron-user-data'),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    running.add(this);
    for (const stream of [this.child.stdout, this.child.stderr])
      stream?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code) => {
        running.delete(this);
        resolve(code);
      }),
    );
  }

  records(): FakeRecord[] {
    if (!existsSync(this.recordFile)) return [];
    return readFileSync(this.recordFile, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as FakeRecord);
  }

  of(type: string): FakeRecord[] {
    return this.records().filter((record) => record.type === type);
  }

  /** The first record that matches, waiting for it; fails saying what the app printed. */
  async waitFor(
    what: string,
    match: (record: FakeRecord) => boolean,
    timeoutMs = 20_000,
  ): Promise<FakeRecord> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.records().find(match);
      if (found) return found;
      if (this.child.exitCode !== null || Date.now() > deadline)
        throw new Error(
          `${what}: not seen (${this.child.exitCode === null ? 'timed out' : `exited ${this.child.exitCode}`}); ${this.tail()}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Runs a command of the fake in the app's process and returns its answer. */
  async command(command: string, args: Record<string, unknown> = {}): Promise<unknown> {
    const id = this.nextId++;
    this.child.send({ id, command, ...args });
    const reply = await this.waitFor(`reply to ${command}`, (r) => r.type === 'reply' && r.id === id);
    if (reply.error) throw new Error(`${command}: ${String(reply.error)}`);
    return reply.result;
  }

  /** What the app did last and printed: for a failure's message. */
  tail(count = 15): string {
    const last = this.records()
      .slice(-count)
      .map((r) => JSON.stringify(r).slice(0, 200));
    return `last records:\n${last.join('\n')}\nthe app printed:\n${this.output}`;
  }

  /** Quits as the tray's Quit does; resolves with the exit code, failing if it takes more than `timeoutMs`. */
  async quitFromTray(timeoutMs = 20_000): Promise<number | null> {
    await this.command('tray.click', { label: 'Quit' });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`still running ${timeoutMs} ms after Quit; ${this.tail()}`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }
}
