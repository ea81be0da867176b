/** The dataset view against the real engine: header, history, schedule, snooze, and its load states. */
import { flushPromises } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nextTick } from 'vue';
import { scheduleInWords } from '../../../../renderer/src/lib/schedule';
import { duration } from '../../../../renderer/src/lib/time';
import { type RpcClient, RpcError } from '../../../../shared/rpc';
import type { DatasetRecord } from '../../../../shared/schemas';
import { ENGINE_NOW, ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';
import { type MountedView, countCalls, mountView, press } from './mountView';
// Loaded with the file, not inside the first test: the router imports it lazily, and its first
// transform (naive-ui included) takes seconds.
import '../../../../renderer/src/views/DatasetView.vue';
// The on-time chart's (ECharts, loaded after the view's first content) and the delivery view a row opens.
import '../../../../renderer/src/components/reliability/TrendChart.vue';
import '../../../../renderer/src/views/DeliveryView.vue';

let engine: EngineClient;
let view: MountedView | null = null;

beforeEach(async () => {
  engine = await engineClient();
});
afterEach(async () => {
  view?.wrapper.unmount();
  view = null;
  await engine.close();
});

async function datasetWith(status: string, skip = 0): Promise<DatasetRecord> {
  const page = await engine.client.call('datasets.rows', {
    orgId: ENGINE_ORG,
    filters: [`deliveryStatus.eq.${status}`],
    search: '',
    sort: '',
    pageToken: null,
    pageSize: 5,
  });
  const row = page.rows[skip];
  if (!row) throw new Error(`the demo data has no ${status} dataset`);
  return (await engine.client.call('dataset.get', { orgId: ENGINE_ORG, datasetId: row.datasetId }))!;
}

async function open(dataset: DatasetRecord, client: RpcClient = engine.client): Promise<MountedView> {
  view = await mountView(client, {
    name: 'dataset',
    params: { orgId: ENGINE_ORG, datasetId: dataset.datasetId },
  });
  await vi.waitFor(() => expect(view!.wrapper.find('h1').exists()).toBe(true));
  return view;
}

const section = (mounted: MountedView, titleId: string) =>
  mounted.wrapper.get(`section[aria-labelledby="${titleId}"]`);
/** naive-ui's spinner, alone or around content. */
const SPINNER = '.n-spin-body, .n-spin-container';
const historyRows = (mounted: MountedView) => section(mounted, 'history-title').findAll('tbody tr');

// Real engine and naive-ui: a first render on a slow machine can take seconds.
describe('DatasetView', { timeout: 15_000 }, () => {
  it('shows who the dataset is, and copies its identifiers', async () => {
    const dataset = await datasetWith('FAILED');
    const { wrapper } = await open(dataset);
    const header = wrapper.get('header');
    expect(header.get('h1').text()).toBe(dataset.datasetName);
    expect(header.get('[data-status]').attributes('data-status')).toBe('FAILED');
    expect(header.text()).toContain(dataset.dataProductName);
    expect(header.text()).toContain(`${dataset.supplier.name} (${dataset.supplier.id})`);
    for (const label of ['Dataset ID', 'Latest delivery ID', 'CDU ID']) {
      expect(header.find(`button[aria-label="Copy ${label}"]`).exists()).toBe(true);
    }
    // Demo datasets have no legacy id: nothing to copy.
    expect(dataset.legacyDatasetId).toBeNull();
    expect(header.find('button[aria-label="Copy Legacy dataset ID"]').exists()).toBe(false);

    await header.get('button[aria-label="Copy Latest delivery ID"]').trigger('click');
    await flushPromises();
    expect(await navigator.clipboard.readText()).toBe(dataset.deliveryId);
  });

  it('lists every retained delivery newest first, with its lateness, and a row opens the delivery', async () => {
    const dataset = await datasetWith('FAILED');
    const mounted = await open(dataset);
    const events = dataset.deliveryEventList;
    const rows = historyRows(mounted);
    expect(rows.map((row) => row.attributes('data-delivery-id'))).toEqual(events.map((e) => e.deliveryId));

    expect(rows[0]!.text()).toContain('not delivered');
    expect(rows[0]!.get('[data-status]').attributes('data-status')).toBe('FAILED');
    const lateIndex = events.findIndex((e) => e.status === 'DELIVERED_LATE');
    const late = events[lateIndex]!;
    const lateBy = Date.parse(late.deliveredAt!) - Date.parse(late.deliveryDeadline!);
    expect(rows[lateIndex]!.text()).toContain(`${duration(lateBy)} late`);
    const onTimeIndex = events.findIndex((e) => e.status === 'HEALTHY');
    expect(rows[onTimeIndex]!.text()).toContain('on time');

    const strip = section(mounted, 'history-title').get('[role="img"]');
    expect(strip.attributes('aria-label')).toMatch(
      new RegExp(`^Last ${events.length} deliveries, newest last: `),
    );

    await rows[2]!.trigger('click');
    await vi.waitFor(() => expect(mounted.router.currentRoute.value.name).toBe('delivery'));
    expect(mounted.router.currentRoute.value.params).toEqual({
      orgId: ENGINE_ORG,
      datasetId: dataset.datasetId,
      deliveryId: events[2]!.deliveryId,
    });
  });

  it('j and k move the highlighted row and Enter opens it, but Enter on a button stays with the button', async () => {
    const dataset = await datasetWith('FAILED');
    const mounted = await open(dataset);
    const highlighted = () =>
      mounted.wrapper.findAll('tbody tr.highlighted').map((r) => r.attributes('data-delivery-id'));
    const ids = dataset.deliveryEventList.map((e) => e.deliveryId);

    press('j');
    await nextTick();
    expect(highlighted()).toEqual([ids[0]]);
    press('j');
    press('j');
    press('k');
    await nextTick();
    expect(highlighted()).toEqual([ids[1]]);

    press('Enter', mounted.wrapper.get('button[aria-label="Snooze for 1 hour"]').element);
    await flushPromises();
    expect(mounted.router.currentRoute.value.name).toBe('dataset');

    press('Enter');
    await vi.waitFor(() => expect(mounted.router.currentRoute.value.name).toBe('delivery'));
    expect(mounted.router.currentRoute.value.params.deliveryId).toBe(ids[1]);
  });

  it('says the schedule in words and the next five deadlines, the first being the next expected delivery', async () => {
    const dataset = await datasetWith('FAILED');
    const mounted = await open(dataset);
    const schedule = section(mounted, 'schedule-title');
    const words = scheduleInWords(dataset.currentProcessingDeadlineConfig);
    expect(words.ok).toBe(true);
    expect(schedule.text()).toContain(
      `${words.ok && words.text}, ${dataset.currentProcessingDeadlineConfig.timezone} time`,
    );
    // The deadlines come from the on-call layer, which reads the org's history first.
    await vi.waitFor(() => expect(schedule.findAll('tbody time')).toHaveLength(5), { timeout: 10_000 });
    const times = schedule.findAll('tbody time').map((t) => Date.parse(t.attributes('datetime')!));
    // The engine works out the next expected delivery on its own: the view must agree with it.
    expect(new Date(times[0]!).toISOString()).toBe(dataset.nextExpectedDeliveryTimestamp);
    expect(times.every((t, i) => t > ENGINE_NOW.getTime() && (i === 0 || t > times[i - 1]!))).toBe(true);
    expect(schedule.text()).toContain(`Your time (${Intl.DateTimeFormat().resolvedOptions().timeZone})`);
  });

  it('snoozes notifications, shows the snooze in force, and removes it', async () => {
    const dataset = await datasetWith('FAILED');
    const mounted = await open(dataset);
    const snooze = () => section(mounted, 'snooze-title');
    expect(snooze().get('[role="group"]').attributes('aria-label')).toBe('Snooze notifications');
    await vi.waitFor(() => expect(snooze().text()).toContain('Notifications are on'));

    await snooze().get('button[aria-label="Snooze for 4 hours"]').trigger('click');
    await vi.waitFor(() => expect(snooze().find('[role="status"]').exists()).toBe(true));
    expect(snooze().get('[role="status"]').text()).toMatch(/Snoozed until .* \(in 4 hours\)/);
    expect(snooze().get('button[aria-label="Snooze for 4 hours"]').attributes('aria-pressed')).toBe('true');
    const stored = await engine.client.call('snoozes.list', { orgId: ENGINE_ORG });
    expect(stored.map((s) => [s.datasetId, s.kind, s.until])).toEqual([
      [dataset.datasetId, '4h', new Date(ENGINE_NOW.getTime() + 4 * 3_600_000).toISOString()],
    ]);

    await snooze().get('button[aria-label="Snooze until healthy"]').trigger('click');
    await vi.waitFor(() => expect(snooze().text()).toContain('Snoozed until the dataset is healthy again'));

    const remove = snooze()
      .findAll('button')
      .find((b) => b.text() === 'Remove snooze')!;
    await remove.trigger('click');
    await vi.waitFor(() => expect(snooze().text()).toContain('Notifications are on'));
    expect(await engine.client.call('snoozes.list', { orgId: ENGINE_ORG })).toEqual([]);
  });

  it('says plainly when the dataset does not exist, with a way back to the datasets', async () => {
    view = await mountView(engine.client, {
      name: 'dataset',
      params: { orgId: ENGINE_ORG, datasetId: 'ds-nope' },
    });
    await vi.waitFor(() => expect(view!.wrapper.text()).toContain(`No dataset ds-nope in org ${ENGINE_ORG}`));
    const back = view.wrapper.findAll('a').find((a) => a.text() === 'Back to the datasets')!;
    expect(back.attributes('href')).toBe(`/orgs/${ENGINE_ORG}/datasets`);
  });

  it('shows a spinner while the dataset loads', async () => {
    const dataset = await datasetWith('FAILED');
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: RpcClient = {
      on: engine.client.on,
      call: async (name, request) => {
        if (name === 'dataset.get') await gate;
        return engine.client.call(name, request);
      },
    };
    view = await mountView(slow, {
      name: 'dataset',
      params: { orgId: ENGINE_ORG, datasetId: dataset.datasetId },
    });
    expect(view.wrapper.find(SPINNER).exists()).toBe(true);
    expect(view.wrapper.text()).toContain('Loading the dataset…');
    release();
    await vi.waitFor(() => expect(view!.wrapper.find('h1').text()).toBe(dataset.datasetName));
    expect(view.wrapper.find(SPINNER).exists()).toBe(false);
  });

  it('shows why loading failed, and Retry loads again', async () => {
    const dataset = await datasetWith('FAILED');
    let failing = true;
    const flaky: RpcClient = {
      on: engine.client.on,
      call: (name, request) =>
        failing && name === 'dataset.get'
          ? Promise.reject(new RpcError('unavailable', 'The engine is busy writing a sync; try again.'))
          : engine.client.call(name, request),
    };
    view = await mountView(flaky, {
      name: 'dataset',
      params: { orgId: ENGINE_ORG, datasetId: dataset.datasetId },
    });
    await vi.waitFor(() =>
      expect(view!.wrapper.text()).toContain('The engine is busy writing a sync; try again.'),
    );
    expect(view.wrapper.text()).toContain('The dataset could not be loaded');
    failing = false;
    await view.wrapper
      .findAll('button')
      .find((b) => b.text() === 'Retry')!
      .trigger('click');
    await vi.waitFor(() => expect(view!.wrapper.find('h1').text()).toBe(dataset.datasetName));
  });

  it('loads the other dataset when the route changes', async () => {
    const first = await datasetWith('FAILED');
    const second = await datasetWith('HEALTHY');
    const mounted = await open(first);
    await mounted.router.push({
      name: 'dataset',
      params: { orgId: ENGINE_ORG, datasetId: second.datasetId },
    });
    await vi.waitFor(() => expect(mounted.wrapper.get('h1').text()).toBe(second.datasetName));
    expect(mounted.wrapper.get('header [data-status]').attributes('data-status')).toBe('HEALTHY');
    expect(historyRows(mounted)).toHaveLength(Math.min(second.deliveryEventList.length, 50));
  });

  it('reloads quietly, without a spinner, when a sync changed the org (and not for another org)', async () => {
    const dataset = await datasetWith('FAILED');
    let renamed = false;
    const client: RpcClient = {
      on: engine.client.on,
      async call(name, request) {
        const answer = await engine.client.call(name, request);
        // Stands in for a sync that renamed the dataset at the source.
        if (renamed && name === 'dataset.get' && answer)
          return { ...answer, datasetName: 'Renamed at the source' };
        return answer;
      },
    };
    const mounted = await open(dataset, client);
    const loads = countCalls(engine.calls, 'dataset.get');

    mounted.syncChanged('another-org');
    await flushPromises();
    expect(countCalls(engine.calls, 'dataset.get')).toBe(loads);

    renamed = true;
    mounted.syncChanged(ENGINE_ORG);
    await nextTick();
    expect(mounted.wrapper.find(SPINNER).exists()).toBe(false);
    expect(mounted.wrapper.get('h1').text()).toBe(dataset.datasetName);
    await vi.waitFor(() => expect(mounted.wrapper.get('h1').text()).toBe('Renamed at the source'));
    expect(countCalls(engine.calls, 'dataset.get')).toBe(loads + 1);
  });
});
