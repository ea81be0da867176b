/**
 * Sources in settings against the real engine (headless: it cannot store remote keys): the key field
 * explains where keys come from, the engine's validation lands at the field it is about, and adding,
 * editing, testing and removing reach the engine.
 */
import type { DOMWrapper } from '@vue/test-utils';
import { describe, expect, it } from 'vitest';
import type { RpcRequest } from '../../../../shared/rpc';
import { ENGINE_ORG } from '../../../helpers/engineClient';
import {
  button,
  click,
  confirm,
  input,
  mountSettings,
  section,
  switchNamed,
  type,
  engineForEachTest,
} from './harness';

const engine = engineForEachTest();

/** The feedback under the form field the input belongs to. */
function feedbackOf(field: DOMWrapper<HTMLInputElement>): string {
  const item = field.element.closest('.n-form-item');
  return item?.querySelector('.n-form-item-feedback-wrapper')?.textContent?.trim() ?? '';
}

async function fill(sources: DOMWrapper<Element>, values: { name: string; orgId: string; baseUrl: string }) {
  await type(input(sources, 'Source name'), values.name);
  await type(input(sources, 'Local org id'), values.orgId);
  await type(input(sources, 'Remote base URL'), values.baseUrl);
}

const NEW_SOURCE = { id: null, orgId: 'remote', name: 'Remote', enabled: true, apiKey: null } as const;

describe('settings: sources', () => {
  it('says there are no sources yet, and headless explains where keys come from with the key field disabled', async () => {
    const { keys } = await engine.client.call('settings.get', null);
    expect(keys.canStore).toBe(false);
    const wrapper = await mountSettings(engine.client);
    const sources = section(wrapper, 'sources');
    expect(sources.text()).toContain('No sources yet');

    await click(button('Add source'));
    const key = input(sources, 'Remote API key');
    expect(key.element.disabled).toBe(true);
    expect(key.attributes('type')).toBe('password');
    expect(sources.find('[data-key-hint]').text()).toContain(keys.hint);
  });

  it("shows the engine's message for an invalid base URL at that field, and saves nothing", async () => {
    const wrapper = await mountSettings(engine.client);
    const sources = section(wrapper, 'sources');
    await click(button('Add source'));
    await fill(sources, { name: 'Remote', orgId: 'remote', baseUrl: 'not a url' });
    await click(button('Add source'));

    const baseUrl = input(sources, 'Remote base URL');
    expect(feedbackOf(baseUrl)).toBe("'not a url' is not a URL (expected e.g. https://health.example.com)");
    expect(baseUrl.attributes('aria-invalid')).toBe('true');
    expect(await engine.client.call('sources.list', null)).toEqual([]);

    // Plain http to another machine is refused too, with the engine's reason.
    await type(baseUrl, 'http://health.example.com');
    await click(button('Add source'));
    expect(feedbackOf(baseUrl)).toContain('use https');
    expect(await engine.client.call('sources.list', null)).toEqual([]);
  });

  it("shows the engine's message about an org already mirrored at the org field", async () => {
    await engine.client.call('sources.save', {
      ...NEW_SOURCE,
      orgId: ENGINE_ORG,
      baseUrl: 'https://a.example.com',
    });
    const wrapper = await mountSettings(engine.client);
    const sources = section(wrapper, 'sources');
    await click(button('Add source'));
    await fill(sources, { name: 'Second', orgId: ENGINE_ORG, baseUrl: 'https://b.example.com' });
    await click(button('Add source'));
    expect(feedbackOf(input(sources, 'Local org id'))).toMatch(/org 'acme' is already mirrored by source/);
  });

  it('asks for the required fields before calling the engine', async () => {
    const wrapper = await mountSettings(engine.client);
    const sources = section(wrapper, 'sources');
    await click(button('Add source'));
    const before = engine.calls.length;
    await click(button('Add source'));
    expect(feedbackOf(input(sources, 'Source name'))).toBe('Give the source a name');
    expect(feedbackOf(input(sources, 'Remote base URL'))).toContain('Give the remote base URL');
    expect(engine.calls.slice(before).some((call) => call.name === 'sources.save')).toBe(false);
  });

  it('adds a source: the engine stores it and the list shows it without a key', async () => {
    const wrapper = await mountSettings(engine.client);
    const sources = section(wrapper, 'sources');
    await click(button('Add source'));
    await fill(sources, {
      name: 'Acme production',
      orgId: 'acme-prod',
      baseUrl: 'https://health.example.com/',
    });
    await click(switchNamed('Sync this source'));
    await click(button('Add source'));

    const stored = await engine.client.call('sources.list', null);
    expect(stored).toMatchObject([
      { orgId: 'acme-prod', name: 'Acme production', baseUrl: 'https://health.example.com', enabled: false },
    ]);
    const row = sources.find(`[data-source-id="${stored[0]!.id}"]`);
    expect(row.text()).toContain('Acme production');
    expect(row.text()).toContain('https://health.example.com');
    expect(row.text()).toContain('no key');
    expect(row.text()).toContain('disabled');
    // The form closed; the list offers to add another.
    expect(sources.find('input[aria-label="Source name"]').exists()).toBe(false);
  });

  it('edits a source keeping its key (apiKey null), and tests the connection with the result shown', async () => {
    const saved = await engine.client.call('sources.save', {
      ...NEW_SOURCE,
      baseUrl: 'https://a.example.com',
    });
    const wrapper = await mountSettings(engine.client);
    const sources = section(wrapper, 'sources');
    await click(button('Edit source Remote'));
    expect(input(sources, 'Source name').element.value).toBe('Remote');
    expect(input(sources, 'Remote API key').element.value).toBe('');

    // No key is available headless: the engine says so without going to the network.
    await click(button('Test connection'));
    const result = sources.find('[data-test-result]');
    expect(result.text()).toContain('Connection failed');
    expect(result.text()).toContain('no API key');

    await type(input(sources, 'Source name'), 'Remote (renamed)');
    await click(button('Save source'));
    const [changed] = await engine.client.call('sources.list', null);
    expect(changed).toMatchObject({ id: saved.id, name: 'Remote (renamed)' });
    const request = engine.calls.filter((call) => call.name === 'sources.save').at(-1)!
      .request as RpcRequest<'sources.save'>;
    expect(request).toMatchObject({ id: saved.id, apiKey: null });
    expect(sources.find(`[data-source-id="${saved.id}"]`).text()).toContain('Remote (renamed)');
  });

  it('removes a source only after confirmation', async () => {
    const saved = await engine.client.call('sources.save', {
      ...NEW_SOURCE,
      baseUrl: 'https://a.example.com',
    });
    const wrapper = await mountSettings(engine.client);
    const sources = section(wrapper, 'sources');
    await click(button('Remove source Remote'));
    expect(await engine.client.call('sources.list', null)).toHaveLength(1);
    await confirm('Remove');
    expect(await engine.client.call('sources.list', null)).toEqual([]);
    expect(sources.find(`[data-source-id="${saved.id}"]`).exists()).toBe(false);
    expect(sources.text()).toContain('No sources yet');
  });
});
