/**
 * The desktop habits (electron/main/habits.ts) against the typed Electron fake: the global shortcut held,
 * changed, released and, when another app holds it, said rather than thrown; login items set only when
 * the setting changes, read back, and not offered where Electron has none (Linux).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DEFAULT_SETTINGS, type Settings } from '../../../shared/settings';
import { DesktopHabits, heardSettings } from '../../../electron/main/habits';
import { memorySettings } from '../../../electron/store/tables/settings';
import { fakeElectron } from '../../helpers/electronFake';

const ROOT = join(import.meta.dirname, '../../..');
const SHORTCUT = 'CommandOrControl+Shift+H';
const OFF: Settings['desktop'] = { globalShortcut: null, openAtLogin: false };

function habits(platform: NodeJS.Platform = 'linux') {
  const electron = fakeElectron({ dataDir: '/nonexistent', root: ROOT, now: () => new Date(0), platform });
  let pressed = 0;
  const made = new DesktopHabits(electron.deps, () => (pressed += 1));
  return { electron, habits: made, pressed: () => pressed };
}

describe('global shortcut', () => {
  it('none by default: nothing registered', () => {
    const { electron, habits: desktop } = habits();
    desktop.start(OFF);
    expect(electron.globalShortcut.calls).toEqual([]);
    expect(desktop.status().globalShortcut).toEqual({ registered: null, problem: null });
  });

  it('holds the saved one from the start; pressing it runs the action; quitting releases it', () => {
    const { electron, habits: desktop, pressed } = habits();
    desktop.start({ globalShortcut: SHORTCUT, openAtLogin: false });
    expect(desktop.status().globalShortcut).toEqual({ registered: SHORTCUT, problem: null });
    electron.globalShortcut.press(SHORTCUT);
    expect(pressed()).toBe(1);
    desktop.stop();
    expect([...electron.globalShortcut.held.keys()]).toEqual([]);
    expect(electron.globalShortcut.calls).toEqual([`register ${SHORTCUT}`, `unregister ${SHORTCUT}`]);
  });

  it('follows a change: the old one released, the new one held; off releases it', () => {
    const { electron, habits: desktop } = habits();
    const first = { globalShortcut: SHORTCUT, openAtLogin: false };
    const second = { globalShortcut: 'Alt+F9', openAtLogin: false };
    desktop.start(first);
    desktop.changed(first, second);
    expect([...electron.globalShortcut.held.keys()]).toEqual(['Alt+F9']);
    desktop.changed(second, second);
    desktop.changed(second, OFF);
    expect([...electron.globalShortcut.held.keys()]).toEqual([]);
    expect(electron.globalShortcut.calls).toEqual([
      `register ${SHORTCUT}`,
      `unregister ${SHORTCUT}`,
      'register Alt+F9',
      'unregister Alt+F9',
    ]);
  });

  it('taken by another app: said in the status and warned, not thrown; tried again at the next write', () => {
    const { electron, habits: desktop } = habits();
    electron.globalShortcut.taken.add(SHORTCUT);
    const wanted = { globalShortcut: SHORTCUT, openAtLogin: false };
    expect(() => desktop.start(wanted)).not.toThrow();
    expect(desktop.status().globalShortcut).toEqual({
      registered: null,
      problem: `${SHORTCUT} is taken by another app or by the system: choose another shortcut.`,
    });
    expect(electron.warnings).toEqual([
      `The global shortcut is off: ${SHORTCUT} is taken by another app or by the system: choose another shortcut.`,
    ]);
    electron.globalShortcut.taken.delete(SHORTCUT);
    desktop.changed(wanted, wanted);
    expect(desktop.status().globalShortcut).toEqual({ registered: SHORTCUT, problem: null });
  });

  it('one the system cannot parse (a hand-edited file): said, not thrown', () => {
    const { electron, habits: desktop } = habits();
    electron.globalShortcut.unparsable.add('Ctrl+Hyper');
    desktop.start({ globalShortcut: 'Ctrl+Hyper', openAtLogin: false });
    expect(desktop.status().globalShortcut).toEqual({
      registered: null,
      problem: 'Ctrl+Hyper is not a shortcut this system takes (conversion failure).',
    });
  });
});

describe('start at login', () => {
  it.each(['darwin', 'win32'] as const)('on %s: set when the setting changes, and read back', (platform) => {
    const { electron, habits: desktop } = habits(platform);
    desktop.start(OFF);
    expect(electron.app.loginItemCalls).toEqual([]);
    const on = { globalShortcut: null, openAtLogin: true };
    desktop.changed(OFF, on);
    expect(electron.app.loginItemCalls).toEqual([{ openAtLogin: true }]);
    expect(desktop.status().openAtLogin).toEqual({ supported: true, enabled: true, needsApproval: false });
    // Another write that leaves it alone does not touch the system's list (the user may have changed it there).
    desktop.changed(on, on);
    desktop.changed(on, OFF);
    expect(electron.app.loginItemCalls).toEqual([{ openAtLogin: true }, { openAtLogin: false }]);
    expect(desktop.status().openAtLogin.enabled).toBe(false);
  });

  it('on macOS, waiting for the user to allow it in System Settings', () => {
    const { electron, habits: desktop } = habits('darwin');
    electron.app.loginItem = { openAtLogin: false, status: 'requires-approval' };
    expect(desktop.status().openAtLogin).toEqual({ supported: true, enabled: false, needsApproval: true });
  });

  it('on Linux: not available, and never asked of Electron', () => {
    const { electron, habits: desktop } = habits('linux');
    desktop.changed(OFF, { globalShortcut: null, openAtLogin: true });
    expect(electron.app.loginItemCalls).toEqual([]);
    expect(desktop.status().openAtLogin).toEqual({ supported: false, enabled: false, needsApproval: false });
  });
});

describe('named sounds', () => {
  it.each([
    ['darwin', true],
    ['win32', false],
    ['linux', false],
  ] as const)('on %s: %s', (platform, named) => {
    expect(habits(platform).habits.status().namedSounds).toBe(named);
  });
});

describe('heardSettings', () => {
  it('tells what a write changed, after it is written; a refused write tells nothing', () => {
    const heard: [string | null, string | null][] = [];
    const file = heardSettings(memorySettings(), (before, after) =>
      heard.push([before.desktop.globalShortcut, after.desktop.globalShortcut]),
    );
    const next = structuredClone(DEFAULT_SETTINGS);
    next.desktop.globalShortcut = SHORTCUT;
    file.write(next);
    expect(heard).toEqual([[null, SHORTCUT]]);
    expect(file.read().desktop.globalShortcut).toBe(SHORTCUT);
    next.desktop.globalShortcut = 'H';
    expect(() => file.write(next)).toThrow(/globalShortcut/);
    expect(heard).toHaveLength(1);
  });
});
