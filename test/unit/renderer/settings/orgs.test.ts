/**
 * The per-org parts of settings against the real engine: snoozes of the org the user came from (with a
 * picker when there are several), keys created for that org, and snapshots exported per org.
 */
import { existsSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENGINE_ORG } from '../../../helpers/engineClient';
import { button, click, engineForEachTest, input, mountSettings, section, type } from './harness';

const engine = engineForEachTest();
/** Files the engine wrote for exports, removed after each test. */
let exported: string[] = [];

afterEach(() => {
  for (const path of exported) rmSync(path, { force: true });
  exported = [];
});

async function firstDataset(): Promise<{ id: string; name: string }> {
  const page = await engine.client.call('datasets.rows', {
    orgId: ENGINE_ORG,
    filters: [],
    search: '',
    sort: '',
    pageToken: null,
    pageSize: 1,
  });
  const row = page.rows[0]!;
  return { id: row.datasetId, name: row.datasetName ?? row.datasetId };
}

describe('settings: snoozed datasets', () => {
  it("lists the org's snoozes and removes one: the engine no longer has it", async () => {
    const dataset = await firstDataset();
    await engine.client.call('snoozes.set', { orgId: ENGINE_ORG, datasetId: dataset.id, kind: '1h' });
    const wrapper = await mountSettings(engine.client);
    const notifications = section(wrapper, 'notifications');
    const row = notifications.find('[data-snooze]');
    expect(row.text()).toContain(dataset.name);
    expect(row.text()).toContain('for 1 h');
    // One org: no picker, just its name.
    expect(notifications.find('[aria-label="Organization of the snoozed datasets"]').exists()).toBe(false);

    await click(button(`Remove snooze of ${dataset.name}`));
    expect(await engine.client.call('snoozes.list', { orgId: ENGINE_ORG })).toEqual([]);
    expect(notifications.find('[data-snooze]').exists()).toBe(false);
    expect(notifications.text()).toContain('No dataset is snoozed');
  });

  it('with several orgs, starts at the org the user came from (snoozes and new keys)', async () => {
    const dataset = await firstDataset();
    await engine.client.call('snoozes.set', { orgId: ENGINE_ORG, datasetId: dataset.id, kind: '4h' });
    await engine.client.call('sources.save', {
      id: null,
      orgId: 'beta',
      name: 'Beta',
      baseUrl: 'https://beta.example.com',
      enabled: true,
      apiKey: null,
    });
    const wrapper = await mountSettings(engine.client, '/settings?org=beta');
    const notifications = section(wrapper, 'notifications');
    expect(notifications.find('[aria-label="Organization of the snoozed datasets"]').exists()).toBe(true);
    expect(notifications.find('[data-snooze]').exists()).toBe(false);
    expect(notifications.text()).toContain('No dataset is snoozed');

    const api = section(wrapper, 'api');
    await type(input(api, 'Name of the new key'), 'beta script');
    await click(button('Create key'));
    expect(await engine.client.call('keys.list', null)).toMatchObject([
      { orgId: 'beta', name: 'beta script' },
    ]);
  });
});

describe('settings: export', () => {
  it('exports a snapshot of an org and shows the file written', async () => {
    const wrapper = await mountSettings(engine.client);
    const row = section(wrapper, 'data').find(`[data-export-org="${ENGINE_ORG}"]`);
    await click(button(`Export snapshot of ${ENGINE_ORG}`));
    // The export is written in slices on later turns of the event loop, and to a file: wait for its line.
    await vi.waitFor(() => expect(row.find('[data-export-path]').exists()).toBe(true), { timeout: 10_000 });
    const path = row.find('[data-export-path]').text();
    exported.push(path);
    expect(path.startsWith(`${engine.dataDir}/exports/acme-`)).toBe(true);
    expect(path).toMatch(/acme-[0-9TZ-]+\.json$/);
    expect(existsSync(path)).toBe(true);
    expect(row.text()).toContain('20 datasets written to');
  });
});
