/**
 * The Upcoming view against the real engine (sql.js store, handlers, deadline clock) over constructed
 * histories whose deadlines and habits are worked out here by hand, with the window's clock and the
 * engine's moved together: the rows and their words, the window and the filters in the URL, a link
 * that is not understood, the empty window, a failed load, and the list moving on as a deadline passes.
 * The rows themselves and the keyboard are read in Chromium (test/e2e/ui/upcoming.test.ts).
 */
import { type VueWrapper, flushPromises, mount } from '@vue/test-utils';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NMessageProvider } from 'naive-ui';
import { type Pinia, createPinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Ref, defineComponent, h, ref } from 'vue';
import { type RouteLocationRaw, type Router, RouterView, createMemoryHistory } from 'vue-router';
import { highlightedDeadline } from '../../../../renderer/src/components/upcoming/highlight';
import {
  onTimeText,
  riskTooltip,
  typicalDelivery,
} from '../../../../renderer/src/components/upcoming/upcoming';
import { CLOCK } from '../../../../renderer/src/lib/clock';
import { createAppRouter } from '../../../../renderer/src/router';
import { RPC_CLIENT } from '../../../../renderer/src/rpc/client';
import { useSyncState } from '../../../../renderer/src/state/sync';
import { Store } from '../../../../electron/store/database';
import { ensureOrg } from '../../../../electron/store/tables/orgs';
import { type RpcClient, RpcError } from '../../../../shared/rpc';
import { AT_RISK_RULE } from '../../../../shared/upcoming';
import { engineDispatch } from '../../../helpers/engineClient';
import { type HistorySpec, dailyDeliveries, syncHistories } from '../../../helpers/history';
import '../../../../renderer/src/views/UpcomingView.vue';

const ORG = 'acme';
const T0 = '2026-11-21T04:41:00.000Z';
const BLUEFIN = { id: 'sup-bluefin', name: 'Bluefin Exchange Feeds' };
const NORTHWIND = { id: 'sup-northwind', name: 'Northwind Rates' };

/** n deliveries, newest first, of one status at one offset from the deadline. */
const times = (n: number, status: string, offsetMinutes: number | null) =>
  Array.from({ length: n }, () => ({ status, offsetMinutes }));

/**
 * At 04:41 UTC the next six hours, (04:41, 10:41], hold: `early` hourly 00:00–10:00 (05:00 … 10:00), `missing`
 * at 01:00 New York (06:00 UTC), `late` at 06:15 London (UTC in November), `fresh` at 09:45 and `rates`
 * at 10:00; `evening` (20:00) only in 24 hours; `unreadable` has no schedule.
 */
const SPECS: HistorySpec[] = [
  {
    id: 'early',
    name: 'Equity prices hourly',
    supplier: BLUEFIN,
    product: 'Prices',
    cron: '0 0-10 * * *',
    deliveries: dailyDeliveries('2026-11-21T04:00:00.000Z', times(20, 'HEALTHY', -12)),
  },
  {
    id: 'late',
    name: 'Index levels',
    supplier: BLUEFIN,
    product: 'Indices',
    cron: '15 6 * * *',
    timezone: 'Europe/London',
    // 6 on time (5 min early), 14 late by 25 min, newest first: late ones first.
    deliveries: dailyDeliveries('2026-11-20T06:15:00.000Z', [
      ...times(14, 'DELIVERED_LATE', 25),
      ...times(6, 'HEALTHY', -5),
    ]),
  },
  {
    id: 'missing',
    name: 'FX fixings',
    supplier: NORTHWIND,
    product: 'Rates',
    cron: '0 1 * * *',
    timezone: 'America/New_York',
    deliveries: dailyDeliveries('2026-11-20T06:00:00.000Z', [
      { status: 'MISSING', offsetMinutes: null },
      ...times(5, 'HEALTHY', -3),
    ]),
  },
  {
    id: 'fresh',
    name: 'New listings',
    supplier: BLUEFIN,
    product: 'Prices',
    cron: '45 9 * * *',
    deliveries: [],
  },
  {
    id: 'rates',
    name: 'Swap curves',
    supplier: NORTHWIND,
    product: 'Rates',
    cron: '0 10 * * *',
    deliveries: dailyDeliveries('2026-11-20T10:00:00.000Z', times(3, 'HEALTHY', 0)),
  },
  {
    id: 'evening',
    name: 'Closing auction',
    supplier: NORTHWIND,
    product: 'Prices',
    cron: '0 20 * * *',
    deliveries: [],
  },
  { id: 'unreadable', name: 'Legacy feed', cron: '', deliveries: [] },
];

