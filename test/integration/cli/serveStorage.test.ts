/**
 * `serve` on a disk that is full (issue 12 item 2), in-process with the CLI's own io: the store's
 * journal files open on /dev/full while the test says the disk is full, so every write fails with a real
 * ENOSPC. serve says so in one `storage:` line (what, where, how much waits, that it is tried again),
 * keeps serving and taking changes, says when writing works again, and loses nothing.
 */
import { afterEach, expect, it } from 'vitest';
import type { CliIo } from '../../../electron/cli/io';
import { runCli } from '../../../electron/cli/program';
import { listApiKeys } from '../../../electron/store/tables/apiKeys';
import { Store } from '../../../electron/store/database';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { fillableDisk } from '../../helpers/fullDisk';

afterEach(() => removeTempDirs());

/** Waits for `read()` to match (the store tries a refused write again after a few seconds). */
async function seen(read: () => string, pattern: RegExp): Promise<RegExpMatchArray> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const match = pattern.exec(read());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`no ${pattern} in:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('says when the disk refuses writes and when it accepts them again; serves meanwhile, loses nothing', async () => {
  const dataDir = tempDir('dh-serve-full-');
  const disk = fillableDisk();
  let stdout = '';
  let stderr = '';
  let stop!: (signal: string) => void;
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: {},
    now: () => new Date(),
    stopRequested: () => new Promise((resolve) => (stop = resolve)),
    openUrl: async () => undefined,
    openJournal: disk.openJournal,
  };
  // Full from the start: a new folder's first commits (its schema) are refused.
  disk.full = true;
  const served = runCli(['serve', '--port', '0', '--data-dir', dataDir], io);
  const [, url] = await seen(() => stdout, /Local API listening on (\S+)\n/);
  const [refused] = await seen(() => stderr, /^storage: .*\n/m);
  expect(refused).toMatch(
    new RegExp(
      `^storage: could not write to ${dataDir} \\(ENOSPC: no space left on device, write\\); [\\d,]+ bytes of committed changes are kept in memory and will be written when the disk accepts them; it is tried again every few seconds, and the local API keeps serving\\n$`,
    ),
  );

  // Serving: a key made beside it (handed to this serve) is committed and works at once.
  const created = await cli(['keys', 'create', '--org', 'acme', '--new-org', '--data-dir', dataDir]);
  expect(created.code, created.stderr).toBe(0);
  const answer = await fetch(`${url}/v2/ops/health/datasets/deliveries`, {
    headers: { authorization: `Bearer ${created.stdout.trim()}` },
  });
  expect(answer.status).toBe(200);

  disk.full = false;
  await seen(() => stderr, /^storage: writing to .* works again.*\n/m);
  const storageLines = stderr.split('\n').filter((line) => line.startsWith('storage: '));
  expect(storageLines).toEqual([
    refused!.trimEnd(),
    `storage: writing to ${dataDir} works again; the changes kept in memory are saved, nothing was lost`,
  ]);
  // The store's own account went to the structured log, not as a second plain line.
  expect(stderr).not.toMatch(/^(error|warning): /m);

  stop('SIGTERM');
  expect(await served).toBe(0);
  const reopened = await Store.open({ dataDir });
  try {
    expect(listApiKeys(reopened, 'acme')).toHaveLength(1);
  } finally {
    await reopened.close();
  }
}, 30_000);

it('stopping while the disk still refuses writes says what could not be saved, and exits 1', async () => {
  const dataDir = tempDir('dh-serve-full-');
  const disk = fillableDisk();
  let stderr = '';
  let stop!: (signal: string) => void;
  const io: CliIo = {
    stdout: () => undefined,
    stderr: (text) => void (stderr += text),
    env: {},
    now: () => new Date(),
    stopRequested: () => new Promise((resolve) => (stop = resolve)),
    openUrl: async () => undefined,
    openJournal: disk.openJournal,
  };
  disk.full = true;
  const served = runCli(['serve', '--port', '0', '--data-dir', dataDir], io);
  await seen(() => stderr, /^storage: could not write/m);
  stop('SIGTERM');
  expect(await served).toBe(1);
  expect(stderr.trimEnd().split('\n').at(-1)).toMatch(
    new RegExp(
      `^dataset-health: stopped with [\\d,]+ bytes of committed changes unsaved: the disk still refuses writes to ${dataDir} \\(see the storage: line above\\)$`,
    ),
  );
  // The directory is released: the next run finds it free.
  disk.full = false;
  const next = await cli(['keys', 'list', '--data-dir', dataDir]);
  expect(next.code, next.stderr).toBe(0);
}, 30_000);
