/**
 * The desktop shell against typed fakes of Electron (test/helpers/electronFake.ts), over the real
 * engine: the built-in demo remote on loopback, the store and settings files in a temp folder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { rpcEventChannel } from '../../../electron/preload/channels';
import { isJournalFileName } from '../../../electron/store/durability/journal';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import type { DatabaseStatus } from '../../../shared/database';
import { fill, fillableDisk } from '../../helpers/fullDisk';
import { type DesktopApp, startDesktopApp } from '../../../electron/main/desktopApp';
import { SECURE_WEB_PREFERENCES } from '../../../electron/main/window';
import { Store } from '../../../electron/store/database';
import { openHeadlessSettings } from '../../../electron/store/tables/settings';
import { listSources } from '../../../electron/store/tables/sources';
import { targetPath } from '../../../shared/routes';
import { type FakeElectron, fakeElectron, invokeFromWindow, slowDatabase } from '../../helpers/electronFake';
import { removeTempDirs, tempDir } from '../../helpers/cli';

const ROOT = join(import.meta.dirname, '../../..');
const WAIT = { timeout: 30_000 };
const now = () => new Date();

/** A data folder whose settings put the local API on a free port (a test must not take 47800). */
async function dataDirWith(
  change?: (settings: ReturnType<ReturnType<typeof openHeadlessSettings>['read']>) => void,
) {
  const dataDir = tempDir('dh-shell-');
  const store = await Store.open({ dataDir });
  const file = openHeadlessSettings(dataDir, store, now);
  const settings = file.read();
  settings.api.port = 0;
  change?.(settings);
  file.write(settings);
  await store.close();
  return dataDir;
}

async function launch(dataDir: string): Promise<{ fake: FakeElectron; desktop: DesktopApp }> {
  const fake = fakeElectron({ dataDir, root: ROOT, now });
  const desktop = await startDesktopApp(fake.deps);
  if (!desktop) throw new Error('did not start');
  return { fake, desktop };
}

async function quit(fake: FakeElectron, desktop: DesktopApp): Promise<void> {
  fake.app.quit();
  await desktop.stopped;
}

