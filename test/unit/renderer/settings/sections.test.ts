/**
 * The settings sections against the real engine: each saves the whole Settings object with only its own
 * part changed, keeps the limits, and says when the command line overrides a value.
 */
import { describe, expect, it } from 'vitest';
import { RpcError, type RpcClient } from '../../../../shared/rpc';
import { DEFAULT_SETTINGS } from '../../../../shared/settings';
import { ENGINE_NOW } from '../../../helpers/engineClient';
import {
  button,
  click,
  input,
  mountSettings,
  section,
  settle,
  switchNamed,
  type,
  withOverridden,
  engineForEachTest,
} from './harness';

const engine = engineForEachTest();

const stored = async () => (await engine.client.call('settings.get', null)).settings;

describe('settings: loading', () => {
  it('shows a spinner while loading, then the sections', async () => {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: RpcClient = {
      on: (name, listener) => engine.client.on(name, listener),
      call: async (name, request) => {
        if (name === 'settings.get') await gate;
        return engine.client.call(name, request);
      },
    };
    const wrapper = await mountSettings(slow);
    expect(wrapper.text()).toContain('Loading settings…');
    expect(wrapper.find('#settings-sources').exists()).toBe(false);
    release();
    await settle();
    expect(wrapper.text()).not.toContain('Loading settings…');
    for (const id of ['sources', 'intervals', 'notifications', 'api', 'data']) {
      expect(wrapper.find(`#settings-${id}`).exists()).toBe(true);
    }
  });

  it("shows the engine's error when settings cannot be loaded, and loads on Try again", async () => {
    let fail = true;
    const flaky: RpcClient = {
      on: (name, listener) => engine.client.on(name, listener),
      call: async (name, request) => {
        if (name === 'settings.get' && fail) throw new RpcError('unavailable', 'the engine is restarting');
        return engine.client.call(name, request);
      },
    };
    const wrapper = await mountSettings(flaky);
    expect(wrapper.text()).toContain('Settings could not be loaded');
    expect(wrapper.text()).toContain('the engine is restarting');
    fail = false;
    await click(button('Try again'));
    expect(wrapper.find('#settings-intervals').exists()).toBe(true);
  });
});

describe('settings: sync intervals', () => {
  it('saves the intervals: the engine has them, and other sections keep their unsaved edits', async () => {
    const wrapper = await mountSettings(engine.client);
    const intervals = section(wrapper, 'intervals');
    const data = section(wrapper, 'data');
    expect(button('Save intervals').disabled).toBe(true);

    // An edit in another section, not saved.
    await type(input(data, 'Deliveries kept per dataset'), '50');
    await type(input(intervals, 'Fast poll interval in seconds'), '300');
    await type(input(intervals, 'Full crawl interval in minutes'), '30');
    await click(button('Save intervals'));

    const settings = await stored();
    expect(settings.intervals).toEqual({ pollSeconds: 300, crawlMinutes: 30 });
    expect(settings.data.retentionDeliveries).toBe(DEFAULT_SETTINGS.data.retentionDeliveries);
    expect(document.body.textContent).toContain('Sync intervals saved');
    expect(button('Save intervals').disabled).toBe(true);
    // The retention edit is still there, still to be saved.
    expect(input(data, 'Deliveries kept per dataset').element.value).toBe('50');
    expect(button('Save retention').disabled).toBe(false);
  });

  it("shows the engine's refusal next to the section and keeps the edit to try again", async () => {
    const refusing: RpcClient = {
      on: (name, listener) => engine.client.on(name, listener),
      call: async (name, request) => {
        if (name === 'settings.save') throw new RpcError('unavailable', 'the database is busy');
        return engine.client.call(name, request);
      },
    };
    const wrapper = await mountSettings(refusing);
    const intervals = section(wrapper, 'intervals');
    await type(input(intervals, 'Fast poll interval in seconds'), '120');
    await click(button('Save intervals'));
    expect(intervals.text()).toContain('Sync intervals not saved');
    expect(intervals.text()).toContain('the database is busy');
    expect((await stored()).intervals.pollSeconds).toBe(DEFAULT_SETTINGS.intervals.pollSeconds);
    expect(input(intervals, 'Fast poll interval in seconds').element.value).toBe('120');
    expect(button('Save intervals').disabled).toBe(false);
  });

  it('keeps values within the limits', async () => {
    const wrapper = await mountSettings(engine.client);
    const intervals = section(wrapper, 'intervals');
    const poll = input(intervals, 'Fast poll interval in seconds');
    await type(poll, '5');
    expect(poll.element.value).toBe('10');
    const crawl = input(intervals, 'Full crawl interval in minutes');
    await type(crawl, '5000');
    expect(crawl.element.value).toBe('1440');
    await click(button('Save intervals'));
    expect((await stored()).intervals).toEqual({ pollSeconds: 10, crawlMinutes: 1440 });
  });

  it('says when the command line sets an interval or the port until restart', async () => {
    const wrapper = await mountSettings(withOverridden(engine.client, ['intervals.pollSeconds', 'api.port']));
    const intervals = section(wrapper, 'intervals').text();
    expect(intervals).toContain('Fast poll: Set on the command line (--poll-seconds)');
    expect(intervals).not.toContain('--crawl-minutes');
    expect(section(wrapper, 'api').text()).toContain('Set on the command line (--port)');
  });
});

