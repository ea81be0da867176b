/**
 * The Handoff view against the real engine (docs/architecture.md#handoff; issue 14 point 5): a scripted shift
 * (test/helpers/handoffShift.ts) in a sql.js store, the real RPC handlers with the on-call knowledge at
 * 17:30 that day while the source's data is stale, and a snooze in force, so every section has
 * something. Sections, counts and rows are the engine's report; `?since=` is read and written; "Copy as
 * Markdown" and `c` copy exactly shared/handoff.ts's Markdown of that report; j/k/Enter; a sync cycle
 * asks again; a link's since that is not understood is said; a failed load says why.
 */
import { flushPromises } from '@vue/test-utils';
import { NDatePicker } from 'naive-ui';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OnCallKnowledge } from '../../../../electron/knowledge/service';
import { Store } from '../../../../electron/store/database';
import { setSnooze } from '../../../../electron/store/tables/snoozes';
import { type HandoffReport, atRiskByDataset } from '../../../../shared/handoff';
import { handoffMarkdown } from '../../../../shared/handoffMarkdown';
import type { RpcClient } from '../../../../shared/rpc';
import { sourceState } from '../../../helpers/alerts';
import { removeTempDirs, tempDir } from '../../../helpers/cli';
import { engineDispatch } from '../../../helpers/engineClient';
import { SHIFT_ORG, SHIFT_SOURCE, playShift } from '../../../helpers/handoffShift';
import { syncHistories } from '../../../helpers/history';
import { type MountedView, countCalls, mountView, press } from './mountView';
import { keepFor } from '../../../../renderer/src/components/handoff/stops';
import '../../../../renderer/src/views/HandoffView.vue';

/** Late afternoon: the source last synced at 13:59, so the 17:00 deadline passed unverified. */
const NOW = new Date('2026-11-26T17:30:00.000Z');

let store: Store;
let client: RpcClient;
let calls: { name: string; request: unknown }[];
let emit: (name: string, payload: unknown) => void;
let view: MountedView | null = null;

beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  await playShift(store);
  setSnooze(store, SHIFT_ORG, 'fx-rates', 'next-delivery', new Date('2026-11-26T15:00:00.000Z'));
  const knowledge = new OnCallKnowledge({
    store,
    now: () => NOW,
    sources: () => [
      sourceState({ orgId: SHIFT_ORG, sourceId: SHIFT_SOURCE.id, lastSuccessAt: '2026-11-26T13:59:00.000Z' }),
    ],
  });
  const { dispatch } = engineDispatch(store, tempDir('dh-handoff-view-'), NOW, { knowledge });
  calls = [];
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  emit = (name, payload) => listeners.get(name)?.forEach((listener) => listener(payload));
  client = {
    async call(name, request) {
      calls.push({ name, request });
      // Through JSON, as both transports do.
      return JSON.parse(JSON.stringify(await dispatch(name, JSON.parse(JSON.stringify(request)))));
    },
    on(name, listener) {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(listener as (payload: unknown) => void);
      return () => set.delete(listener as (payload: unknown) => void);
    },
  };
});
afterEach(async () => {
  view?.wrapper.unmount();
  view = null;
  // The view keeps its keyboard row and open sections across visits: each test starts afresh.
  keepFor(null);
  await store.close();
  removeTempDirs();
});

const engineReport = (since: string): Promise<HandoffReport> =>
  client.call('handoff.get', { orgId: SHIFT_ORG, since });

async function openHandoff(query: Record<string, string> = {}): Promise<MountedView> {
  const mounted = await mountView(client, { name: 'handoff', params: { orgId: SHIFT_ORG }, query });
  await vi.waitFor(() => expect(document.querySelector('[data-summary]')).not.toBeNull());
  return mounted;
}

const section = (name: string) => document.querySelector<HTMLElement>(`section[data-section="${name}"]`)!;
const rowIds = (name: string): string[] =>
  [...section(name).querySelectorAll('[data-row]')].map((row) => row.getAttribute('data-row')!);
const focusedStop = (): string | null => document.activeElement?.getAttribute('data-stop') ?? null;

