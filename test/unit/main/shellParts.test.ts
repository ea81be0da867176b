/** The shell's smaller parts: icon files, the tray menu's words, safeStorage keys. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { drawIcon } from '../../../electron/main/icons/generate';
import { iconFiles } from '../../../electron/main/icons/files';
import { pngSize } from '../../../electron/main/icons/png';
import { safeStorageSecretKeeper } from '../../../electron/main/secrets';
import { openingMenuTemplate, trayMenuTemplate } from '../../../electron/main/tray';
import { visibleState } from '../../../electron/main/window';
import { NO_OVERDUE, type TrayState } from '../../../electron/alerts/trayState';
import type { Source } from '../../../electron/store/tables/sources';

const ROOT = join(import.meta.dirname, '../../..');

describe('icons', () => {
  it('every tray state has its icon for each OS at 1x and 2x, as `npm run icons` draws them', () => {
    const files = iconFiles();
    expect(files.filter((f) => f.path.includes('Template'))).toHaveLength(8);
    for (const file of files) {
      const bytes = readFileSync(join(ROOT, file.path));
      expect(pngSize(bytes)).toEqual({ width: file.size, height: file.size });
      if (file.size <= 256) expect(bytes.equals(drawIcon(file)), file.path).toBe(true);
    }
  });
});

const state = (overrides: Partial<TrayState> = {}): TrayState => ({
  level: 'failed',
  counts: { FAILED: 12, MISSING: 0, DELIVERED_LATE: 0, HEALTHY: 3, other: 0 },
  snoozed: 0,
  failed: [
    {
      orgId: 'acme',
      datasetId: 'ds-1',
      datasetName: 'Prices & Volumes',
      deliveryId: 'd1',
      acknowledgedBy: null,
      acknowledgedNote: null,
    },
  ],
  failedTotal: 12,
  failedAcknowledged: 0,
  freshness: 'fresh',
  distrust: null,
  syncedAt: null,
  diskProblem: false,
  pausedUntil: null,
  orgId: 'acme',
  overdue: NO_OVERDUE,
  tooltip: 'Dataset Health · 12 FAILED',
  ...overrides,
});

describe('window state', () => {
  const state = { bounds: { x: 3000, y: 200, width: 1000, height: 700 }, maximized: false };
  it('keeps a remembered place that is on a screen, and drops one whose monitor is gone', () => {
    const laptop = [{ workArea: { x: 0, y: 0, width: 1440, height: 900 } }];
    const docked = [...laptop, { workArea: { x: 1440, y: 0, width: 2560, height: 1440 } }];
    expect(visibleState(state, docked)).toEqual(state);
    expect(visibleState(state, laptop)).toEqual({ ...state, bounds: { width: 1000, height: 700 } });
  });
});

describe('tray menu', () => {
  it('lists FAILED datasets (an & stays an &), then one item for the rest, then the actions', () => {
    const opened: unknown[] = [];
    const actions = {
      open: (t?: unknown) => opened.push(t),
      syncNow() {},
      pause() {},
      resume() {},
      quit() {},
    };
    const menu = trayMenuTemplate(state(), actions);
    expect(menu.map((item) => item.label ?? item.type)).toEqual([
      '12 FAILED',
      'Prices && Volumes',
      'All 12 FAILED datasets…',
      'separator',
      'Sync now',
      'Pause notifications',
      'separator',
      'Open Dataset Health',
      'Quit',
    ]);
    (menu[2]!.click as () => void)();
    expect(opened).toEqual([{ view: 'failed', orgId: 'acme' }]);
  });

  it('says when data is not current, and offers Resume while paused', () => {
    const actions = { open() {}, syncNow() {}, pause() {}, resume() {}, quit() {} };
    const menu = trayMenuTemplate(
      state({
        level: 'stale',
        failed: [],
        failedTotal: 0,
        pausedUntil: 'forever',
        distrust: 'sync failing: down',
      }),
      actions,
    );
    expect(menu.slice(0, 2).map((item) => item.label)).toEqual(['Data is not current', 'sync failing: down']);
    const pause = menu.find((item) => item.label === 'Notifications paused')!;
    expect((pause.submenu as { label?: string }[]).map((item) => item.label)[0]).toBe('Resume notifications');
  });

  it('says when changes are not saved to disk, under what it says about the data', () => {
    const actions = { open() {}, syncNow() {}, pause() {}, resume() {}, quit() {} };
    const menu = trayMenuTemplate(state({ diskProblem: true, distrust: 'data is stale' }), actions);
    expect(menu.slice(0, 3).map((item) => [item.label, item.enabled])).toEqual([
      ['12 FAILED', false],
      ['data is stale', false],
      ['Changes not saved to disk (retrying)', false],
    ]);
  });

  it('while the database opens: says so, and offers Open and Quit', () => {
    const done: string[] = [];
    const menu = openingMenuTemplate({ open: () => done.push('open'), quit: () => done.push('quit') });
    expect(menu.map((item) => [item.label ?? item.type, item.enabled])).toEqual([
      ['Opening the database…', false],
      ['separator', undefined],
      ['Open Dataset Health', undefined],
      ['Quit', undefined],
    ]);
    for (const item of menu) (item.click as (() => void) | undefined)?.();
    expect(done).toEqual(['open', 'quit']);
  });
});

describe('safeStorage keys', () => {
  const source = (apiKeySealed: string | null): Source => ({
    id: 'acme',
    orgId: 'acme',
    name: 'Acme',
    baseUrl: 'https://x',
    enabled: true,
    apiKeySealed,
    createdAt: '2026-11-21T00:00:00.000Z',
  });
  const storage = (backend: 'gnome_libsecret' | 'basic_text') => ({
    isEncryptionAvailable: () => true,
    encryptString: (plain: string) => Buffer.from([...plain].reverse().join('')),
    decryptString: (sealed: Buffer) => [...sealed.toString()].reverse().join(''),
    getSelectedStorageBackend: () => backend,
  });

  it('seals and opens keys with the OS keychain', () => {
    const secrets = safeStorageSecretKeeper(storage('gnome_libsecret'), {}, 'linux');
    const sealed = secrets.seal!('remote-key-123');
    expect(sealed).not.toContain('remote-key-123');
    expect(secrets.apiKeyFor(source(sealed))).toBe('remote-key-123');
    expect(secrets.apiKeyFor(source('garbage'))).toBeNull();
  });

  it('refuses to store keys without a real keychain (Linux basic_text) and reads them from the environment', () => {
    const secrets = safeStorageSecretKeeper(
      storage('basic_text'),
      { DATASET_HEALTH_REMOTE_KEY_ACME: 'env-key' },
      'linux',
    );
    expect(secrets.seal).toBeUndefined();
    expect(secrets.hint).toMatch(/no keychain/);
    expect(secrets.apiKeyFor(source(null))).toBe('env-key');
  });
});
