/**
 * The dataset view's schedule card against the real engine's deadline clock (`dataset.deadlines`) over
 * constructed schedules and histories at a fixed instant: previous and next deadlines in both zones, a
 * seven-field schedule (seconds first) with its seconds shown, a schedule that has ended, schedules that
 * cannot be read with the engine's reason, the habits line and the at-risk rule, the deadlines passed
 * while the data is stale (a source that stopped answering); it asks again when its next deadline passes.
 */
import { type VueWrapper, flushPromises, mount } from '@vue/test-utils';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type Ref, ref } from 'vue';
import ScheduleCard from '../../../../renderer/src/components/dataset/ScheduleCard.vue';
import { CLOCK } from '../../../../renderer/src/lib/clock';
import { deadlineInZones } from '../../../../renderer/src/lib/schedule';
import { RPC_CLIENT } from '../../../../renderer/src/rpc/client';
import { Store } from '../../../../electron/store/database';
import { ensureOrg } from '../../../../electron/store/tables/orgs';
import { OnCallKnowledge } from '../../../../electron/knowledge/service';
import type { RpcClient } from '../../../../shared/rpc';
import type { SourceState } from '../../../../shared/sync';
import { AT_RISK_RULE } from '../../../../shared/upcoming';
import { engineDispatch } from '../../../helpers/engineClient';
import { type HistorySpec, dailyDeliveries, historyRecord, syncHistories } from '../../../helpers/history';

const ORG = 'acme';
const T0 = '2026-11-21T04:41:00.000Z';
const userZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

const late = (n: number) =>
  Array.from({ length: n }, () => ({ status: 'DELIVERED_LATE', offsetMinutes: 40 }));
const healthy = (n: number) => Array.from({ length: n }, () => ({ status: 'HEALTHY', offsetMinutes: -10 }));

const SPECS: HistorySpec[] = [
  // Seven fields, seconds first: 06:15:30 every day, UTC.
  {
    id: 'seven',
    cron: '30 15 6 * * * *',
    deliveries: dailyDeliveries('2026-11-20T06:15:30.000Z', healthy(4)),
  },
  // 07:00 Tokyo (22:00 UTC the day before), chronically late.
  {
    id: 'tokyo',
    cron: '0 7 * * *',
    timezone: 'Asia/Tokyo',
    deliveries: dailyDeliveries('2026-11-20T22:00:00.000Z', [...late(3), ...healthy(2)]),
  },
  { id: 'ended', cron: '0 7 1 1 * 2020', deliveries: [] },
  { id: 'none', cron: '', deliveries: [] },
];

let store: Store;
let dataDir: string;
let engineNow: Date;
let windowNow: Ref<Date>;
let client: RpcClient;
let asked: string[];
/** The org's source as the sync would report it (none: an imported org, never stale). */
let sources: SourceState[];
let wrapper: VueWrapper | null = null;

beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  dataDir = mkdtempSync(join(tmpdir(), 'dh-schedule-card-'));
  engineNow = new Date(T0);
  windowNow = ref(new Date(T0));
  ensureOrg(store, ORG, engineNow);
  await syncHistories(store, ORG, SPECS, engineNow);
  sources = [];
  const knowledge = new OnCallKnowledge({ store, now: () => engineNow, sources: () => sources });
  const { dispatch } = engineDispatch(store, dataDir, engineNow, { knowledge });
  asked = [];
  client = {
    async call(name, request) {
      asked.push(name);
      return JSON.parse(JSON.stringify(await dispatch(name, JSON.parse(JSON.stringify(request ?? null)))));
    },
    on: () => () => undefined,
  };
});
afterEach(async () => {
  wrapper?.unmount();
  wrapper = null;
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function card(datasetId: string): Promise<VueWrapper> {
  const spec = SPECS.find((each) => each.id === datasetId)!;
  wrapper = mount(ScheduleCard, {
    props: { orgId: ORG, datasetId, config: historyRecord(spec).currentProcessingDeadlineConfig },
    global: {
      plugins: [createPinia()],
      provide: { [RPC_CLIENT as symbol]: client, [CLOCK as symbol]: windowNow },
    },
  });
  await flushPromises();
  await vi.waitFor(() => expect(wrapper!.text()).not.toContain('Asking the deadline clock'));
  return wrapper;
}

const nextTimes = (view: VueWrapper) => view.findAll('tbody time').map((time) => time.attributes('datetime'));

describe('ScheduleCard', { timeout: 20_000 }, () => {
  it('shows the previous and next deadlines of a seven-field schedule, seconds included', async () => {
    const view = await card('seven');
    expect(view.get('.words').text()).toContain('30 15 6 * * * *');
    expect(view.get('.words code').attributes('title')).toBe(
      'second minute hour day-of-month month day-of-week year',
    );
    const previous = view.get('[data-previous] time');
    expect(previous.attributes('datetime')).toBe('2026-11-20T06:15:30.000Z');
    expect(previous.text()).toMatch(/06:15:30 UTC$/);
    expect(nextTimes(view)).toEqual([21, 22, 23, 24, 25].map((day) => `2026-11-${day}T06:15:30.000Z`));
    const first = deadlineInZones('2026-11-21T06:15:30.000Z', 'UTC', userZone);
    expect(
      view
        .get('tbody tr')
        .findAll('td')
        .map((td) => td.text()),
    ).toEqual([first.inDatasetZone, first.inUserZone, 'in 1 hour']);
    expect(view.get('caption').text()).toBe('Next 5 deadlines');
    expect(view.get('[data-habits]').text()).toBe(
      'Typical delivery: usually 10 min early · on time 4/4 · 100% of its last 4 settled deliveries',
    );
    expect(view.find('[data-at-risk]').exists()).toBe(false);
    expect(view.find('[data-overdue]').exists()).toBe(false);
  });

  it("reads a deadline in the dataset's zone, and says at risk with the rule", async () => {
    const view = await card('tokyo');
    expect(view.get('.words').text()).toContain('Asia/Tokyo time');
    // 07:00 in Tokyo is 22:00 UTC the day before: 20 Nov 22:00 passed, 21 Nov 22:00 is next.
    expect(view.get('[data-previous] time').attributes('datetime')).toBe('2026-11-20T22:00:00.000Z');
    expect(view.get('[data-previous] time').text()).toMatch(/Sat, Nov 21, 2026, 07:00 GMT\+9$/);
    expect(nextTimes(view)[0]).toBe('2026-11-21T22:00:00.000Z');
    expect(view.get('thead').text()).toContain('Dataset time (Asia/Tokyo)');
    expect(view.get('[data-habits]').text()).toBe(
      'Typical delivery: +40 min late · on time 2/5 · 40% of its last 5 settled deliveries',
    );
    const risk = view.get('[data-at-risk]');
    expect(risk.text()).toContain('At risk because 2 of its last 5 deliveries were on time (40%).');
    expect(risk.text()).toContain(AT_RISK_RULE);
  });

  it('says a schedule has ended, and shows schedules that cannot be read with the reason', async () => {
    const ended = await card('ended');
    expect(ended.get('[data-previous] time').attributes('datetime')).toBe('2020-01-01T07:00:00.000Z');
    expect(ended.get('[data-ended]').text()).toBe('No deadline after now: the schedule has ended.');
    expect(nextTimes(ended)).toEqual([]);
    ended.unmount();

    const none = await card('none');
    const expected = await client.call('dataset.deadlines', { orgId: ORG, datasetId: 'none' });
    expect(expected!.problem).not.toBeNull();
    expect(none.get('[data-schedule-problem]').text()).toBe(
      `This schedule cannot be read, so it has no deadlines: ${expected!.problem}`,
    );
    expect(none.find('[data-previous]').exists()).toBe(false);
    expect(none.find('table').exists()).toBe(false);
    expect(none.get('[data-habits]').text()).toBe('No settled delivery yet: no habits to read.');
  });

  it('asks the engine again when the next deadline passes, and shows the clock moved on', async () => {
    const view = await card('seven');
    const calls = () => asked.filter((name) => name === 'dataset.deadlines').length;
    expect(calls()).toBe(1);
    windowNow.value = new Date('2026-11-21T06:00:00.000Z');
    await flushPromises();
    expect(calls()).toBe(1);
    engineNow.setTime(Date.parse('2026-11-21T06:15:31.000Z'));
    windowNow.value = new Date(engineNow);
    await vi.waitFor(() => expect(calls()).toBe(2));
    await vi.waitFor(() =>
      expect(view.get('[data-previous] time').attributes('datetime')).toBe('2026-11-21T06:15:30.000Z'),
    );
    expect(nextTimes(view)[0]).toBe('2026-11-22T06:15:30.000Z');
  });

  it('says how many deadlines passed since the last sync while the data is stale, and not once fresh', async () => {
    // The source last synced at 04:41 on the 21st and polls every minute: stale three minutes later.
    const source: SourceState = {
      sourceId: 'src-1',
      orgId: ORG,
      name: 'acme remote',
      phase: 'idle',
      activity: null,
      lastSuccessAt: T0,
      lastError: 'connect ECONNREFUSED',
      lastErrorAt: '2026-11-23T06:59:00.000Z',
      lastDurationMs: 1_000,
      lastCounts: null,
      nextRunAt: null,
      stopped: false,
      pollIntervalMs: 60_000,
    };
    sources = [source];
    // 07:00 on the 23rd: 06:15:30 on the 21st, 22nd and 23rd passed unheard of.
    engineNow.setTime(Date.parse('2026-11-23T07:00:00.000Z'));
    windowNow.value = new Date(engineNow);
    const view = await card('seven');
    expect(view.get('[data-overdue]').text()).toBe(
      'Overdue (unverified): 3 deadlines passed since the last sync.',
    );
    view.unmount();
    sources = [{ ...source, lastSuccessAt: '2026-11-23T06:59:30.000Z' }];
    const fresh = await card('seven');
    expect(fresh.find('[data-overdue]').exists()).toBe(false);
  });
});
