/**
 * The on-call layer is ready for orgs no source syncs (an imported snapshot): a running engine reads
 * their history and precomputes the Reliability view's default statistics shortly after start-up, so
 * the first look at Upcoming or Reliability does not pay for it.
 */
import { afterEach, expect, it, vi } from 'vitest';
import { Store } from '../../../electron/store/database';
import { importSnapshot } from '../../../electron/store/snapshot';
import { fixtureRecords } from '../../helpers/fixtures';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { type Instance, startInstance } from '../../helpers/instance';

const NOW = new Date('2026-11-21T04:41:00.000Z');
let instance: Instance | undefined;

afterEach(async () => {
  await instance?.stop();
  removeTempDirs();
});

it('reads an imported org’s history after start-up, with no sync to prompt it', async () => {
  const dataDir = tempDir('dh-warm-');
  const store = await Store.open({ dataDir });
  importSnapshot(store, 'acme', { datasets: fixtureRecords(50), tasks: new Map() }, { now: NOW });
  await store.close();

  instance = await startInstance(dataDir, { now: () => NOW });
  const { knowledge } = instance.engine;
  expect(knowledge.history.held('acme')).toBeNull();
  await vi.waitFor(() => expect(knowledge.history.held('acme')?.datasets).toHaveLength(50), {
    timeout: 10_000,
    interval: 50,
  });
});
