/**
 * The desktop app as a whole: the BUILT main bundle (`out/main/index.js`, with its preload and page)
 * runs under plain Node with only `electron` replaced by a recording fake (appProcess.ts); the real
 * electron-store, sql.js, Fastify and the built-in demo remote do the rest. What the fake records is
 * what Electron would have been asked to do. The in-process tests (test/unit/main) cover the shell's
 * branches; this one covers what they cannot: wiring, bundling, and real library behaviour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { execFile } from 'node:child_process';
import { Agent, get } from 'node:http';
import { join } from 'node:path';
import { SECURE_WEB_PREFERENCES } from '../../../electron/main/window';
import { rpcCallChannel, rpcEventChannel } from '../../../electron/preload/channels';
import { Store } from '../../../electron/store/database';
import type { FakeRecord } from '../../helpers/fakeElectronModule';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { queryImage } from '../../helpers/databaseFiles';
import { AppProcess, type CompiledFake, ROOT, compileFakeElectron, killApps } from './appProcess';

const NAVIGATE = rpcEventChannel('app.navigate');
const DELIVERY_PATH = /^\/orgs\/live-demo\/datasets\/([^/]+)\/deliveries\/([^/]+)$/;
/** Where the user leaves the window before quitting (on the fake's one 1920×1080 screen). */
const MOVED = { x: 150, y: 120, width: 1111, height: 777 };

interface MenuItem {
  label?: string;
  enabled?: boolean;
  submenu?: MenuItem[];
}
const options = (record: FakeRecord) => record.options as Record<string, unknown>;
const labels = (menu: MenuItem[]): string[] =>
  menu.flatMap((item) => [item.label ?? '', ...labels(item.submenu ?? [])]).filter(Boolean);
const navigations = (app: AppProcess): string[] =>
  app
    .of('webContents.send')
    .filter((r) => r.channel === NAVIGATE)
    .map((r) => ((r.args as [{ path: string }])[0] ?? { path: '' }).path);
const isSingleFailure = (record: FakeRecord) =>
  record.type === 'Notification.new' && String(options(record).title).startsWith('FAILED: ');

