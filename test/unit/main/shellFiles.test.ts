/**
 * The desktop app's files, through the real electron-store (only `electron` is faked): settings in
 * `settings.json` (the one the CLI reads), the window state in `window-state.json`; the `config.json`
 * of 0.2.0 carried over; a corrupt file moved aside, never a reason not to start.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DesktopApp, startDesktopApp } from '../../../electron/main/desktopApp';
import { Store } from '../../../electron/store/database';
import { openHeadlessSettings } from '../../../electron/store/tables/settings';
import { DEFAULT_SETTINGS, type Settings } from '../../../shared/settings';
import { type FakeElectron, fakeElectron } from '../../helpers/electronFake';
import { removeTempDirs, tempDir } from '../../helpers/cli';

const ROOT = join(import.meta.dirname, '../../..');
const NOW = new Date('2026-11-21T12:00:00.000Z');
const now = () => new Date();
const json = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;

/** A data folder; its settings (when given) put the local API on a free port. */
async function dataDir(files: Record<string, unknown> = {}): Promise<string> {
  const dir = tempDir('dh-shell-files-');
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  return dir;
}

async function launch(dir: string, clock = now): Promise<{ fake: FakeElectron; desktop: DesktopApp }> {
  const fake = fakeElectron({ dataDir: dir, root: ROOT, now: clock });
  const desktop = await startDesktopApp(fake.deps);
  if (!desktop) throw new Error('did not start');
  return { fake, desktop };
}

async function quit({ fake, desktop }: { fake: FakeElectron; desktop: DesktopApp }): Promise<void> {
  fake.app.quit();
  await desktop.stopped;
}

/** Settings as a user changed them, on a free port. */
const customSettings = (): Settings => ({
  ...structuredClone(DEFAULT_SETTINGS),
  api: { port: 0 },
  notifications: { ...DEFAULT_SETTINGS.notifications, recoveryNotices: true },
  intervals: { pollSeconds: 120, crawlMinutes: 30 },
  window: { closeToTray: false },
});
const INTERNAL = { migrations: { version: '0.2.0' } };
const placed = { bounds: { x: 210, y: 120, width: 1000, height: 700 }, maximized: false };

afterAll(() => removeTempDirs());

describe('settings and window state files', () => {
  it('settings in settings.json (shared with the CLI), the window in window-state.json, no config.json', async () => {
    const dir = await dataDir({ 'settings.json': { ...DEFAULT_SETTINGS, api: { port: 0 } } });
    const first = await launch(dir);
    expect(first.desktop.settings.path).toBe(join(dir, 'settings.json'));
    const changed = { ...first.desktop.settings.read(), intervals: { pollSeconds: 90, crawlMinutes: 20 } };
    await first.desktop.engine.rpc.dispatch('settings.save', changed);
    first.fake.windows[0]!.bounds = { ...placed.bounds };
    first.fake.windows[0]!.close(); // to the tray, remembering where it was
    await quit(first);

    expect(readdirSync(dir)).not.toContain('config.json');
    expect(json(join(dir, 'settings.json'))).toMatchObject({
      intervals: { pollSeconds: 90, crawlMinutes: 20 },
    });
    expect(json(join(dir, 'window-state.json'))).toEqual({ window: placed });
    const store = await Store.open({ dataDir: dir });
    expect(openHeadlessSettings(dir, store, now).read().intervals).toEqual({
      pollSeconds: 90,
      crawlMinutes: 20,
    });
    await store.close();

    // The next launch makes the window where it was left.
    const second = await launch(dir);
    expect(second.fake.windows[0]!.options).toMatchObject(placed.bounds);
    await quit(second);
  }, 60_000);

  it("carries 0.2.0's config.json over: the settings (and conf's migration record) to settings.json", async () => {
    const legacy = { ...customSettings(), __internal__: INTERNAL };
    const dir = await dataDir({ 'config.json': legacy });
    const app = await launch(dir);
    expect(app.desktop.settings.read()).toEqual(customSettings());
    expect(app.fake.windows[0]!.options).toMatchObject({ width: 1280, height: 800 });
    await quit(app);
    expect(json(join(dir, 'settings.json'))).toEqual(legacy);
    // Moved aside, not deleted, and not read again.
    expect(readdirSync(dir)).not.toContain('config.json');
    expect(json(join(dir, 'config.json.migrated-0.2.0'))).toEqual(legacy);
    expect(app.fake.warnings).toEqual([expect.stringContaining('config.json.migrated-0.2.0')]);
  }, 60_000);

  it('a config.json whose `window` is a window state: that goes to window-state.json, the rest to settings.json', async () => {
    const { window: _settingsWindow, ...rest } = customSettings();
    const dir = await dataDir({ 'config.json': { ...rest, window: placed, __internal__: INTERNAL } });
    const app = await launch(dir);
    expect(app.fake.windows[0]!.options).toMatchObject(placed.bounds);
    expect(app.desktop.settings.read()).toEqual({ ...customSettings(), window: DEFAULT_SETTINGS.window });
    await quit(app);
    expect(json(join(dir, 'window-state.json'))).toEqual({ window: placed });
  }, 60_000);

  it('keeps the sections of config.json the schema accepts; settings.json, when there is one, wins', async () => {
    const valid = await dataDir({
      'config.json': { ...customSettings(), intervals: { pollSeconds: 'often' }, __internal__: INTERNAL },
    });
    let app = await launch(valid);
    expect(app.desktop.settings.read()).toEqual({
      ...customSettings(),
      intervals: DEFAULT_SETTINGS.intervals,
    });
    await quit(app);

    const cliMade = { ...DEFAULT_SETTINGS, api: { port: 0 }, data: { retentionDeliveries: 30 } };
    const both = await dataDir({ 'settings.json': cliMade, 'config.json': customSettings() });
    app = await launch(both);
    expect(app.desktop.settings.read()).toEqual(cliMade);
    await quit(app);
    expect(existsSync(join(both, 'config.json.migrated-0.2.0'))).toBe(true);
  }, 60_000);

  it('a corrupt settings.json and a window-state.json of the wrong shape are moved aside; the app starts', async () => {
    const dir = await dataDir({
      'settings.json': '{ "api": { "port": 0 }, not json',
      // What 0.2.0 could leave: the settings' window object where a window state belongs.
      'window-state.json': { window: { closeToTray: true } },
    });
    const app = await launch(dir, () => NOW);
    expect(app.desktop.settings.read()).toEqual(DEFAULT_SETTINGS);
    expect(app.fake.windows[0]!.options).toMatchObject({ width: 1280, height: 800 });
    expect(app.fake.windows[0]!.options.x).toBeUndefined();
    const stamp = '2026-11-21T12-00-00-000Z';
    expect(readdirSync(dir)).toEqual(
      expect.arrayContaining([`settings.json.invalid-${stamp}`, `window-state.json.invalid-${stamp}`]),
    );
    expect(app.fake.warnings).toHaveLength(2);
    // Edited into the wrong shape while running: never used to make the window.
    writeFileSync(join(dir, 'window-state.json'), JSON.stringify({ window: { bounds: 'big' } }));
    app.fake.windows[0]!.destroyed = true;
    app.fake.windows[0]!.events.fire('closed');
    app.desktop.window();
    expect(app.fake.windows.at(-1)!.options).toMatchObject({ width: 1280, height: 800 });
    expect(app.fake.windows.at(-1)!.options.x).toBeUndefined();
    await quit(app);
  }, 60_000);
});