describe('the Handoff view', { timeout: 30_000 }, () => {
  it('shows every section of the engine report with its count and rows, in the engine order', async () => {
    view = await openHandoff({ since: '12h' });
    const report = await engineReport('12h');
    const lists: Record<string, { datasetId?: string; sourceId?: string }[]> = {
      newlyFailed: report.newlyFailed,
      recovered: report.recovered,
      stillFailing: report.stillFailing,
      missing: report.missing,
      overdue: report.overdue.datasets,
      snoozed: report.snoozed,
      atRisk: report.atRisk,
      outages: report.outages,
    };
    const shown = [...document.querySelectorAll('section[data-section]')].map((s) =>
      s.getAttribute('data-section'),
    );
    expect(shown).toEqual(Object.keys(lists));
    for (const [name, list] of Object.entries(lists)) {
      // The shift gives every section something.
      expect(list.length, name).toBeGreaterThan(0);
      expect(section(name).getAttribute('data-count'), name).toBe(String(list.length));
      expect(section(name).querySelector('h2')!.textContent, name).toContain(`(${list.length})`);
      expect(rowIds(name), name).toEqual(list.map((item) => item.datasetId ?? item.sourceId));
    }
    // Newly failed: cause, acknowledgement (who, note), the message and the window's other notes.
    const eq = section('newlyFailed').querySelector<HTMLElement>('[data-row="eq-prices"]')!;
    expect(eq.querySelector('[data-cause]')!.textContent).toBe('Ingest failed: E_AUTH_FAILED');
    expect(eq.querySelector('[data-message]')!.textContent).toBe('SFTP login refused for user acme');
    expect(eq.querySelector('[data-ack]')!.textContent).toContain('Acknowledged by alex');
    expect(eq.querySelector('[data-ack-note]')!.textContent).toContain(
      '“Vendor ticket 4411 opened; key expires *today*”',
    );
    expect(eq.querySelector('[data-note]')!.textContent).toContain('Rotating the key | see runbook step 3');
    const rates = section('newlyFailed').querySelector<HTMLElement>('[data-row="rates"]')!;
    expect(rates.querySelector('[data-ack]')!.textContent).toBe('Not acknowledged');
    // Datasets link to the dataset view.
    expect(eq.querySelector('a[data-stop]')!.getAttribute('href')).toBe(
      `/orgs/${SHIFT_ORG}/datasets/eq-prices`,
    );
    // The summary line and the window.
    expect(document.querySelector('[data-summary]')!.textContent).toContain(
      `${report.summary.newlyFailed} newly failed, ${report.summary.recovered} recovered`,
    );
    expect(document.querySelector('[data-window]')!.getAttribute('data-since')).toBe(report.since);
  });

  it('keeps since in the URL: 8 h by default and left out, a choice written, a link read', async () => {
    view = await openHandoff();
    // The first 100 rows of each section are asked for (see the "Show all" test).
    expect(calls.filter((c) => c.name === 'handoff.get').map((c) => c.request)).toEqual([
      { orgId: SHIFT_ORG, since: '8h', rows: 100 },
    ]);
    expect(document.querySelector('[data-since="8h"] input')!.matches(':checked')).toBe(true);
    document.querySelector<HTMLInputElement>('[data-since="24h"] input')!.click();
    await vi.waitFor(() => expect(view!.router.currentRoute.value.query.since).toBe('24h'));
    await vi.waitFor(() =>
      expect(calls.at(-1)!.request).toEqual({ orgId: SHIFT_ORG, since: '24h', rows: 100 }),
    );
    await flushPromises();
    const report = await engineReport('24h');
    expect(section('newlyFailed').getAttribute('data-count')).toBe(String(report.newlyFailed.length));
    document.querySelector<HTMLInputElement>('[data-since="8h"] input')!.click();
    await vi.waitFor(() => expect(view!.router.currentRoute.value.query.since).toBeUndefined());

    // Custom: the picker shows; a picked time goes to the URL in UTC, to the second (the window's clock
    // here is the demo's, 2026-11-21: a later time would be taken as now).
    document.querySelector<HTMLInputElement>('[data-since="custom"] input')!.click();
    await flushPromises();
    const picker = view.wrapper.findComponent(NDatePicker);
    expect(picker.exists()).toBe(true);
    picker.vm.$emit('update:value', Date.parse('2026-11-20T07:15:42.500Z'));
    await vi.waitFor(() => expect(view!.router.currentRoute.value.query.since).toBe('2026-11-20T07:15:42Z'));
    await vi.waitFor(() =>
      expect(calls.at(-1)!.request).toEqual({ orgId: SHIFT_ORG, since: '2026-11-20T07:15:42Z', rows: 100 }),
    );

    // A fixed time from a link is asked as it is, and the date-time picker shows.
    view.wrapper.unmount();
    view = await openHandoff({ since: '2026-11-20T06:00:00Z' });
    expect(calls.at(-1)!.request).toEqual({ orgId: SHIFT_ORG, since: '2026-11-20T06:00:00Z', rows: 100 });
    expect(document.querySelector('[data-since="custom"] input')!.matches(':checked')).toBe(true);
    expect(document.querySelector('[data-since-picker]')).not.toBeNull();
  });

  it.each([
    ['soon', 'is not a duration back from now'],
    ['0h', 'is an empty window'],
    ['2999-01-01T00:00:00Z', 'is in the future'],
  ])(
    'says a link with since=%s is not understood, naming the forms, and shows the last 8 h',
    async (since, why) => {
      view = await openHandoff({ since });
      const alert = document.querySelector('[role="alert"]')!;
      expect(alert.textContent).toContain("The link's since is not valid");
      expect(alert.textContent).toContain(why);
      expect(alert.textContent).toContain('90m, 8h, 2d');
      expect(calls.at(-1)!.request).toEqual({ orgId: SHIFT_ORG, since: '8h', rows: 100 });
    },
  );

  it('"Copy as Markdown" and c copy exactly the shared Markdown of the report shown, and say so', async () => {
    view = await openHandoff({ since: '12h' });
    const expected = handoffMarkdown(await engineReport('12h'));
    expect(document.querySelector('[data-markdown]')!.textContent).toBe(expected);
    await navigator.clipboard.writeText('');
    const button = [...document.querySelectorAll('button')].find(
      (b) => b.textContent?.trim() === 'Copy as Markdown',
    )!;
    button.click();
    await flushPromises();
    expect(await navigator.clipboard.readText()).toBe(expected);
    await vi.waitFor(() => expect(document.body.textContent).toContain('Handoff Markdown copied'));
    await navigator.clipboard.writeText('');
    press('c');
    await flushPromises();
    expect(await navigator.clipboard.readText()).toBe(expected);
  });

  it('j/k move over the datasets of every section, Enter opens the one the keyboard is on', async () => {
    view = await openHandoff({ since: '12h' });
    const report = await engineReport('12h');
    const first = report.newlyFailed[0]!.datasetId;
    const second = report.newlyFailed[1]?.datasetId ?? report.recovered[0]!.datasetId;
    press('j');
    await vi.waitFor(() => expect(focusedStop()).toBe(`newlyFailed:0:${first}`));
    press('j');
    await vi.waitFor(() => expect(focusedStop()).toMatch(new RegExp(`:${second}$`)));
    press('k');
    await vi.waitFor(() => expect(focusedStop()).toBe(`newlyFailed:0:${first}`));
    press('Enter');
    // The dataset view's code loads first (a lazy route): give it time.
    await vi.waitFor(
      () => expect(view!.router.currentRoute.value.fullPath).toBe(`/orgs/${SHIFT_ORG}/datasets/${first}`),
      { timeout: 10_000 },
    );
  });

  it('asks again after each sync cycle of its org, also one that failed, not after another org', async () => {
    view = await openHandoff();
    const before = countCalls(calls, 'handoff.get');
    const cycle = { sourceId: SHIFT_SOURCE.id, orgId: SHIFT_ORG, outcome: 'failed' };
    emit('sync.cycle', cycle);
    await flushPromises();
    expect(countCalls(calls, 'handoff.get')).toBe(before + 1);
    emit('sync.cycle', { ...cycle, orgId: 'other' });
    await flushPromises();
    expect(countCalls(calls, 'handoff.get')).toBe(before + 1);
  });

  it('draws the first 100 rows of a long section, and all of them on "Show all"', async () => {
    // 105 hourly datasets late every time: one at-risk row each (their eight deadlines of the next 8 h on it).
    const late = Array.from({ length: 105 }, (_, i) => ({
      id: `ticks-${String(i).padStart(3, '0')}`,
      cron: '0 * * * *',
      deliveries: [13, 12, 11, 10].map((hour) => ({
        deadline: `2026-11-26T${hour}:00:00.000Z`,
        deliveredAt: `2026-11-26T${hour}:20:00.000Z`,
        status: 'DELIVERED_LATE',
      })),
    }));
    await syncHistories(store, SHIFT_ORG, late, new Date('2026-11-26T13:30:00.000Z'));
    view = await openHandoff();
    const report = await engineReport('8h');
    const rows = atRiskByDataset(report.atRisk).map(({ first }) => first.datasetId);
    expect(rows.length).toBeGreaterThan(100);
    // The section counts what it lists, as the summary does: datasets, not deadlines.
    expect(report.summary.atRisk).toBe(rows.length);
    expect(section('atRisk').getAttribute('data-count')).toBe(String(rows.length));
    expect(rowIds('atRisk')).toEqual(rows.slice(0, 100));
    const more = section('atRisk').querySelector<HTMLButtonElement>('[data-more]')!;
    expect(more.textContent).toContain(`Show all ${rows.length} (${rows.length - 100} more)`);
    // Only the first rows came (the view's one ask; the test's own is the whole report), and the
    // Markdown is the whole report's all the same.
    expect(calls.filter((c) => c.name === 'handoff.get').map((c) => c.request)).toEqual([
      { orgId: SHIFT_ORG, since: '8h', rows: 100 },
      { orgId: SHIFT_ORG, since: '8h' },
    ]);
    expect(document.querySelector('[data-markdown]')!.textContent).toBe(handoffMarkdown(report));
    more.click();
    // The whole report is asked for, the first rows staying on screen meanwhile.
    await vi.waitFor(() => expect(rowIds('atRisk')).toEqual(rows));
    expect(calls.at(-1)).toEqual({ name: 'handoff.get', request: { orgId: SHIFT_ORG, since: '8h' } });
    expect(section('atRisk').querySelector('[data-more]')).toBeNull();
  });

  it('says why when the report cannot be made, with Retry', async () => {
    view = await mountView(client, { name: 'handoff', params: { orgId: 'no-such-org' } });
    await vi.waitFor(() => expect(document.querySelector('.n-result')).not.toBeNull());
    expect(document.body.textContent).toContain('The handoff could not be made');
    expect([...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Retry')).toBe(
      true,
    );
  });
});
