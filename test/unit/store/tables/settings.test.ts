/**
 * The settings file (`<dataDir>/settings.json` through conf, as electron-store opens it in the app):
 * checked writes, migrations from the database, and a file the schema refuses moved aside, not lost.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SETTINGS } from '../../../../shared/settings';
import { Store } from '../../../../electron/store/database';
import {
  SettingsError,
  memorySettings,
  openHeadlessSettings,
} from '../../../../electron/store/tables/settings';

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const NOW = () => new Date('2026-11-21T12:00:00.000Z');

async function dataDir(): Promise<{ dir: string; store: Store }> {
  const dir = mkdtempSync(join(tmpdir(), 'dh-settings-'));
  dirs.push(dir);
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  return { dir, store };
}

describe('settings file', () => {
  it('starts from the defaults and keeps what is written, owner-only', async () => {
    const { dir, store } = await dataDir();
    const file = openHeadlessSettings(dir, store, NOW);
    expect(file.path).toBe(join(dir, 'settings.json'));
    expect(file.read()).toEqual(DEFAULT_SETTINGS);
    const changed = structuredClone(DEFAULT_SETTINGS);
    changed.notifications.quietHours = { enabled: true, start: '23:00', end: '06:30' };
    file.write(changed);
    expect(openHeadlessSettings(dir, store, NOW).read()).toEqual(changed);
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
  });

  it('refuses a value the schema does not allow, naming it, and changes nothing', async () => {
    const { dir, store } = await dataDir();
    const file = openHeadlessSettings(dir, store, NOW);
    const bad = structuredClone(DEFAULT_SETTINGS) as unknown as { intervals: { pollSeconds: number } };
    bad.intervals.pollSeconds = 1;
    expect(() => file.write(bad)).toThrow(SettingsError);
    expect(() => file.write(bad)).toThrow(/settings\/intervals\/pollSeconds/);
    expect(file.read()).toEqual(DEFAULT_SETTINGS);
    expect(() => memorySettings().write({ extra: true })).toThrow(SettingsError);
  });

  it.each(['0000-01-01T00:00:00+01:00', '9999-12-31T23:30:00-01:00'])(
    'refuses a pause until %s, a time outside years 0000–9999 in UTC, naming the field',
    async (until) => {
      const { dir, store } = await dataDir();
      const file = openHeadlessSettings(dir, store, NOW);
      const bad = structuredClone(DEFAULT_SETTINGS);
      bad.notifications.pausedUntil = until;
      expect(() => file.write(bad)).toThrow(
        `settings/notifications/pausedUntil: '${until}' is outside the times this app keeps (from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z in UTC)`,
      );
      expect(file.read()).toEqual(DEFAULT_SETTINGS);
      // The edges themselves are times like any other.
      const edge = structuredClone(DEFAULT_SETTINGS);
      edge.notifications.pausedUntil = '9999-12-31T23:59:59Z';
      expect(file.write(edge).notifications.pausedUntil).toBe('9999-12-31T23:59:59Z');
    },
  );

  it('takes over the settings an earlier version kept in the database, once', async () => {
    const { dir, store } = await dataDir();
    const old = structuredClone(DEFAULT_SETTINGS);
    old.intervals.pollSeconds = 120;
    store.run("INSERT INTO meta (key, value) VALUES ('settings', ?)", [JSON.stringify(old)]);
    expect(openHeadlessSettings(dir, store, NOW).read()).toEqual(old);
    expect(store.value("SELECT value FROM meta WHERE key = 'settings'")).toBeUndefined();
    const written = JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    expect(written.__internal__).toEqual({ migrations: { version: '0.2.0' } });
  });

  it('moves a file the schema refuses aside and starts from the defaults', async () => {
    const { dir, store } = await dataDir();
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ intervals: { pollSeconds: 'often' } }));
    const moved: string[] = [];
    const file = openHeadlessSettings(dir, store, NOW, (to) => moved.push(to));
    expect(file.read()).toEqual(DEFAULT_SETTINGS);
    expect(moved).toEqual([join(dir, 'settings.json.invalid-2026-11-21T12-00-00-000Z')]);
    expect(readdirSync(dir).sort()).toEqual([
      'settings.json',
      'settings.json.invalid-2026-11-21T12-00-00-000Z',
    ]);
    // A hand edit while running: the defaults until it is fixed.
    writeFileSync(file.path, '{ not json');
    expect(file.read()).toEqual(DEFAULT_SETTINGS);
  });
});