/** The six-hour window's rows as a person works them out: [dataset, deadline], soonest first. */
const SIX_HOURS = [
  ['early', '2026-11-21T05:00:00.000Z'],
  ['early', '2026-11-21T06:00:00.000Z'],
  ['missing', '2026-11-21T06:00:00.000Z'],
  ['late', '2026-11-21T06:15:00.000Z'],
  ['early', '2026-11-21T07:00:00.000Z'],
  ['early', '2026-11-21T08:00:00.000Z'],
  ['early', '2026-11-21T09:00:00.000Z'],
  ['fresh', '2026-11-21T09:45:00.000Z'],
  ['early', '2026-11-21T10:00:00.000Z'],
  ['rates', '2026-11-21T10:00:00.000Z'],
];

let store: Store;
let dataDir: string;
/** The engine's clock (engineDispatch reads this Date each time) and the window's: moved together. */
let engineNow: Date;
let windowNow: Ref<Date>;
let client: RpcClient;
let calls: string[];
let wrapper: VueWrapper | null = null;
let router: Router;
let pinia: Pinia;

beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  dataDir = mkdtempSync(join(tmpdir(), 'dh-upcoming-view-'));
  engineNow = new Date(T0);
  windowNow = ref(new Date(T0));
  ensureOrg(store, ORG, engineNow);
  await syncHistories(store, ORG, SPECS, engineNow);
  const { dispatch } = engineDispatch(store, dataDir, engineNow);
  calls = [];
  client = {
    async call(name, request) {
      calls.push(name);
      try {
        return JSON.parse(JSON.stringify(await dispatch(name, JSON.parse(JSON.stringify(request ?? null)))));
      } catch (error) {
        if (error instanceof RpcError) throw new RpcError(error.code, error.message);
        throw error;
      }
    },
    on: () => () => undefined,
  };
  highlightedDeadline.value = null;
});
afterEach(async () => {
  wrapper?.unmount();
  wrapper = null;
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const Host = defineComponent({
  render: () => h(NMessageProvider, null, { default: () => h(RouterView) }),
});

async function open(query: Record<string, string> = {}, rpc: RpcClient = client): Promise<VueWrapper> {
  router = createAppRouter(createMemoryHistory());
  pinia = createPinia();
  await router.push({ name: 'upcoming', params: { orgId: ORG }, query } satisfies RouteLocationRaw);
  await router.isReady();
  wrapper = mount(Host, {
    attachTo: document.body,
    global: {
      plugins: [pinia, router],
      provide: { [RPC_CLIENT as symbol]: rpc, [CLOCK as symbol]: windowNow },
    },
  });
  await flushPromises();
  // The view, or why it could not load.
  await vi.waitFor(() => expect(wrapper!.find('h1, .n-result').exists()).toBe(true));
  return wrapper;
}

/**
 * What the view shows as its rows: happy-dom lays nothing out, so the virtual table draws no row here
 * (the browser test reads the rows); the summary carries the count the table is given.
 */
const rowCount = (view: VueWrapper) => Number(view.get('.summary').attributes('data-rows'));

const summary = (view: VueWrapper) => view.get('.summary');
const upcoming = (hours: number) => client.call('upcoming.list', { orgId: ORG, hours });
const pairs = (deadlines: { datasetId: string; deadline: string }[]) =>
  deadlines.map((d) => [d.datasetId, d.deadline]);

describe('UpcomingView', { timeout: 30_000 }, () => {
  it('shows the next six hours as the engine gives them, which is what a person works out', async () => {
    const answer = await upcoming(6);
    expect(pairs(answer.deadlines)).toEqual(SIX_HOURS);
    expect(answer).toMatchObject({ total: 10, truncated: false, invalidSchedules: 1 });
    calls.length = 0;
    const view = await open();
    await vi.waitFor(() => expect(rowCount(view)).toBe(10));
    expect(summary(view).attributes()).toMatchObject({ 'data-total': '10', 'data-at-risk': '2' });
    expect(summary(view).text()).toBe('10 deadlines in the next 6 hours · 2 at risk');
    expect(view.get('[data-invalid-schedules]').text()).toMatch(
      /^1 dataset has a schedule that cannot be read/,
    );
    expect(view.get('[data-invalid-schedules] a').attributes('href')).toBe(`/orgs/${ORG}/datasets`);
    expect(view.find('[data-truncated]').exists()).toBe(false);
    expect(calls.filter((name) => name === 'upcoming.list')).toHaveLength(1);
  });

  it('says the habits of each constructed history as a person reads them', async () => {
    const words = async (datasetId: string) => {
      const habits = (await client.call('dataset.deadlines', { orgId: ORG, datasetId }))!.habits;
      return [typicalDelivery(habits), onTimeText(habits), habits.atRisk ? riskTooltip(habits) : null];
    };
    expect(await words('early')).toEqual(['usually 12 min early', '20/20 · 100%', null]);
    expect(await words('late')).toEqual([
      '+25 min late',
      '6/20 · 30%',
      `${AT_RISK_RULE} This dataset: 6 of its last 20 deliveries were on time (30%).`,
    ]);
    expect(await words('missing')).toEqual([
      'usually 3 min early',
      '5/6 · 83%',
      `${AT_RISK_RULE} This dataset: its latest delivery was MISSING.`,
    ]);
    expect(await words('rates')).toEqual(['usually on time', '3/3 · 100%', null]);
    expect(await words('fresh')).toEqual(['—', '—', null]);
  });

  it('keeps the window and the filters in the URL, and filters what the engine gave', async () => {
    const view = await open();
    await vi.waitFor(() => expect(rowCount(view)).toBe(10));
    await view.get('[data-hours="1"] input').setValue(true);
    await vi.waitFor(() => expect(router.currentRoute.value.query).toEqual({ hours: '1' }));
    await vi.waitFor(() => expect(summary(view).text()).toBe('1 deadline in the next hour · 0 at risk'));
    expect(calls.filter((name) => name === 'upcoming.list')).toHaveLength(2);

    // 24 hours: early 05:00–10:00 and 00:00–04:00, and one each of the five others.
    expect((await upcoming(24)).total).toBe(16);
    await router.replace({ query: { hours: '24', supplier: NORTHWIND.id } });
    await vi.waitFor(() =>
      expect(summary(view).text()).toBe('3 deadlines of 16 in the next 24 hours · 2 at risk'),
    );

    await router.replace({ query: { product: 'Prices', q: 'HOURLY' } });
    await vi.waitFor(() =>
      expect(summary(view).text()).toBe('6 deadlines of 10 in the next 6 hours · 2 at risk'),
    );

    await router.replace({ query: { risk: '1' } });
    await vi.waitFor(() => expect(rowCount(view)).toBe(2));
    await view.get('[data-filter="risk"]').trigger('click');
    await vi.waitFor(() => expect(router.currentRoute.value.query).toEqual({}));
    await vi.waitFor(() => expect(rowCount(view)).toBe(10));

    await router.replace({ query: { supplier: 'nobody' } });
    await vi.waitFor(() => expect(view.text()).toContain('No deadline matches these filters'));
    const clear = view.findAll('button').find((button) => button.text() === 'Clear the filters')!;
    await clear.trigger('click');
    await vi.waitFor(() => expect(router.currentRoute.value.query).toEqual({}));
    await vi.waitFor(() => expect(rowCount(view)).toBe(10));
  });

  it('says which part of a link it did not understand, and shows the default window', async () => {
    const view = await open({ hours: '5', risk: 'yes' });
    await vi.waitFor(() => expect(rowCount(view)).toBe(10));
    const alerts = view.findAll('[role="alert"]').map((alert) => alert.text());
    expect(alerts.some((text) => text.includes('hours=5 is not offered: choose 1, 6, 24'))).toBe(true);
    expect(alerts.some((text) => text.includes('risk=yes is not understood: risk=1'))).toBe(true);
  });

  it('says so when the window holds no deadline', async () => {
    // 10:41 → 16:41: nothing is due until `evening` at 20:00.
    engineNow.setTime(Date.parse('2026-11-21T10:41:00.000Z'));
    windowNow.value = new Date(engineNow);
    const view = await open();
    await vi.waitFor(() => expect(view.text()).toContain('No deadlines in the next 6 hours'));
    expect(view.find('.n-data-table').exists()).toBe(false);
    await router.replace({ query: { hours: '24' } });
    await vi.waitFor(() => expect(view.find('.n-data-table').exists()).toBe(true));
    expect(rowCount(view)).toBe((await upcoming(24)).total);
  });

  it('shows why the deadlines could not be loaded, and Retry asks again', async () => {
    let fail = true;
    const failing: RpcClient = {
      call: (name, request, options) =>
        name === 'upcoming.list' && fail
          ? Promise.reject(new RpcError('internal', 'the disk is on fire'))
          : client.call(name, request, options),
      on: client.on,
    };
    const view = await open({}, failing);
    await vi.waitFor(() => expect(view.text()).toContain('The deadlines could not be loaded'));
    expect(view.text()).toContain('the disk is on fire');
    fail = false;
    await view
      .findAll('button')
      .find((button) => button.text() === 'Retry')!
      .trigger('click');
    await vi.waitFor(() => expect(rowCount(view)).toBe(10));
  });

  it('asks again once its soonest deadline has passed, and not before', async () => {
    const view = await open();
    await vi.waitFor(() => expect(rowCount(view)).toBe(10));
    const asked = () => calls.filter((name) => name === 'upcoming.list').length;
    expect(asked()).toBe(1);
    windowNow.value = new Date('2026-11-21T04:55:00.000Z');
    await flushPromises();
    expect(asked()).toBe(1);
    // 05:00 passes for the engine and the window alike: the list moves on by one.
    engineNow.setTime(Date.parse('2026-11-21T05:00:01.000Z'));
    windowNow.value = new Date(engineNow);
    await vi.waitFor(() => expect(asked()).toBe(2));
    await vi.waitFor(() => expect(rowCount(view)).toBe(9));
    // Ticks with nothing passed ask nothing.
    windowNow.value = new Date('2026-11-21T05:00:20.000Z');
    await flushPromises();
    windowNow.value = new Date('2026-11-21T05:59:00.000Z');
    await flushPromises();
    expect(asked()).toBe(2);
    expect(pairs((await upcoming(6)).deadlines)).toEqual(SIX_HOURS.slice(1));
  });

  it('asks again after a sync changed the org: a new dataset at risk joins the list', async () => {
    const view = await open();
    await vi.waitFor(() => expect(rowCount(view)).toBe(10));
    await syncHistories(
      store,
      ORG,
      [
        {
          id: 'reopened',
          name: 'Reopened feed',
          supplier: BLUEFIN,
          cron: '30 7 * * *',
          deliveries: dailyDeliveries('2026-11-20T07:30:00.000Z', [{ status: 'FAILED', offsetMinutes: 5 }]),
        },
      ],
      engineNow,
    );
    // What the sync state does on a `sync.cycle` that changed the org's data.
    const sync = useSyncState(pinia);
    sync.changes = { ...sync.changes, [ORG]: (sync.changes[ORG] ?? 0) + 1 };
    await vi.waitFor(() => expect(summary(view).text()).toBe('11 deadlines in the next 6 hours · 3 at risk'));
  });
});
