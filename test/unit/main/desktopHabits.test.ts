/**
 * The desktop habits in the running app (electron/main/desktopApp.ts with habits.ts), against the typed
 * Electron fake over the real engine: the saved shortcut is held from the start and brings the window
 * forward on Triage; Settings sees what the system answered; a taken shortcut is said there; quitting
 * releases it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { rpcEventChannel } from '../../../electron/preload/channels';
import { type DesktopApp, startDesktopApp } from '../../../electron/main/desktopApp';
import { Store } from '../../../electron/store/database';
import { openHeadlessSettings } from '../../../electron/store/tables/settings';
import { targetPath } from '../../../shared/routes';
import type { Settings } from '../../../shared/settings';
import type { SettingsView } from '../../../shared/views';
import { type FakeElectron, fakeElectron, invokeFromWindow } from '../../helpers/electronFake';
import { removeTempDirs, tempDir } from '../../helpers/cli';

const ROOT = join(import.meta.dirname, '../../..');
const WAIT = { timeout: 30_000 };
const SHORTCUT = 'CommandOrControl+Shift+H';
const now = () => new Date();

async function dataDirWithShortcut(): Promise<string> {
  const dataDir = tempDir('dh-habits-');
  const store = await Store.open({ dataDir });
  const file = openHeadlessSettings(dataDir, store, now);
  const settings = file.read();
  settings.api.port = 0;
  settings.desktop.globalShortcut = SHORTCUT;
  file.write(settings);
  await store.close();
  return dataDir;
}

/** Polls outside a test (expect.poll belongs to tests). */
async function waitUntil(done: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT.timeout;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const lastNavigation = (fake: FakeElectron) =>
  fake.windows
    .flatMap((w) => w.webContents.sent.filter((m) => m.channel === rpcEventChannel('app.navigate')))
    .at(-1)?.payload;

async function save(fake: FakeElectron, change: (settings: Settings) => void): Promise<SettingsView> {
  const { result } = (await invokeFromWindow(fake, 'settings.get')) as { result: SettingsView };
  const next = structuredClone(result.settings);
  change(next);
  const answer = (await invokeFromWindow(fake, 'settings.save', next)) as { result?: SettingsView };
  return answer.result!;
}

describe('desktop habits in the app', () => {
  let fake: FakeElectron;
  let desktop: DesktopApp;
  beforeAll(async () => {
    fake = fakeElectron({ dataDir: await dataDirWithShortcut(), root: ROOT, now });
    const started = await startDesktopApp(fake.deps);
    if (!started) throw new Error('did not start');
    desktop = started;
    // The tray's org is known once the built-in demo has synced.
    await waitUntil(() => (desktop.engine.alerts.trayState?.orgId ?? null) !== null);
  }, 60_000);
  afterAll(async () => {
    fake.app.quit();
    await desktop.stopped;
    removeTempDirs();
  });

  it('holds the saved shortcut from the start; pressing it brings the window forward on Triage', () => {
    expect([...fake.globalShortcut.held.keys()]).toEqual([SHORTCUT]);
    const window = fake.windows[0]!;
    window.hide();
    window.minimized = true;
    const focused = window.focused;
    fake.globalShortcut.press(SHORTCUT);
    expect(window.visible && !window.minimized && window.focused === focused + 1).toBe(true);
    const orgId = desktop.engine.alerts.trayState!.orgId!;
    expect(lastNavigation(fake)).toEqual({ path: targetPath({ view: 'triage', orgId }) });
  });

  it('Settings sees what the system answered (Linux: no login items, no named sounds)', async () => {
    const { result } = (await invokeFromWindow(fake, 'settings.get')) as { result: SettingsView };
    expect(result.desktop).toEqual({
      globalShortcut: { registered: SHORTCUT, problem: null },
      openAtLogin: { supported: false, enabled: false, needsApproval: false },
      namedSounds: false,
    });
  });

  it('a shortcut another app holds: the save keeps it and its answer says why it is not held', async () => {
    fake.globalShortcut.taken.add('Alt+F9');
    const view = await save(fake, (settings) => (settings.desktop.globalShortcut = 'Alt+F9'));
    expect(view.settings.desktop.globalShortcut).toBe('Alt+F9');
    expect(view.desktop!.globalShortcut).toEqual({
      registered: null,
      problem: 'Alt+F9 is taken by another app or by the system: choose another shortcut.',
    });
    expect([...fake.globalShortcut.held.keys()]).toEqual([]);
  });

  it('a shortcut Electron would not take is refused by the save, naming the field', async () => {
    const { result } = (await invokeFromWindow(fake, 'settings.get')) as { result: SettingsView };
    const next = structuredClone(result.settings);
    next.desktop.globalShortcut = 'Ctrl+Shift';
    const answer = (await invokeFromWindow(fake, 'settings.save', next)) as {
      error?: { code: string; message: string };
    };
    expect(answer.error).toEqual({
      code: 'invalid-argument',
      message:
        'settings/desktop/globalShortcut: "Shift" is a modifier: end with a key, e.g. CommandOrControl+Shift+H',
    });
  });

  it('a change made elsewhere (the tray pausing) tries the saved shortcut again', async () => {
    fake.globalShortcut.taken.delete('Alt+F9');
    fake.trays[0]!.click('For 1 hour');
    await expect.poll(() => [...fake.globalShortcut.held.keys()], WAIT).toEqual(['Alt+F9']);
    fake.trays[0]!.click('Resume notifications');
    await expect.poll(() => desktop.settings.read().notifications.pausedUntil, WAIT).toBeNull();
  });

  it('quitting releases the shortcut', async () => {
    fake.app.quit();
    await desktop.stopped;
    expect([...fake.globalShortcut.held.keys()]).toEqual([]);
    expect(fake.globalShortcut.calls.at(-1)).toBe('unregister Alt+F9');
  });
});
