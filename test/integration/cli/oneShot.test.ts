/**
 * A one-shot CLI command (DESIGN.md §3, docs/storage.md) leaves its changes in the fsynced journal and
 * exits without writing an image; the next store to open the folder with a journal past the checkpoint
 * threshold folds it in.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { fixtureRecords } from '../../helpers/fixtures';

afterEach(() => removeTempDirs());

it('import writes the journal only; the next open past the threshold writes the image', async () => {
  const dataDir = tempDir();
  const file = join(tempDir(), 'snapshot.json');
  writeFileSync(file, JSON.stringify({ datasets: fixtureRecords(40, 3, 'one-shot') }));

  const run = await cli(['import', '--org', 'acme', file, '--data-dir', dataDir]);
  expect(run.code, run.stderr).toBe(0);
  expect(existsSync(join(dataDir, 'health.sqlite'))).toBe(false);
  expect(readdirSync(dataDir).filter((name) => name.startsWith('health.sqlite.journal-'))).toHaveLength(1);

  const exported = await cli(['export', '--org', 'acme', '-', '--data-dir', dataDir]);
  expect(exported.code, exported.stderr).toBe(0);
  expect((JSON.parse(exported.stdout) as { datasets: unknown[] }).datasets).toHaveLength(40);

  const store = await Store.open({ dataDir, checkpoint: { checkpointBytes: 1024 } });
  try {
    await expect.poll(() => existsSync(join(dataDir, 'health.sqlite')), { timeout: 10_000 }).toBe(true);
  } finally {
    await store.close();
  }
  const reopened = await Store.open({ dataDir });
  expect(reopened.value('SELECT count(*) FROM datasets')).toBe(40);
  await reopened.close();
});