/** Polls outside a test (expect.poll belongs to tests). */
async function waitUntil(done: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT.timeout;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const navigations = (fake: FakeElectron) =>
  fake.windows.flatMap((w) =>
    w.webContents.sent.filter((m) => m.channel === rpcEventChannel('app.navigate')),
  );

describe('desktop app', () => {
  let fake: FakeElectron;
  let desktop: DesktopApp;
  beforeAll(async () => {
    ({ fake, desktop } = await launch(await dataDirWith()));
    // The built-in demo's first sync: a summary notification and a tray that knows the statuses.
    await waitUntil(() => fake.notifications.length > 0);
    await waitUntil(() => /tray-(failed|warning|healthy)\.png$/.test(fake.trays[0]?.image ?? ''));
  }, 60_000);
  afterAll(async () => {
    await quit(fake, desktop);
    removeTempDirs();
  });

  it('makes one secure window: isolated, sandboxed, no Node, the preload bridge only', () => {
    expect(fake.windows).toHaveLength(1);
    const { webPreferences } = fake.windows[0]!.options;
    expect(webPreferences).toMatchObject({
      ...SECURE_WEB_PREFERENCES,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webviewTag: false,
      preload: join(ROOT, 'out/preload/index.cjs'),
    });
    expect(fake.windows[0]!.loaded).toEqual({ file: join(ROOT, 'out/renderer/index.html'), hash: undefined });
  });

  it('refuses new windows, navigation away, webviews and permissions; https links open in the browser', () => {
    const contents = fake.windows[0]!.webContents;
    const open = (url: string) =>
      contents.openHandler!({ url } as Parameters<NonNullable<typeof contents.openHandler>>[0]);
    expect(open('https://example.com/runbook')).toEqual({ action: 'deny' });
    expect(open('http://example.com/')).toEqual({ action: 'deny' });
    expect(open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(fake.opened).toEqual(['https://example.com/runbook']);
    expect(contents.events.firePreventable('will-navigate', 'https://evil.example/')).toBe(true);
    expect(contents.events.firePreventable('will-redirect', 'http://127.0.0.1:1/')).toBe(true);
    expect(contents.events.firePreventable('will-attach-webview')).toBe(true);
    // Reloading the app's own page (any route) is allowed.
    const page = `file://${join(ROOT, 'out/renderer/index.html')}#/settings`;
    expect(contents.events.firePreventable('will-navigate', page)).toBe(false);
    const answers: boolean[] = [];
    contents.permissionRequest!(
      undefined as never,
      'media',
      (granted) => answers.push(granted),
      undefined as never,
    );
    expect(answers).toEqual([false]);
    expect(contents.permissionCheck!(null, 'notifications', '', undefined as never)).toBe(false);
  });

  it('the tray follows the alerter: icon, tooltip with counts and age, FAILED datasets that open', async () => {
    const tray = fake.trays[0]!;
    const state = desktop.engine.alerts.trayState!;
    expect(tray.image).toBe(join(ROOT, 'resources/tray', `tray-${state.level}.png`));
    expect(existsSync(tray.image)).toBe(true);
    expect(tray.tooltip).toBe(state.tooltip);
    expect(tray.tooltip).toMatch(/synced (just now|\d+ seconds? ago)/);
    const labels = tray.menu.map((item) => item.label);
    expect(labels).toEqual(
      expect.arrayContaining(['Sync now', 'Pause notifications', 'Open Dataset Health', 'Quit']),
    );
    const first = state.failed[0];
    if (first) {
      fake.windows[0]!.hide();
      tray.click(first.datasetName ?? first.datasetId);
      expect(fake.windows[0]!.visible).toBe(true);
      expect(navigations(fake).at(-1)?.payload).toEqual({
        path: targetPath({ view: 'dataset', orgId: first.orgId, datasetId: first.datasetId }),
      });
    }
  });

  it('pausing from the tray pauses notifications (and the window sees it), resuming resumes', async () => {
    const tray = fake.trays[0]!;
    const before = Date.now();
    tray.click('For 1 hour');
    await expect.poll(() => desktop.settings.read().notifications.pausedUntil, WAIT).not.toBeNull();
    const until = Date.parse(desktop.settings.read().notifications.pausedUntil!);
    expect(until - before).toBeGreaterThanOrEqual(3_600_000 - 1000);
    expect(until - before).toBeLessThanOrEqual(3_600_000 + 5000);
    await expect.poll(() => tray.menu.map((item) => item.label), WAIT).toContain('Notifications paused');
    expect(tray.tooltip).toContain('notifications paused');
    tray.click('Resume notifications');
    await expect.poll(() => desktop.settings.read().notifications.pausedUntil, WAIT).toBeNull();
  });

  it('one notification per announcement; clicking it opens where it leads, bringing the window forward', () => {
    const [notification] = fake.notifications;
    expect(notification!.shown).toBe(true);
    expect(notification!.options.title).toMatch(/^\d+ datasets? (is|are) FAILED$/);
    fake.windows[0]!.hide();
    fake.windows[0]!.minimized = true;
    notification!.events.fire('click');
    const window = fake.windows[0]!;
    expect(window.visible && !window.minimized && window.focused > 0).toBe(true);
    expect(navigations(fake).at(-1)?.payload).toEqual({ path: '/orgs/live-demo/datasets?status=FAILED' });
  });

  it('a second launch brings the first forward', () => {
    const window = fake.windows[0]!;
    window.hide();
    const focused = window.focused;
    fake.app.events.fire('second-instance');
    expect(window.visible).toBe(true);
    expect(window.focused).toBe(focused + 1);
    expect(fake.windows).toHaveLength(1);
  });

  it('closing the window hides it to the tray; the app keeps running', () => {
    const window = fake.windows[0]!;
    window.show();
    expect(window.close()).toBe(true);
    expect(window.visible).toBe(false);
    expect(fake.app.quitCalls).toBe(0);
  });

  it('remote API keys are sealed with safeStorage and never reach the window', async () => {
    const saved = await desktop.engine.rpc.dispatch('sources.save', {
      id: null,
      orgId: 'acme',
      name: 'Acme',
      baseUrl: 'https://health.example.com',
      apiKey: 'remote-secret-key-1234',
      enabled: false,
    });
    expect(JSON.stringify(saved)).not.toContain('remote-secret-key');
    expect(saved).toMatchObject({ hasKey: true, keyHint: '…1234' });
    const savedId = (saved as { id: string }).id;
    const sealed = listSources(desktop.store).find((source) => source.id === savedId)!.apiKeySealed!;
    expect(sealed.startsWith('safeStorage:')).toBe(true);
    expect(sealed).not.toContain('remote-secret-key');
    const listed = await desktop.engine.rpc.dispatch('sources.list', {});
    expect(JSON.stringify(listed)).not.toContain('remote-secret-key');
  });
});

describe('desktop app lifecycle', () => {
  afterAll(() => removeTempDirs());

  it('a second instance quits at once and starts nothing', async () => {
    const fake = fakeElectron({ dataDir: await dataDirWith(), root: ROOT, now });
    fake.app.singleInstance = false;
    expect(await startDesktopApp(fake.deps)).toBeUndefined();
    expect(fake.app.quitCalls).toBe(1);
    expect(fake.windows).toEqual([]);
  });

  it('quitting stops the sync, persists the store, removes runtime.json and releases the data folder', async () => {
    const dataDir = await dataDirWith();
    const { fake, desktop } = await launch(dataDir);
    const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as { apiUrl: string };
    expect(runtime.apiUrl).toBe(desktop.engine.api.url);
    await expect.poll(() => desktop.engine.sync.states()[0]?.lastSuccessAt ?? null, WAIT).not.toBeNull();
    fake.app.quit();
    expect(fake.app.quitted).toBe(false); // held until everything is saved
    await desktop.stopped;
    expect(fake.app.quitted).toBe(true);
    expect(fake.trays[0]!.destroyed).toBe(true);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'dataset-health.lock'))).toBe(false);
    const reopened = await Store.open({ dataDir });
    expect(reopened.value('SELECT count(*) FROM datasets')).toBe(500);
    expect(Number(reopened.value('SELECT count(*) FROM announced_deliveries'))).toBeGreaterThan(0);
    await reopened.close();
    // The window's size and place are remembered.
    expect(JSON.parse(readFileSync(join(dataDir, 'window-state.json'), 'utf8'))).toMatchObject({
      window: { bounds: { width: 1280, height: 800 } },
    });
  }, 60_000);

  it('starts when the local API port is taken: on a free port, said in runtime.json and a warning', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const dataDir = await dataDirWith((settings) => (settings.api.port = port));
    try {
      const { fake, desktop } = await launch(dataDir);
      const { apiUrl } = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as {
        apiUrl: string;
      };
      expect(apiUrl).toBe(desktop.engine.api.url);
      expect(apiUrl).not.toBe(`http://127.0.0.1:${port}`);
      expect(fake.warnings).toEqual([expect.stringContaining(`port ${port} is in use`)]);
      await quit(fake, desktop);
    } finally {
      taken.close();
    }
  }, 60_000);

  it('with close-to-tray off, closing the window quits', async () => {
    const dataDir = await dataDirWith((settings) => (settings.window.closeToTray = false));
    const { fake, desktop } = await launch(dataDir);
    expect(fake.windows[0]!.close()).toBe(false);
    fake.app.events.fire('window-all-closed');
    await desktop.stopped;
    expect(fake.app.quitted).toBe(true);
  }, 60_000);
});

