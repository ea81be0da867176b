/** Local API keys in settings against the real engine: a new key is shown once; revoking reaches the engine. */
import { describe, expect, it } from 'vitest';
import { ENGINE_ORG } from '../../../helpers/engineClient';
import { button, click, confirm, engineForEachTest, input, mountSettings, section, type } from './harness';

const engine = engineForEachTest();

describe('settings: local API keys', () => {
  it('shows the API address and a curl example with a key placeholder, never a key', async () => {
    const wrapper = await mountSettings(engine.client);
    const api = section(wrapper, 'api');
    expect(api.find('[data-api-url]').text()).toBe('http://127.0.0.1:47800');
    const curl = api.find('[data-curl]').text();
    expect(curl).toContain('Authorization: Bearer <API key>');
    expect(curl).toContain('http://127.0.0.1:47800/v2/ops/health/datasets/deliveries');
    expect(api.text()).toContain('No keys yet');
  });

  it('creates a key for the org the user came from, shows it once, and lists it', async () => {
    const wrapper = await mountSettings(engine.client);
    const api = section(wrapper, 'api');
    await type(input(api, 'Name of the new key'), 'nightly report');
    await click(button('Create key'));

    const [stored] = await engine.client.call('keys.list', null);
    expect(stored).toMatchObject({ orgId: ENGINE_ORG, name: 'nightly report', revokedAt: null });
    const shown = api.find('[data-new-key]').text();
    expect(shown).toMatch(/^dhk_[A-Za-z0-9_-]{43}$/);
    expect(api.find('[data-new-key-alert]').text()).toContain('will not be shown again');
    const row = api.find(`[data-key-id="${stored!.id}"]`);
    expect(row.text()).toContain('nightly report');
    expect(row.text()).toContain(ENGINE_ORG);
    expect(row.find('[data-key-status]').text()).toBe('Active');
    // The name field is ready for the next key.
    expect(input(api, 'Name of the new key').element.value).toBe('');

    await click(button('I have copied it'));
    expect(document.body.textContent).not.toContain(shown);
    expect(api.find(`[data-key-id="${stored!.id}"]`).exists()).toBe(true);
  });

  it('revokes a key after confirmation: the engine records it and the list says so', async () => {
    const { info } = await engine.client.call('keys.create', { orgId: ENGINE_ORG, name: 'old script' });
    const wrapper = await mountSettings(engine.client);
    const api = section(wrapper, 'api');
    expect(api.find(`[data-key-id="${info.id}"] [data-key-status]`).text()).toBe('Active');

    await click(button('Revoke key old script'));
    // Nothing happens before the user confirms.
    expect((await engine.client.call('keys.list', null))[0]!.revokedAt).toBeNull();
    await confirm('Revoke');

    const [revoked] = await engine.client.call('keys.list', null);
    expect(revoked!.revokedAt).not.toBeNull();
    const row = api.find(`[data-key-id="${info.id}"]`);
    expect(row.find('[data-key-status]').attributes('data-key-status')).toBe('revoked');
    expect(row.text()).toContain('Revoked');
    expect(row.findAll('button').some((b) => b.text() === 'Revoke')).toBe(false);
  });
});
