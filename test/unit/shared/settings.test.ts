/**
 * The desktop habits' settings (issue 27): their defaults (all off, the system's sound), a settings file
 * from before them read with those defaults, and a shortcut the check refuses named by its field.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SETTINGS,
  DEFAULT_SOUNDS,
  type Settings,
  settingsProblem,
  soundsOf,
} from '../../../shared/settings';
import { SettingsError, memorySettings, settingsFile } from '../../../electron/store/tables/settings';

const withShortcut = (globalShortcut: string | null): Settings => ({
  ...structuredClone(DEFAULT_SETTINGS),
  desktop: { globalShortcut, openAtLogin: false },
});

describe('desktop habits settings', () => {
  it('are off by default: no shortcut, not at login, the system sound and a distinct urgent one', () => {
    expect(DEFAULT_SETTINGS.desktop).toEqual({ globalShortcut: null, openAtLogin: false });
    expect(DEFAULT_SETTINGS.notifications.sounds).toBeUndefined();
    expect(soundsOf(DEFAULT_SETTINGS)).toEqual({ notify: 'system', urgent: 'Sosumi' });
    expect(DEFAULT_SOUNDS).toEqual({ notify: 'system', urgent: 'Sosumi' });
  });

  it('a file from before them reads with their defaults, nothing else lost', () => {
    const { desktop: _desktop, ...older } = structuredClone(DEFAULT_SETTINGS);
    delete older.notifications.sounds;
    older.notifications.recoveryNotices = true;
    const file = settingsFile({ path: ':memory:', store: older as Settings });
    const read = file.read();
    expect(read.desktop).toEqual(DEFAULT_SETTINGS.desktop);
    expect(read.notifications.recoveryNotices).toBe(true);
    expect(soundsOf(read)).toEqual(DEFAULT_SOUNDS);
  });

  it('keeps a valid shortcut and a chosen sound', () => {
    const file = memorySettings();
    const next = withShortcut('CommandOrControl+Shift+H');
    next.notifications.sounds = { notify: 'silent', urgent: 'Basso' };
    expect(file.write(next)).toEqual(next);
    expect(file.read()).toEqual(next);
  });

  it('refuses a shortcut Electron would not take, naming the field, and changes nothing', () => {
    const file = memorySettings();
    expect(settingsProblem(withShortcut('Ctrl+Hyper'))).toEqual({
      field: '/desktop/globalShortcut',
      message:
        'Unknown key "Hyper": use a letter, a digit, F1–F24, a sign or a named key (Space, Up, PageDown, …)',
    });
    expect(() => file.write(withShortcut('Ctrl+Hyper'))).toThrow(SettingsError);
    expect(() => file.write(withShortcut('H'))).toThrow(
      'settings/desktop/globalShortcut: Add Control, Alt, Command or Super: "H" alone would be taken from every other app',
    );
    expect(file.read()).toEqual(DEFAULT_SETTINGS);
  });

  it('refuses a sound it does not know', () => {
    const bad = structuredClone(DEFAULT_SETTINGS) as unknown as { notifications: { sounds: object } };
    bad.notifications.sounds = { notify: 'Trumpet', urgent: 'system' };
    expect(() => memorySettings().write(bad)).toThrow(/settings\/notifications\/sounds\/notify/);
  });
});