/** The built CLI (`bin/dataset-health.js` → out/main/cli.js) as a separate process, as a user runs it. */
function builtCli(
  args: string[],
  dataDir: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin/dataset-health.js'), ...args, '--data-dir', dataDir],
      { cwd: work },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let fake: CompiledFake;
let work: string;
let launches = 0;

function launch(dataDir: string): AppProcess {
  launches += 1;
  return new AppProcess(
    fake,
    join(work, `records-${launches}.ndjson`),
    { DATASET_HEALTH_DATA_DIR: dataDir },
    work,
  );
}

beforeAll(async () => {
  work = tempDir('dh-app-');
  fake = await compileFakeElectron(join(work, 'fake-electron'));
});
afterAll(() => {
  killApps();
  removeTempDirs();
});

describe('the built app on an empty data directory, then again on the same one', () => {
  let dataDir: string;
  let first: AppProcess;
  let page: string;
  /** The delivery whose notification was clicked. */
  let clicked: { datasetId: string; deliveryId: string };
  let apiUrl: string;
  /** A script's keep-alive connection to the local API, open until the app quits. */
  const keepAlive = new Agent({ keepAlive: true });
  afterAll(() => keepAlive.destroy());

  beforeAll(() => {
    dataDir = join(work, 'data');
    mkdirSync(dataDir);
    first = launch(dataDir);
  });

  it('asks for the single-instance lock first, then makes one window, secure, with the built preload and page', async () => {
    const made = await first.waitFor('the window', (r) => r.type === 'BrowserWindow.new');
    expect(first.records()[0]!.type).toBe('app.requestSingleInstanceLock');
    const { webPreferences } = options(made) as { webPreferences: Record<string, unknown> };
    expect(webPreferences).toEqual({ ...SECURE_WEB_PREFERENCES, preload: expect.any(String) });
    expect(webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    // The paths the bundle resolves are files that exist.
    expect(existsSync(webPreferences.preload as string)).toBe(true);
    const loaded = await first.waitFor('the page', (r) => r.type === 'window.loadFile');
    expect(loaded.file).toBe(join(ROOT, 'out/renderer/index.html'));
    expect(existsSync(loaded.file as string)).toBe(true);
    expect(existsSync(options(made).icon as string)).toBe(true);
    page = `file://${loaded.file as string}`;
    await first.waitFor('shown when ready', (r) => r.type === 'window.show');
    expect(first.of('BrowserWindow.new')).toHaveLength(1);
  });

  it('installs the deny handlers, and they refuse new windows, navigation away, webviews and permissions', async () => {
    const installed = first
      .records()
      .map((r) => (r.type === 'webContents.on' ? `on:${String(r.event)}` : r.type));
    expect(installed).toEqual(
      expect.arrayContaining([
        'webContents.setWindowOpenHandler',
        'on:will-navigate',
        'on:will-redirect',
        'on:will-attach-webview',
        'session.setPermissionRequestHandler',
        'session.setPermissionCheckHandler',
      ]),
    );
    expect(await first.command('window.probe', { page })).toEqual({
      opened: [{ action: 'deny' }, { action: 'deny' }, { action: 'deny' }],
      navigateAwayPrevented: true,
      redirectAwayPrevented: true,
      ownPagePrevented: false,
      webviewPrevented: true,
      mediaGranted: false,
      notificationsChecked: false,
    });
    // Refused https links open in the browser; nothing else does.
    expect(first.of('shell.openExternal').map((r) => r.url)).toEqual([
      'https://example.com/runbook',
      'https://evil.example/',
    ]);
  });

  it('has a tray with an icon, a tooltip and a menu', async () => {
    const tray = await first.waitFor('the tray', (r) => r.type === 'Tray.new');
    expect(existsSync(tray.image as string)).toBe(true);
    // First what works while the database opens, then the engine's menu.
    const menus = () => first.of('tray.setContextMenu').map((r) => labels(r.menu as MenuItem[]));
    await first.waitFor('the tray menu', (r) => r.type === 'tray.setContextMenu');
    expect(menus()[0]).toEqual(['Opening the database…', 'Open Dataset Health', 'Quit']);
    const menu = await first.waitFor(
      "the engine's tray menu",
      (r) => r.type === 'tray.setContextMenu' && labels(r.menu as MenuItem[]).includes('Sync now'),
    );
    expect(labels(menu.menu as MenuItem[])).toEqual(
      expect.arrayContaining(['Sync now', 'Pause notifications', 'Open Dataset Health', 'Quit']),
    );
    expect(first.of('tray.setToolTip').at(-1)!.toolTip).toMatch(/^Dataset Health/);
  });

  it('made the window and the tray before the database was open: the window heard "open" after both', async () => {
    const opened = await first.waitFor(
      'the database opened',
      (r) => r.type === 'webContents.send' && r.channel === rpcEventChannel('database.status'),
    );
    expect(opened.args).toEqual([{ state: 'open', dataDir, opening: null, writeProblem: null }]);
    const seq = (type: string) => first.records().find((r) => r.type === type)!.seq;
    expect(seq('BrowserWindow.new')).toBeLessThan(opened.seq);
    expect(seq('Tray.new')).toBeLessThan(opened.seq);
    // Until then the tray said what the app was doing.
    expect(first.of('tray.setToolTip')[0]!.toolTip).toBe('Dataset Health · opening the database…');
    expect(
      await first.command('ipc.invoke', { channel: rpcCallChannel('database.status'), args: [null] }),
    ).toEqual({ result: { state: 'open', dataDir, opening: null, writeProblem: null } });
  });

  it('syncs the built-in demo: a first-sync summary, the tray showing the statuses, runtime.json', async () => {
    const summary = await first.waitFor(
      'the first sync',
      (r) => r.type === 'Notification.new' && /FAILED$/.test(String(options(r).title)),
    );
    expect(String(options(summary).body)).toMatch(/^First sync of live-demo/);
    await first.waitFor('a tray icon for the statuses', (r) =>
      /tray-(failed|warning|healthy)\.png$/.test(String(r.type === 'tray.setImage' ? r.image : '')),
    );
    expect(first.of('tray.setToolTip').at(-1)!.toolTip).toMatch(/synced/);
    const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as { apiUrl: string };
    apiUrl = runtime.apiUrl;
    // As a script would: a keep-alive connection, left open until the app quits (it must not hold Quit up).
    const status = await new Promise<number | undefined>((resolve, reject) =>
      get(`${runtime.apiUrl}/v2/openapi.json`, { agent: keepAlive }, (response) => {
        response.resume();
        resolve(response.statusCode);
      }).on('error', reject),
    );
    expect(status).toBe(200);
  });

  it('the CLI works beside the running app: the built CLI hands keys create to it, and the key works at once', async () => {
    const created = await builtCli(
      ['keys', 'create', '--org', 'live-demo', '--name', 'beside-the-app'],
      dataDir,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^dhk_[A-Za-z0-9_-]{43}\n$/);
    expect(created.stderr).toMatch(/^Created key key_\w+ \('beside-the-app'\) for org live-demo\./);
    const answer = await fetch(`${apiUrl}/v2/ops/health/datasets/deliveries?pageSize=1`, {
      headers: { authorization: `Bearer ${created.stdout.trim()}` },
    });
    expect(answer.status).toBe(200);
    const ui = await builtCli(['ui'], dataDir);
    expect(ui.code).toBe(1);
    expect(ui.stderr).toMatch(/the running app \(process \d+\) has no web UI/);
  });

  it('notifies a dataset newly FAILED within two minutes; clicking it opens its delivery in the window', async () => {
    const newly = await first.waitFor('a newly FAILED dataset', isSingleFailure, 120_000);
    expect(newly.t).toBeLessThan(120_000);
    expect(options(newly).body).toMatch(/^(Ingest|Normalize|Process|Dispatch) failed: /);
    await first.command('notification.click', { index: (newly.notification as number) - 1 });
    const path = navigations(first).at(-1) ?? '';
    expect(path).toMatch(DELIVERY_PATH);
    const [, datasetId, deliveryId] = DELIVERY_PATH.exec(path)!;
    clicked = { datasetId: decodeURIComponent(datasetId!), deliveryId: decodeURIComponent(deliveryId!) };
    expect(
      first.records().filter((r) => r.type === 'window.show' || r.type === 'window.focus').length,
    ).toBeGreaterThan(1);
  }, 150_000);

  it('quitting from the tray remembers the window, persists the store and removes runtime.json', async () => {
    await first.command('window.setBounds', { bounds: MOVED });
    // A script's open keep-alive connection must not hold Quit up.
    expect(Object.keys(keepAlive.freeSockets).length + Object.keys(keepAlive.sockets).length).toBe(1);
    expect(await first.quitFromTray()).toBe(0);
    expect(first.of('app.exit')).toEqual([]);
    // Quitting closed the window, which saved where it was.
    expect(first.of('window.close')).toMatchObject([{ kept: false }]);
    expect(first.of('tray.destroy')).toHaveLength(1);
    expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);
    expect(existsSync(join(dataDir, 'dataset-health.lock'))).toBe(false);
    expect(JSON.parse(readFileSync(join(dataDir, 'window-state.json'), 'utf8'))).toMatchObject({
      window: { bounds: MOVED, maximized: false },
    });
    expect(readdirSync(dataDir)).not.toContain('config.json');
    // Quitting left health.sqlite current: SQLite reads the mirror from its bytes alone, no journal.
    expect(await queryImage(dataDir, "SELECT count(*) FROM datasets WHERE org_id = 'live-demo'")).toEqual([
      [500],
    ]);
    const store = await Store.open({ dataDir });
    try {
      expect(store.value("SELECT count(*) FROM datasets WHERE org_id = 'live-demo'")).toBe(500);
      expect(
        store.value('SELECT count(*) FROM announced_deliveries WHERE delivery_id = ? AND dataset_id = ?', [
          clicked.deliveryId,
          clicked.datasetId,
        ]),
      ).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('a second launch keeps the window where it was and announces nothing twice', async () => {
    const store = await Store.open({ dataDir });
    const announced = new Set(store.column<string>('SELECT delivery_id FROM announced_deliveries'));
    await store.close();

    const second = launch(dataDir);
    try {
      const made = await second.waitFor('the window', (r) => r.type === 'BrowserWindow.new');
      expect(options(made)).toMatchObject(MOVED);
      // Two sync cycles after the first (the demo polls every 10 s): what they found is what is new.
      const synced = (r: FakeRecord) => r.type === 'tray.setToolTip' && /synced/.test(String(r.toolTip));
      await second.waitFor('a sync', synced);
      await new Promise((resolve) => setTimeout(resolve, 21_000));
      const notified = second.of('Notification.new');
      // No first-sync summary again, and no single failure already announced.
      expect(notified.map((r) => String(options(r).body))).not.toContainEqual(
        expect.stringMatching(/^First sync/),
      );
      for (const notification of second.records().filter(isSingleFailure)) {
        await second.command('notification.click', { index: (notification.notification as number) - 1 });
        const [, , deliveryId] = DELIVERY_PATH.exec(navigations(second).at(-1) ?? '') ?? [];
        expect(announced.has(decodeURIComponent(deliveryId ?? '')), String(options(notification).title)).toBe(
          false,
        );
      }
      expect(await second.quitFromTray()).toBe(0);
    } finally {
      second.child.kill('SIGKILL');
    }
    // Not for want of occasions: datasets synced FAILED again by this run, on deliveries announced before.
    const after = await Store.open({ dataDir });
    try {
      const failedAgain = after
        .column<string>("SELECT delivery_id FROM datasets WHERE org_id = 'live-demo' AND status = 'FAILED'")
        .filter((id) => announced.has(id));
      expect(failedAgain.length).toBeGreaterThan(0);
    } finally {
      await after.close();
    }
  }, 60_000);
});

describe('the built app with a corrupt settings.json and window-state.json', () => {
  it('starts: both are moved aside and the defaults used', async () => {
    const dataDir = join(work, 'corrupt');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'settings.json'), '{ "api": { "port": 0 }, not json');
    writeFileSync(join(dataDir, 'window-state.json'), JSON.stringify({ window: { closeToTray: true } }));
    const app = launch(dataDir);
    try {
      const made = await app.waitFor('the window', (r) => r.type === 'BrowserWindow.new');
      expect(options(made)).toMatchObject({ width: 1280, height: 800 });
      expect(options(made).x).toBeUndefined();
      // The settings are opened with the database, after the window.
      await app.waitFor(
        'the database opened',
        (r) => r.type === 'webContents.send' && r.channel === rpcEventChannel('database.status'),
      );
      const moved = readdirSync(dataDir).filter((name) => name.includes('.invalid-'));
      expect(moved.map((name) => name.replace(/-[\dTZ-]+$/, ''))).toEqual([
        'settings.json.invalid',
        'window-state.json.invalid',
      ]);
      expect(app.output).toMatch(/settings file was not valid/);
      expect(app.output).toMatch(/window state file was not valid/);
      expect(await app.quitFromTray()).toBe(0);
    } finally {
      app.child.kill('SIGKILL');
    }
  }, 60_000);
});
