/**
 * The CLI beside a `serve` that stops or dies under it (hardening issue, docs/decisions.md "Beside a
 * running instance"): real `serve` processes on --port 0, real signals, real CLI processes. Whatever the
 * moment of the signal, what the CLI prints must be what the store then holds; a command the instance
 * never began runs once the directory is free; one it began is never run twice, and a CLI cut off from
 * it says the outcome is unknown and how to find out. Errors print the same through either door.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { fixtureRecords } from '../../helpers/fixtures';
import { type Spawned, killChildren, spawnCli, waitFor } from '../../helpers/process';

const ORG = 'acme';

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
  /** The temp file beside the target is named after the process that writes it. */
  const samePlace = (text: string) => text.replace(/\.tmp-\d+-[0-9a-f]+/g, '.tmp-<pid>-<random>');

  it('export into places the OS refuses: the same line and exit code, no internal error, nothing logged', async () => {
    const { dataDir } = await seeded();
    const rows = ROWS.filter((row) => !row.skip).map((row) => ({ ...row, path: row.target(tempDir()) }));
    const exportTo = (path: string) => cli(['export', '--org', ORG, path, '--data-dir', dataDir]);
    const alone = [];
    for (const row of rows) alone.push(await exportTo(row.path));
    const server = await serve(dataDir);
    for (const [i, row] of rows.entries()) {
      const through = await exportTo(row.path);
      expect(alone[i]!.stderr, row.name).toMatch(/^dataset-health: E[A-Z]+: .+\n$/);
      expect({ ...through, stderr: samePlace(through.stderr) }, row.name).toEqual({
        ...alone[i],
        stderr: samePlace(alone[i]!.stderr),
      });
      expect(through.code).toBe(1);
    }
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.stderr()).not.toMatch(/CLI command failed|internal error/);
  }, 60_000);
});
