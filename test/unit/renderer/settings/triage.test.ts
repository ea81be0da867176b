/**
 * Settings → Triage against the real engine: the acknowledger's name (placeholder: the OS user the
 * engine names) and the reminder interval, saved alone; bad values get a message and are never saved.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../../shared/settings';
import { button, click, engineForEachTest, input, mountSettings, section, type } from './harness';

const engine = engineForEachTest();
const stored = async () => (await engine.client.call('settings.get', null)).settings;

describe('settings: triage', () => {
  it('shows the OS user as the placeholder and saves the name and reminder minutes alone', async () => {
    const wrapper = await mountSettings(engine.client);
    const triage = section(wrapper, 'triage');
    const { osUserName } = await engine.client.call('settings.get', null);
    expect(osUserName).not.toBe('');
    const name = input(triage, 'Your name for acknowledgements');
    expect(name.attributes('placeholder')).toBe(osUserName);
    expect(triage.text()).toContain(`your user name on this computer, ${osUserName}`);
    expect(input(triage, 'Reminder interval in minutes').element.value).toBe('30');
    expect(button('Save triage settings').disabled).toBe(true);

    await type(input(section(wrapper, 'data'), 'Deliveries kept per dataset'), '50');
    await type(name, 'sam');
    await type(input(triage, 'Reminder interval in minutes'), '0');
    await click(button('Save triage settings'));

    const settings = await stored();
    expect(settings.triage).toEqual({ name: 'sam', reminderMinutes: 0, incidentGapHours: 6 });
    // The other section's edit was not saved with it.
    expect(settings.data).toEqual(DEFAULT_SETTINGS.data);
    expect(button('Save triage settings').disabled).toBe(true);
  });

  it('saves the incident gap; a gap outside 1 to 72 hours is refused with a message', async () => {
    const wrapper = await mountSettings(engine.client);
    const triage = section(wrapper, 'triage');
    expect(input(triage, 'Incident gap in hours').element.value).toBe('6');
    await type(input(triage, 'Incident gap in hours'), '73');
    expect(triage.text()).toContain('Enter 1 to 72 hours.');
    expect(button('Save triage settings').disabled).toBe(true);
    await type(input(triage, 'Incident gap in hours'), '2');
    await click(button('Save triage settings'));
    expect((await stored()).triage.incidentGapHours).toBe(2);
  });

  it.each([
    ['1441', 'Enter 0 to 1440 minutes (0 = never remind; at most a day).'],
    ['-5', 'Enter 0 to 1440 minutes (0 = never remind; at most a day).'],
    ['2.5', 'Enter whole minutes.'],
    ['', 'Enter a number of minutes (0 = never remind).'],
  ])('refuses %j minutes with a message, saving nothing', async (text, message) => {
    const wrapper = await mountSettings(engine.client);
    const triage = section(wrapper, 'triage');
    await type(input(triage, 'Reminder interval in minutes'), text);
    expect(triage.text()).toContain(message);
    expect(button('Save triage settings').disabled).toBe(true);
    expect((await stored()).triage).toEqual(DEFAULT_SETTINGS.triage);
    await click(button('Discard changes'));
    expect(triage.text()).not.toContain(message);
    expect(input(triage, 'Reminder interval in minutes').element.value).toBe('30');
  });

  it('refuses a name too long or with control characters, with a message', async () => {
    const wrapper = await mountSettings(engine.client);
    const triage = section(wrapper, 'triage');
    await type(input(triage, 'Your name for acknowledgements'), 'x'.repeat(101));
    expect(triage.text()).toContain('The name may be at most 100 characters.');
    expect(button('Save triage settings').disabled).toBe(true);
    await type(input(triage, 'Your name for acknowledgements'), 'sam\tlee');
    expect(triage.text()).toContain('The name cannot hold control characters');
    expect(button('Save triage settings').disabled).toBe(true);
    await type(input(triage, 'Your name for acknowledgements'), 'sam lee');
    expect(button('Save triage settings').disabled).toBe(false);
  });
});