describe('settings: local API port', () => {
  it('saves the port, noting it takes effect at the next start', async () => {
    const wrapper = await mountSettings(engine.client);
    const api = section(wrapper, 'api');
    expect(api.text()).toContain('Takes effect at the next start');
    await type(input(api, 'API port'), '48000');
    await click(button('Save port'));
    expect((await stored()).api.port).toBe(48000);
  });
});

describe('settings: notifications', () => {
  it('pauses for 1 h from the clock, then resumes; "until resumed" pauses for good', async () => {
    const wrapper = await mountSettings(engine.client);
    const notifications = section(wrapper, 'notifications');
    expect(notifications.find('[data-pause-state]').text()).toBe('Notifications are on.');

    await click(button('Pause for 1 h'));
    const inAnHour = new Date(ENGINE_NOW.getTime() + 3_600_000).toISOString();
    expect((await stored()).notifications.pausedUntil).toBe(inAnHour);
    expect(notifications.find('[data-pause-state]').text()).toContain('paused until');
    expect(notifications.find('[data-pause-state]').text()).toContain('in 1 hour');

    await click(button('Resume notifications'));
    expect((await stored()).notifications.pausedUntil).toBeNull();
    expect(notifications.find('[data-pause-state]').text()).toBe('Notifications are on.');

    await click(button('Pause until resumed'));
    expect((await stored()).notifications.pausedUntil).toBe('forever');
    expect(notifications.find('[data-pause-state]').text()).toContain('until you resume them');
  });

  it('saves quiet hours and recovery notices (off by default); a malformed time cannot be saved', async () => {
    const wrapper = await mountSettings(engine.client);
    const notifications = section(wrapper, 'notifications');
    expect(switchNamed('Recovery notices').getAttribute('aria-checked')).toBe('false');

    await click(switchNamed('Quiet hours'));
    await type(input(notifications, 'Quiet hours start (HH:MM)'), '23:30');
    await type(input(notifications, 'Quiet hours end (HH:MM)'), '6:00');
    expect(notifications.text()).toContain('Use HH:MM');
    expect(button('Save notification settings').disabled).toBe(true);

    await type(input(notifications, 'Quiet hours end (HH:MM)'), '06:00');
    await click(switchNamed('Recovery notices'));
    await click(button('Save notification settings'));
    expect((await stored()).notifications).toEqual({
      pausedUntil: null,
      quietHours: { enabled: true, start: '23:30', end: '06:00' },
      recoveryNotices: true,
    });
  });
});

describe('settings: close to tray', () => {
  it('is on by default and applies at once when switched, without the form', async () => {
    await mountSettings(engine.client);
    expect(switchNamed('Close to tray').getAttribute('aria-checked')).toBe('true');
    await click(switchNamed('Close to tray'));
    expect((await stored()).window).toEqual({ closeToTray: false });
    expect(switchNamed('Close to tray').getAttribute('aria-checked')).toBe('false');
  });
});

describe('settings: data', () => {
  it('saves the retention and shows the data folder', async () => {
    const wrapper = await mountSettings(engine.client);
    const data = section(wrapper, 'data');
    expect(data.find('[data-data-dir]').text()).toBe(engine.dataDir);
    await type(input(data, 'Deliveries kept per dataset'), '250');
    await click(button('Save retention'));
    expect((await stored()).data.retentionDeliveries).toBe(250);
    expect(document.body.textContent).toContain('Retention saved');
  });
});