const databaseEvents = (fake: FakeElectron) =>
  fake.windows[0]!.webContents.sent.filter((m) => m.channel === rpcEventChannel('database.status')).map(
    (m) => m.payload,
  );

describe('a data directory that takes long to open (issue 12)', () => {
  afterAll(() => removeTempDirs());

  it('shows the window and the tray first; the window hears "opening", then "open", and its calls wait', async () => {
    const dataDir = await dataDirWith();
    const bytes = readdirSync(dataDir)
      .filter((name) => name === 'health.sqlite' || isJournalFileName(name))
      .reduce((sum, name) => sum + statSync(join(dataDir, name)).size, 0);
    const fake = fakeElectron({ dataDir, root: ROOT, now });
    const database = slowDatabase(fake);
    const starting = startDesktopApp(fake.deps);
    await database.opening;

    // Everything the user sees exists while the database cannot have opened yet.
    expect(database.opened()).toBe(false);
    expect(fake.windows).toHaveLength(1);
    expect(fake.windows[0]!.loaded).toEqual({ file: join(ROOT, 'out/renderer/index.html'), hash: undefined });
    const tray = fake.trays[0]!;
    expect(tray.tooltip).toBe('Dataset Health · opening the database…');
    expect(tray.menu.map((item) => item.label ?? item.type)).toEqual([
      'Opening the database…',
      'separator',
      'Open Dataset Health',
      'Quit',
    ]);
    expect(await invokeFromWindow(fake, 'database.status')).toEqual({
      result: {
        state: 'opening',
        dataDir,
        opening: { bytes, since: expect.stringMatching(/^\d{4}-/) },
        writeProblem: null,
      },
    });
    expect(bytes).toBeGreaterThan(0);
    // Any other call waits for the engine rather than failing.
    let answered: unknown;
    const keys = invokeFromWindow(fake, 'keys.list').then((answer) => (answered = answer));
    await new Promise((resolve) => setImmediate(resolve));
    expect(answered).toBeUndefined();
    // A second launch meanwhile brings the window forward.
    fake.windows[0]!.hide();
    fake.app.events.fire('second-instance');
    expect(fake.windows[0]!.visible).toBe(true);

    database.release();
    const desktop = (await starting)!;
    expect(await keys).toEqual({ result: [] });
    expect(databaseEvents(fake)).toEqual([{ state: 'open', dataDir, opening: null, writeProblem: null }]);
    expect(await invokeFromWindow(fake, 'database.status')).toEqual({
      result: { state: 'open', dataDir, opening: null, writeProblem: null },
    });
    expect(fake.windows).toHaveLength(1);
    await waitUntil(() => tray.menu.some((item) => item.label === 'Sync now'));
    await quit(fake, desktop);
  }, 60_000);

  it('quitting while it opens waits for it, starts no engine, and saves and releases the folder', async () => {
    const dataDir = await dataDirWith();
    const fake = fakeElectron({ dataDir, root: ROOT, now });
    const database = slowDatabase(fake);
    const starting = startDesktopApp(fake.deps);
    await database.opening;
    fake.app.quit();
    expect(fake.app.quitted).toBe(false);
    database.release();
    expect(await starting).toBeUndefined();
    await waitUntil(() => fake.app.quitted);
    expect(database.opened()).toBe(true);
    expect(fake.trays[0]!.destroyed).toBe(true);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'dataset-health.lock'))).toBe(false);
    const reopened = await Store.open({ dataDir });
    // No engine ran: the built-in demo never synced into it.
    expect(reopened.value('SELECT count(*) FROM datasets')).toBe(0);
    await reopened.close();
  }, 60_000);
});

