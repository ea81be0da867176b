/**
 * runEngine keeps the instance's files for both shells (the app and `serve`): control.json and
 * runtime.json while it runs, both gone once it stops, also when a part fails to stop.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type RunningEngine, runEngine } from '../../../electron/engine/runEngine';
import { readControlFile } from '../../../electron/store/instance/controlFile';
import { INSTANCE_FILE_REFRESH_MS } from '../../../electron/store/instance/instanceFile';
import { Store } from '../../../electron/store/database';
import { readRuntimeFile } from '../../../electron/store/instance/runtimeFile';
import { memorySettings } from '../../../electron/store/tables/settings';
import { envSecretKeeper } from '../../../electron/sync/secrets';
import { removeTempDirs, tempDir } from '../../helpers/cli';

const NOW = new Date('2026-11-26T09:00:00.000Z');

afterAll(removeTempDirs);

/** The engine as `serve` runs it over `store`, with no sources and no demo. */
function startEngine(store: Store, dataDir: string): Promise<RunningEngine> {
  return runEngine({
    purpose: 'serve',
    store,
    dataDir,
    settings: memorySettings(),
    port: 0,
    now: () => NOW,
    secrets: envSecretKeeper({}),
    logger: false,
    demoWhenNoSources: false,
  });
}

async function started(dataDir: string): Promise<{ engine: RunningEngine; store: Store }> {
  const store = await Store.open({ dataDir });
  return { engine: await startEngine(store, dataDir), store };
}

describe('runEngine: the instance files', () => {
  it('writes runtime.json and control.json once it runs, owner-only, and removes both when it stops', async () => {
    const dataDir = tempDir('dh-engine-');
    const { engine, store } = await started(dataDir);
    expect(readRuntimeFile(dataDir)).toEqual({
      apiUrl: engine.api.url,
      pid: process.pid,
      startedAt: NOW.toISOString(),
    });
    expect(readControlFile(dataDir)).toEqual({
      url: engine.api.url,
      pid: process.pid,
      purpose: 'serve',
      secret: expect.stringMatching(/^[\w-]{43}$/),
    });
    for (const file of ['runtime.json', 'control.json'])
      expect(statSync(join(dataDir, file)).mode & 0o077, file).toBe(0);
    await engine.stop();
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'control.json'))).toBe(false);
    await store.close();
  });

  it('removes both when a part fails to stop', async () => {
    const dataDir = tempDir('dh-engine-');
    const { engine, store } = await started(dataDir);
    expect(readRuntimeFile(dataDir)?.apiUrl).toBe(engine.api.url);
    const close = engine.api.close.bind(engine.api);
    engine.api.close = async () => {
      await close();
      throw new Error('the API did not close');
    };
    await expect(engine.stop()).rejects.toThrow('the API did not close');
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'control.json'))).toBe(false);
    await store.close();
  });

  it('stops what it started when runtime.json cannot be written, so nothing runs on once the store closes', async () => {
    const dataDir = tempDir('dh-engine-');
    // A folder where the file goes: the atomic rename over it fails, as on a disk that refuses it.
    mkdirSync(join(dataDir, 'runtime.json'));
    const store = await Store.open({ dataDir });
    await expect(startEngine(store, dataDir)).rejects.toThrow();
    expect(existsSync(join(dataDir, 'control.json'))).toBe(false);
    // The keeper of control.json stopped too: it does not write it back.
    await new Promise((resolve) => setTimeout(resolve, INSTANCE_FILE_REFRESH_MS + 500));
    expect(existsSync(join(dataDir, 'control.json'))).toBe(false);
    await store.close();
  });
});
