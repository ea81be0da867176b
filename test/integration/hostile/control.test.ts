/**
 * The CLI beside a `serve` that stops or dies under it (hardening issue, docs/decisions.md "Beside a
 * running instance"): real `serve` processes on --port 0, real signals, real CLI processes. Whatever the
 * moment of the signal, what the CLI prints must be what the store then holds; a command the instance
 * never began runs once the directory is free; one it began is never run twice, and a CLI cut off from
 * it says the outcome is unknown and how to find out. Errors print the same through either door.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../electron/demo/remote/clock';
import { type RemoteSimulator, startRemoteSimulator } from '../../../electron/demo/remote/server';
import { listAcknowledgements } from '../../../electron/store/tables/acknowledgements';
import { readControlFile, writeControlFile } from '../../../electron/store/instance/controlFile';
import { Store } from '../../../electron/store/database';
import { REMOTE_KEY_ENV } from '../../../electron/sync/secrets';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { fixtureRecords } from '../../helpers/fixtures';
import { connectedTo, hasFileOpen } from '../../helpers/procfs';
import { type Spawned, killChildren, spawnCli, until, waitFor } from '../../helpers/process';

const ORG = 'acme';
const linux = process.platform === 'linux';

afterEach(() => killChildren());
afterAll(() => removeTempDirs());

/** `serve` as a real process on the data directory, once its API listens. */
async function serve(dataDir: string): Promise<Spawned & { port: number }> {
  const spawned = spawnCli(['serve', '--port', '0', '--data-dir', dataDir]);
  const [, port] = await waitFor(
    spawned.stdout,
    /Local API listening on http:\/\/127\.0\.0\.1:(\d+)\n/,
    spawned,
  );
  return { ...spawned, port: Number(port) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many datasets the org holds, read from the directory once no process holds it (0: no org). */
async function storedDatasets(dataDir: string): Promise<number> {
  const exported = await cli(['export', '--org', ORG, '-', '--data-dir', dataDir]);
  if (exported.code !== 0) {
    expect(exported.stderr).toBe(`dataset-health: no org '${ORG}' in this data directory\n`);
    return 0;
  }
  return (JSON.parse(exported.stdout) as { datasets: unknown[] }).datasets.length;
}

/** A data directory with a small org, one of its datasets FAILED (to acknowledge). */
async function seeded(): Promise<{ dataDir: string; failed: string }> {
  const dataDir = tempDir();
  const datasets = fixtureRecords(12, 3);
  // One dataset whose latest delivery FAILED.
  const failing = datasets[1]!;
  failing.latestDeliveryStatus = 'FAILED';
  failing.deliveryEventList[0]!.status = 'FAILED';
  const failed = failing.datasetId;
  const file = join(dataDir, 'seed.json');
  writeFileSync(file, JSON.stringify({ datasets }));
  const imported = await cli(['import', '--org', ORG, file, '--data-dir', dataDir]);
  expect(imported.code, imported.stderr).toBe(0);
  return { dataDir, failed };
}

describe.skipIf(!linux)('SIGTERM while serve runs a handed-over command', () => {
  const DATASETS = 5000;
  let file: string;
  beforeAll(() => {
    // Big enough that reading and checking it, then writing it, each take a while in serve.
    file = join(tempDir(), 'snapshot.json');
    writeFileSync(file, JSON.stringify({ datasets: fixtureRecords(DATASETS, 3, 'big') }));
  });

  /**
   * When serve gets SIGTERM: once the CLI is started (serve may be gone before it hands the command
   * over, or stopping as it does), or this many ms after serve opened the file (reading it: stopped
   * with nothing imported; writing it: completed).
   */
  const MOMENTS: ('started' | number)[] = ['started', 0, 60, 200, 320, 420, 700];

  it('import: the outcome the CLI prints is what the store then holds', async () => {
    const said: string[] = [];
    for (const moment of MOMENTS) {
      const dataDir = tempDir();
      const server = await serve(dataDir);
      const run = spawnCli(['import', '--org', ORG, file, '--data-dir', dataDir]);
      if (moment !== 'started') {
        await until(() => hasFileOpen(server.child.pid!, file) || run.child.exitCode !== null);
        await sleep(moment);
      }
      server.child.kill('SIGTERM');
      const code = await run.exited;
      expect(await server.exited, server.stderr()).toBe(0);
      const stored = await storedDatasets(dataDir);
      const printed = run.stderr();
      said.push(`${moment}: ${printed.trim()}`);
      if (code === 0) {
        expect(printed).toMatch(new RegExp(`Imported ${DATASETS} datasets and the tasks of 0 deliveries`));
        expect(stored, printed).toBe(DATASETS);
      } else {
        expect(code, printed).toBe(1);
        expect(printed).toMatch(/^dataset-health: import stopped by SIGTERM \(nothing was imported\)\n$/);
        expect(stored, printed).toBe(0);
      }
    }
    // Neither outcome is an error of the channel ("did not answer", "unknown").
    expect(said.join('\n')).not.toMatch(/did not answer|unknown|broke off/);
  }, 240_000);

  it('ack: whenever the signal comes, the CLI acknowledges (here or there) and the store has it', async () => {
    // After the CLI connected to serve (its request in flight), or this many ms after it was started.
    const moments: ({ connected: number } | { started: number })[] = [
      { connected: 0 },
      { connected: 10 },
      { started: 0 },
      { started: 500 },
    ];
    for (const moment of moments) {
      const { dataDir, failed } = await seeded();
      const server = await serve(dataDir);
      const run = spawnCli(['ack', failed, '--org', ORG, '--by', 'sam', '--data-dir', dataDir]);
      if ('connected' in moment) {
        await until(() => connectedTo(server.port) || run.child.exitCode !== null);
        await sleep(moment.connected);
      } else await sleep(moment.started);
      server.child.kill('SIGTERM');
      const code = await run.exited;
      expect(await server.exited, server.stderr()).toBe(0);
      expect(code, run.stderr()).toBe(0);
      expect(run.stdout()).toMatch(new RegExp(`^acknowledged ${failed.replace('.', '\\.')} \\(delivery `));
      const store = await Store.open({ dataDir });
      try {
        const open = listAcknowledgements(store, ORG, true).filter((ack) => ack.endedAt === null);
        expect(open.map((ack) => [ack.datasetId, ack.by])).toEqual([[failed, 'sam']]);
      } finally {
        await store.close();
      }
    }
  }, 240_000);

  it('a handed-over sync --once from a remote that does not answer ends at once, saying so', async () => {
    const simulator: RemoteSimulator = await startRemoteSimulator({
      port: 0,
      apiKey: 'sim-key',
      datasets: 5,
      seed: 5,
      clock: createManualClock(Date.parse('2026-11-21T04:41:00.000Z')),
    });
    try {
      // Every list request hangs: the sync's retries alone would hold serve for minutes.
      simulator.faults.inject({ kind: 'hang' }, { times: 1000, route: 'list' });
      const dataDir = tempDir();
      const server = await serve(dataDir);
      const run = spawnCli(
        ['sync', '--once', '--org', 'beta', '--remote', simulator.url, '--data-dir', dataDir],
        {
          [REMOTE_KEY_ENV]: 'sim-key',
        },
      );
      await waitFor(run.stderr, /^Syncing org beta from /, run);
      await until(() => simulator.requests.length > 0);
      server.child.kill('SIGTERM');
      expect(await run.exited).toBe(1);
      expect(await server.exited, server.stderr()).toBe(0);
      expect(run.stderr()).toBe(
        `Syncing org beta from ${simulator.url}…\n` +
          `dataset-health: sync stopped: the running serve (process ${server.child.pid}) is shutting down (stored data unchanged); run it again once it has stopped\n`,
      );
    } finally {
      await simulator.close();
    }
  }, 60_000);
});

describe.skipIf(!linux)('serve killed (SIGKILL) around a handed-over command', () => {
  /** The names of the org's keys, read once no process holds the directory. */
  async function keyNames(dataDir: string): Promise<string[]> {
    const listed = await cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    expect(listed.code, listed.stderr).toBe(0);
    return (JSON.parse(listed.stdout) as { name: string }[]).map((key) => key.name).sort();
  }

  it('killed with the request in its backlog (no byte answered): the CLI takes over, the key is made once', async () => {
    const { dataDir } = await seeded();
    const server = await serve(dataDir);
    // Stopped, it answers nothing: the CLI's connection completes and its request waits unread.
    server.child.kill('SIGSTOP');
    const run = spawnCli(['keys', 'create', '--org', ORG, '--name', 'after-kill', '--data-dir', dataDir]);
    await until(() => connectedTo(server.port) || run.child.exitCode !== null);
    server.child.kill('SIGKILL');
    const code = await run.exited;
    expect(code, `${run.stderr()}|${run.stdout()}`).toBe(0);
    expect(run.stdout()).toMatch(/^dhk_[A-Za-z0-9_-]{43}\n$/);
    expect(run.stderr()).toMatch(/Created key key_[0-9a-f]+ \('after-kill'\) for org acme\./);
    expect(await keyNames(dataDir)).toEqual(['after-kill']);
  }, 60_000);

  /** A port on 127.0.0.1 that nothing listens on. */
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  /**
   * What a CLI meets when it read control.json just before serve was killed: the holder still alive
   * for a moment, its port refusing. A stopped serve stands for that moment, as long as the test wants.
   */
  async function refusingHolder(dataDir: string): Promise<Spawned & { url: string }> {
    const server = await serve(dataDir);
    server.child.kill('SIGSTOP');
    const url = `http://127.0.0.1:${await closedPort()}`;
    writeControlFile(dataDir, { ...readControlFile(dataDir)!, url });
    return { ...server, url };
  }

  it('connection refused while the holder lives: the CLI waits, and takes over once it is dead', async () => {
    const { dataDir } = await seeded();
    const holder = await refusingHolder(dataDir);
    const run = spawnCli(['keys', 'create', '--org', ORG, '--name', 'taken-over', '--data-dir', dataDir]);
    await waitFor(run.stderr, /waiting for it to release the data directory…\n/, run);
    expect(run.stderr()).toBe(
      `The running serve (process ${holder.child.pid}) did not answer at ${holder.url} (ECONNREFUSED): waiting for it to release the data directory…\n`,
    );
    holder.child.kill('SIGKILL');
    expect(await run.exited, run.stderr()).toBe(0);
    expect(run.stdout()).toMatch(/^dhk_/);
    expect(await keyNames(dataDir)).toEqual(['taken-over']);
  }, 60_000);

  it('a holder that neither answers nor lets go: after the wait (30 s; here 3) the CLI says so, and that nothing was done', async () => {
    const { dataDir } = await seeded();
    const holder = await refusingHolder(dataDir);
    const run = spawnCli(['keys', 'create', '--org', ORG, '--name', 'never', '--data-dir', dataDir], {
      DATASET_HEALTH_WAIT_SECONDS: '3',
    });
    expect(await run.exited).toBe(1);
    expect(run.stdout()).toBe('');
    expect(run.stderr().split('\n').at(-2)).toBe(
      `dataset-health: the running serve (process ${holder.child.pid}) did not answer at ${holder.url} (ECONNREFUSED) and still holds the data directory after 3 s; nothing was done: run the command again once it has stopped`,
    );
    holder.child.kill('SIGKILL');
    await holder.exited;
    expect(await keyNames(dataDir)).toEqual([]);
  }, 90_000);

  it('killed while it runs the command: the outcome is unknown, the CLI says how to check and does not run it again', async () => {
    const dataDir = tempDir();
    const file = join(tempDir(), 'snapshot.json');
    writeFileSync(file, JSON.stringify({ datasets: fixtureRecords(5000, 3, 'big') }));
    const server = await serve(dataDir);
    const run = spawnCli(['import', '--org', ORG, file, '--data-dir', dataDir]);
    await until(() => hasFileOpen(server.child.pid!, file) || run.child.exitCode !== null);
    server.child.kill('SIGKILL');
    expect(await run.exited).toBe(1);
    expect(run.stderr()).toMatch(
      new RegExp(
        `^dataset-health: the running serve \\(process ${server.child.pid}\\) stopped answering before the command ended \\(its answer broke off: [A-Z_]+\\): ` +
          `whether it was done is unknown; an import is stored whole or not at all: \`dataset-health export --org acme -\` shows which, and importing ${file.replace(/[.]/g, '\\.')} again is safe\\n$`,
      ),
    );
    // The CLI did not import it itself: the killed import was never committed.
    expect(await storedDatasets(dataDir)).toBe(0);
  }, 60_000);
});

describe('an error prints the same alone and through serve', () => {
  /** Each row: an export target that fails with one OS error (the export writes beside it, then renames). */
  const ROWS: { name: string; target: (dir: string) => string; skip?: boolean }[] = [
    { name: 'a folder that does not exist (ENOENT)', target: (dir) => join(dir, 'missing', 'x.json') },
    {
      name: 'a target that is a directory (EISDIR)',
      target: (dir) => {
        mkdirSync(join(dir, 'a-directory'));
        return join(dir, 'a-directory');
      },
    },
    {
      name: 'a folder that is a file (ENOTDIR)',
      target: (dir) => {
        writeFileSync(join(dir, 'a-file'), '');
        return join(dir, 'a-file', 'x.json');
      },
    },
    {
      name: 'a read-only folder (EACCES)',
      target: (dir) => {
        mkdirSync(join(dir, 'read-only'), { mode: 0o500 });
        return join(dir, 'read-only', 'x.json');
      },
      // The superuser writes anywhere.
      skip: process.getuid?.() === 0,
    },
  ];

  it('export into places the OS refuses: the same line and exit code, no internal error, nothing logged', async () => {
    const { dataDir } = await seeded();
    const rows = ROWS.filter((row) => !row.skip).map((row) => ({ ...row, path: row.target(tempDir()) }));
    const exportTo = (path: string) => cli(['export', '--org', ORG, path, '--data-dir', dataDir]);
    const alone = [];
    for (const row of rows) alone.push(await exportTo(row.path));
    const server = await serve(dataDir);
    for (const [i, row] of rows.entries()) {
      const through = await exportTo(row.path);
      // Export says in its own words why it cannot write there (store/snapshot/exportFile.ts); failureOf's unit
      // test covers an OS error that reaches the door as Node words it.
      expect(alone[i]!.stderr, row.name).toMatch(/^dataset-health: cannot write .+\n$/);
      expect(through, row.name).toEqual(alone[i]);
      expect(through.code).toBe(1);
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.stderr()).not.toMatch(/CLI command failed|internal error/);
  }, 60_000);
});