describe('a disk that refuses the database’s writes (issue 12)', () => {
  afterAll(() => removeTempDirs());

  it('the window and the tray say so while it lasts; quitting meanwhile says what is unsaved and quits', async () => {
    const dataDir = await dataDirWith();
    const fake = fakeElectron({ dataDir, root: ROOT, now });
    const disk = fillableDisk();
    fake.deps.openDatabase = (options) => Store.open({ ...options, openJournal: disk.openJournal });
    const desktop = (await startDesktopApp(fake.deps))!;
    const tray = fake.trays[0]!;
    await waitUntil(() => tray.menu.some((item) => item.label === 'Sync now'));

    await fill(disk, desktop.store);
    await desktop.store.whenIdle(() =>
      desktop.store.transaction(() => ensureOrg(desktop.store, 'acme', now())),
    );
    await expect(desktop.store.flush()).rejects.toThrow(/ENOSPC/);
    const refused = databaseEvents(fake).at(-1) as DatabaseStatus;
    expect(refused.writeProblem?.message).toMatch(/^could not write to .*ENOSPC/);
    await waitUntil(() => tray.tooltip.includes('changes not saved to disk'));
    expect(tray.menu.map((item) => item.label)).toContain('Changes not saved to disk (retrying)');

    fake.app.quit();
    await desktop.stopped;
    expect(fake.app.quitted).toBe(true);
    expect(fake.warnings.at(-1)).toMatch(
      /^Quit with [\d,]+ bytes of committed changes unsaved: the disk still refuses writes to .+\.$/,
    );
    expect(existsSync(join(dataDir, 'dataset-health.lock'))).toBe(false);
    expect(fake.trays[0]!.destroyed).toBe(true);
  }, 60_000);
});
