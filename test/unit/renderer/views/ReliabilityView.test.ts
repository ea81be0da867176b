/**
 * The Reliability view against the real engine (docs/architecture.md#reliability; issue 14 point 4): what it asks
 * `stats.get` and shows of the answer (happy-dom lays nothing out, so the virtual table draws no row:
 * the summary, the selected group's card and its sentence stand for it; the Chromium test reads the
 * rows); the grouping and window in the URL and a bad link said; j/k/Enter; the loading, error and empty
 * states; a quiet reload after a sync.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ensureOrg } from '../../../../electron/store/tables/orgs';
import type { ReliabilityStats } from '../../../../shared/reliability';
import { isolate } from '../../../../shared/isolate';
import { type RpcClient, RpcError } from '../../../../shared/rpc';
import { ENGINE_NOW, ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';
import { type MountedView, countCalls, mountView, press } from './mountView';
// Loaded with the file: the router imports them lazily, and their first transform takes seconds.
import '../../../../renderer/src/views/ReliabilityView.vue';
import '../../../../renderer/src/components/reliability/TrendChart.vue';
import '../../../../renderer/src/views/DatasetsView.vue';
import '../../../../renderer/src/views/DatasetView.vue';

let engine: EngineClient;
let view: MountedView | null = null;

beforeEach(async () => {
  engine = await engineClient({ datasets: 80 });
});
afterEach(async () => {
  view?.wrapper.unmount();
  view = null;
  await engine.close();
});

async function open(query: Record<string, string> = {}, client: RpcClient = engine.client) {
  view = await mountView(client, { name: 'reliability', params: { orgId: ENGINE_ORG }, query });
  return view;
}
const summary = () => document.querySelector<HTMLElement>('.summary');
const card = () => document.querySelector<HTMLElement>('.trend-card');
const stats = (groupBy: 'supplier' | 'dataset' | 'dataProduct', days: 7 | 30 | 90) =>
  engine.client.call('stats.get', { orgId: ENGINE_ORG, groupBy, days, key: null });

/** Waits for the view to show the engine's answer: its group count, deliveries and worst group. */
async function expectShown(answer: ReliabilityStats): Promise<void> {
  const deliveries = answer.groups.reduce((sum, group) => sum + group.figures.deliveries, 0);
  await vi.waitFor(() => {
    expect(summary()?.getAttribute('data-groups')).toBe(String(answer.groups.length));
    expect(summary()?.getAttribute('data-deliveries')).toBe(String(deliveries));
    expect(card()?.getAttribute('data-selected-key')).toBe(answer.groups[0]!.key);
  });
}

