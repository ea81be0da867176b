/**
 * The desktop habits in Settings (issue 27) against the real engine: the global shortcut checked as
 * typed with the engine's own words, saved, and what the desktop app's system answered (a shortcut
 * another app holds, with Try again; no login items on Linux); the sounds of the notification form.
 */
import { describe, expect, it } from 'vitest';
import type { RpcCall, RpcClient, RpcRequest, RpcResponse } from '../../../../shared/rpc';
import type { DesktopStatus, SettingsView } from '../../../../shared/views';
import {
  button,
  click,
  engineForEachTest,
  input,
  mountSettings,
  section,
  settle,
  switchNamed,
  type,
} from './harness';

const engine = engineForEachTest();
const SHORTCUT_FIELD = 'Global shortcut (Electron accelerator)';

const stored = async () => (await engine.client.call('settings.get', null)).settings;

const held = (registered: string | null, problem: string | null = null): DesktopStatus => ({
  globalShortcut: { registered, problem },
  openAtLogin: { supported: false, enabled: false, needsApproval: false },
  namedSounds: false,
});

/** The engine's answers as the desktop app gives them: with what its system answered (`status`). */
function asDesktop(client: RpcClient, status: () => DesktopStatus, saves: unknown[] = []): RpcClient {
  return {
    on: (name, listener) => client.on(name, listener),
    async call<C extends RpcCall>(name: C, request: RpcRequest<C>): Promise<RpcResponse<C>> {
      if (name === 'settings.save') saves.push(request);
      const answer = await client.call(name, request);
      if (name !== 'settings.get' && name !== 'settings.save') return answer;
      return { ...(answer as SettingsView), desktop: status() } as RpcResponse<C>;
    },
  };
}

describe('settings: desktop', () => {
  it('checks the shortcut as typed, saves a valid one, and empty is none', async () => {
    const wrapper = await mountSettings(engine.client);
    const desktop = section(wrapper, 'desktop');
    expect(input(desktop, SHORTCUT_FIELD).element.value).toBe('');
    expect(desktop.find('[data-shortcut-state]').text()).toBe('Applies in the desktop app.');

    await type(input(desktop, SHORTCUT_FIELD), 'Shift+H');
    expect(desktop.text()).toContain(
      'Add Control, Alt, Command or Super: "H" alone would be taken from every other app',
    );
    expect(input(desktop, SHORTCUT_FIELD).attributes('aria-invalid')).toBe('true');
    expect(button('Save desktop settings').disabled).toBe(true);

    await type(input(desktop, SHORTCUT_FIELD), 'CommandOrControl+Shift+H');
    expect(input(desktop, SHORTCUT_FIELD).attributes('aria-invalid')).toBe('false');
    await click(switchNamed('Start at login'));
    await click(button('Save desktop settings'));
    expect((await stored()).desktop).toEqual({
      globalShortcut: 'CommandOrControl+Shift+H',
      openAtLogin: true,
    });
    expect(document.body.textContent).toContain('Desktop settings saved');

    await type(input(desktop, SHORTCUT_FIELD), '');
    await click(button('Save desktop settings'));
    expect((await stored()).desktop.globalShortcut).toBeNull();
  });

  it('says when another app holds the shortcut, and Try again asks the system again', async () => {
    let status = held(null, 'Alt+F9 is taken by another app or by the system: choose another shortcut.');
    const saves: unknown[] = [];
    const wrapper = await mountSettings(asDesktop(engine.client, () => status, saves));
    const desktop = section(wrapper, 'desktop');
    expect(desktop.text()).toContain('The shortcut is not active');
    expect(desktop.text()).toContain('Alt+F9 is taken by another app');
    status = held('Alt+F9');
    await click(button('Try again'));
    expect(saves).toHaveLength(1);
    expect(desktop.text()).not.toContain('The shortcut is not active');
    expect(desktop.find('[data-shortcut-state]').text()).toBe('Active: Alt+F9.');
    expect(document.body.textContent).toContain('The shortcut works now');
  });

  it('on a system without login items (Linux) says so, and the switch cannot be turned', async () => {
    const wrapper = await mountSettings(asDesktop(engine.client, () => held(null)));
    const desktop = section(wrapper, 'desktop');
    expect(switchNamed('Start at login').classList.contains('n-switch--disabled')).toBe(true);
    expect(desktop.find('[data-login-note]').text()).toContain('Not available on this system');
  });

  it('on macOS, says when the system waits for the user to allow it', async () => {
    const status: DesktopStatus = {
      ...held(null),
      openAtLogin: { supported: true, enabled: false, needsApproval: true },
      namedSounds: true,
    };
    const wrapper = await mountSettings(asDesktop(engine.client, () => status));
    expect(section(wrapper, 'desktop').find('[data-login-note]').text()).toBe(
      'macOS waits for you to allow it: System Settings → General → Login Items.',
    );
    // Named sounds play there: no note about them.
    expect(section(wrapper, 'notifications').find('[data-sound-note]').exists()).toBe(false);
  });
});

describe('settings: sounds', () => {
  it('shows the defaults (the system sound; Sosumi when urgent) and says where named sounds play', async () => {
    const wrapper = await mountSettings(asDesktop(engine.client, () => held(null)));
    const notifications = section(wrapper, 'notifications');
    const shown = notifications.findAll('.n-base-selection').map((selection) => selection.text());
    expect(shown).toEqual(['System sound', 'Sosumi (macOS)']);
    expect(notifications.find('[data-sound-note]').text()).toContain(
      'Named sounds play on macOS; on this system a named sound is the system’s notification sound.',
    );
  });

  it('saves a chosen sound with the notification settings', async () => {
    const wrapper = await mountSettings(engine.client);
    const notifications = section(wrapper, 'notifications');
    await click(notifications.findAll<HTMLElement>('.n-base-selection')[1]!.element);
    const silent = [...document.body.querySelectorAll<HTMLElement>('.n-base-select-option')].find(
      (option) => option.textContent?.trim() === 'Silent',
    );
    expect(silent).toBeDefined();
    await click(silent!);
    await settle();
    await click(button('Save notification settings'));
    expect((await stored()).notifications.sounds).toEqual({ notify: 'system', urgent: 'silent' });
  });
});
