/**
 * A one-shot CLI command (docs/storage.md) stops as serve and the app do: closing writes what the image
 * lacks as a new `health.sqlite`, so any SQLite reader sees every change it made, without the journals.
 * A command that changed nothing writes nothing.
 */
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { databaseDigests, queryImage } from '../../helpers/databaseFiles';
import { fixtureRecords } from '../../helpers/fixtures';

afterEach(() => removeTempDirs());

it('import leaves an image holding the org; a read-only command after it leaves the files as they are', async () => {
  const dataDir = tempDir();
  const file = join(tempDir(), 'snapshot.json');
  writeFileSync(file, JSON.stringify({ datasets: fixtureRecords(40, 3, 'one-shot') }));

  const run = await cli(['import', '--org', 'acme', file, '--data-dir', dataDir]);
  expect(run.code, run.stderr).toBe(0);
  expect(await queryImage(dataDir, "SELECT count(*) FROM datasets WHERE org_id = 'acme'")).toEqual([[40]]);

  const before = databaseDigests(dataDir);
  const exported = await cli(['export', '--org', 'acme', '-', '--data-dir', dataDir]);
  expect(exported.code, exported.stderr).toBe(0);
  expect((JSON.parse(exported.stdout) as { datasets: unknown[] }).datasets).toHaveLength(40);
  expect(databaseDigests(dataDir)).toEqual(before);
});

it('a small change (a key) reaches the image too', async () => {
  const dataDir = tempDir();
  expect((await cli(['demo', '--datasets', '5', '--org', 'acme', '--data-dir', dataDir])).code).toBe(0);
  const image = statSync(join(dataDir, 'health.sqlite')).ino;
  const created = await cli(['keys', 'create', '--org', 'acme', '--name', 'small', '--data-dir', dataDir]);
  expect(created.code, created.stderr).toBe(0);
  expect(statSync(join(dataDir, 'health.sqlite')).ino).not.toBe(image);
  expect(await queryImage(dataDir, "SELECT name FROM api_keys WHERE org_id = 'acme'")).toEqual([['small']]);
});