describe('ReliabilityView', { timeout: 30_000 }, () => {
  it('shows suppliers over 30 days by default, the worst selected with its sentence', async () => {
    const answer = await stats('supplier', 30);
    expect(answer.groups.length).toBeGreaterThan(1);
    await open();
    await expectShown(answer);
    const worst = answer.groups[0]!;
    expect(card()!.querySelector('[data-trend-summary]')!.textContent).toContain(
      `on time ${worst.figures.onTime} of ${worst.figures.deliveries} deliveries in the last 30 days`,
    );
    expect(card()!.querySelector('h2')!.textContent).toBe(
      `Weekly trend of ${isolate(worst.name!)}, last 30 days`,
    );
    expect(engine.calls.filter((call) => call.name === 'stats.get').at(-1)!.request).toEqual({
      orgId: ENGINE_ORG,
      groupBy: 'supplier',
      days: 30,
      key: null,
      weeks: true,
    });
  });

  it('switching the grouping or the window writes both into the URL and asks the engine again', async () => {
    const mounted = await open();
    await expectShown(await stats('supplier', 30));
    const radio = (label: string) =>
      [...document.querySelectorAll<HTMLElement>('.n-radio-button')].find((b) => b.textContent === label)!;
    radio('By data product').querySelector('input')!.click();
    await vi.waitFor(() =>
      expect(mounted.router.currentRoute.value.query).toEqual({ groupBy: 'dataProduct', days: '30' }),
    );
    await expectShown(await stats('dataProduct', 30));
    radio('7 days').querySelector('input')!.click();
    await vi.waitFor(() =>
      expect(mounted.router.currentRoute.value.query).toEqual({ groupBy: 'dataProduct', days: '7' }),
    );
    await expectShown(await stats('dataProduct', 7));
  });

  it('searches the groups by name: the URL keeps it, the card shows the first match, none is said', async () => {
    const mounted = await open();
    const answer = await stats('supplier', 30);
    await expectShown(answer);
    const target = answer.groups[answer.groups.length - 1]!;
    // (`/` itself is the window's, AppShell's: the Chromium test presses it.)
    const input = document.querySelector<HTMLInputElement>('[data-search] input')!;
    input.value = target.name!.toUpperCase();
    input.dispatchEvent(new Event('input', { bubbles: true }));
    await vi.waitFor(() =>
      expect(mounted.router.currentRoute.value.query.q).toBe(target.name!.toUpperCase()),
    );
    const matching = answer.groups.filter((group) =>
      group.name!.toLowerCase().includes(target.name!.toLowerCase()),
    );
    await vi.waitFor(() => expect(summary()!.getAttribute('data-shown')).toBe(String(matching.length)));
    expect(summary()!.getAttribute('data-groups')).toBe(String(answer.groups.length));
    expect(card()!.getAttribute('data-selected-key')).toBe(matching[0]!.key);
    await mounted.router.replace({ query: { groupBy: 'supplier', days: '30', q: 'no such supplier' } });
    await vi.waitFor(() =>
      expect(document.querySelector('.empty')?.textContent).toContain('No supplier matches'),
    );
    expect(card()).toBeNull();
  });

  it('says which part of a link it did not understand, naming what is allowed, and shows the defaults', async () => {
    await open({ groupBy: 'owner', days: '365' });
    await vi.waitFor(() => expect(document.querySelector('[role="alert"]')).not.toBeNull());
    const text = document.querySelector('[role="alert"]')!.textContent!;
    expect(text).toContain('groupBy "owner" is not one of dataset, supplier, dataProduct');
    expect(text).toContain('days "365" is not one of 7, 30, 90');
    await expectShown(await stats('supplier', 30));
  });

  it('j and k select a group (its card follows), Enter opens its datasets filtered by it', async () => {
    const mounted = await open();
    const answer = await stats('supplier', 30);
    await expectShown(answer);
    const [first, second] = answer.groups;
    press('j');
    await vi.waitFor(() => expect(card()!.getAttribute('data-selected-key')).toBe(second!.key));
    press('k');
    await vi.waitFor(() => expect(card()!.getAttribute('data-selected-key')).toBe(first!.key));
    press('j');
    await vi.waitFor(() => expect(card()!.getAttribute('data-selected-key')).toBe(second!.key));
    press('Enter');
    await vi.waitFor(() => expect(mounted.router.currentRoute.value.name).toBe('datasets'));
    expect(mounted.router.currentRoute.value.query).toEqual({ f: [`supplierId.eq.${second!.key}`] });
  });

  it('per dataset, the list comes without weeks and the chart asks for the selected dataset by key', async () => {
    await open({ groupBy: 'dataset', days: '90' });
    const datasets = await stats('dataset', 90);
    await expectShown(datasets);
    const asked = () => engine.calls.filter((call) => call.name === 'stats.get').map((call) => call.request);
    expect(asked()).toContainEqual({
      orgId: ENGINE_ORG,
      groupBy: 'dataset',
      days: 90,
      key: null,
      weeks: false,
    });
    const worst = datasets.groups[0]!;
    await vi.waitFor(() =>
      expect(asked()).toContainEqual({ orgId: ENGINE_ORG, groupBy: 'dataset', days: 90, key: worst.key }),
    );
    await vi.waitFor(() =>
      expect(card()!.querySelector('[data-weeks]')?.getAttribute('data-weeks')).toBe(
        String(worst.weeks.length),
      ),
    );
    expect(worst.weeks).toHaveLength(13);
  });

  it('Enter on a dataset opens the dataset view; on a data product, the datasets of that product', async () => {
    const mounted = await open({ groupBy: 'dataset', days: '30' });
    const datasets = await stats('dataset', 30);
    await expectShown(datasets);
    press('Enter');
    await vi.waitFor(() => expect(mounted.router.currentRoute.value.name).toBe('dataset'));
    expect(mounted.router.currentRoute.value.params).toEqual({
      orgId: ENGINE_ORG,
      datasetId: datasets.groups[0]!.key,
    });
    await mounted.router.push({
      name: 'reliability',
      params: { orgId: ENGINE_ORG },
      query: { groupBy: 'dataProduct' },
    });
    const products = await stats('dataProduct', 30);
    await expectShown(products);
    press('Enter');
    await vi.waitFor(() => expect(mounted.router.currentRoute.value.name).toBe('datasets'));
    expect(mounted.router.currentRoute.value.query).toEqual({
      f: [`dataProduct.eq.${products.groups[0]!.key}`],
    });
  });

  it('shows a spinner while the figures load', async () => {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: RpcClient = {
      on: engine.client.on,
      call: async (name, request) => {
        if (name === 'stats.get') await gate;
        return engine.client.call(name, request);
      },
    };
    const mounted = await open({}, slow);
    expect(mounted.wrapper.text()).toContain('Loading the reliability figures…');
    release();
    await expectShown(await stats('supplier', 30));
    expect(mounted.wrapper.text()).not.toContain('Loading the reliability figures…');
  });

  it('says why loading failed, and Retry loads again', async () => {
    let failing = true;
    const flaky: RpcClient = {
      on: engine.client.on,
      call: (name, request) =>
        failing && name === 'stats.get'
          ? Promise.reject(new RpcError('unavailable', 'The engine is busy writing a sync; try again.'))
          : engine.client.call(name, request),
    };
    const mounted = await open({}, flaky);
    await vi.waitFor(() =>
      expect(mounted.wrapper.text()).toContain('The engine is busy writing a sync; try again.'),
    );
    expect(mounted.wrapper.text()).toContain('The reliability figures could not be loaded');
    failing = false;
    await mounted.wrapper
      .findAll('button')
      .find((b) => b.text() === 'Retry')!
      .trigger('click');
    await expectShown(await stats('supplier', 30));
  });

  it('says when there were no deliveries in the window', async () => {
    ensureOrg(engine.store, 'quiet', ENGINE_NOW);
    view = await mountView(engine.client, {
      name: 'reliability',
      params: { orgId: 'quiet' },
      query: { days: '7' },
    });
    await vi.waitFor(() =>
      expect(document.querySelector('.empty')?.textContent).toContain('No deliveries in the last 7 days'),
    );
    expect(card()).toBeNull();
  });

  it('asks again quietly, without a spinner, after a sync changed the org (not another org)', async () => {
    const mounted = await open();
    await expectShown(await stats('supplier', 30));
    const before = countCalls(engine.calls, 'stats.get');
    mounted.syncChanged('another-org');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(countCalls(engine.calls, 'stats.get')).toBe(before);
    mounted.syncChanged(ENGINE_ORG);
    expect(mounted.wrapper.text()).not.toContain('Loading the reliability figures…');
    await vi.waitFor(() => expect(countCalls(engine.calls, 'stats.get')).toBe(before + 1));
    expect(card()).not.toBeNull();
  });
});
