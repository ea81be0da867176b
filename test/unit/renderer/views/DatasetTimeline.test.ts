/**
 * The dataset view's timeline and triage (docs/architecture.md#incidents) against the real engine: entries newest first,
 * each kind in words, status changes linking their delivery, the empty state; the cause with its link to
 * Triage and the acknowledgement in force.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { addTimelineEntry } from '../../../../electron/store/tables/timeline';
import type { DatasetRow } from '../../../../shared/rows';
import { ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';
import { type MountedView, mountView } from './mountView';
import '../../../../renderer/src/views/DatasetView.vue';

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

async function rowWith(status: string): Promise<DatasetRow> {
  const page = await engine.client.call('datasets.rows', {
    orgId: ENGINE_ORG,
    filters: [`deliveryStatus.eq.${status}`],
    search: '',
    sort: '',
    pageToken: null,
    pageSize: 1,
  });
  if (!page.rows[0]) throw new Error(`the demo data has no ${status} dataset`);
  return page.rows[0];
}

async function open(datasetId: string): Promise<MountedView> {
  view = await mountView(engine.client, { name: 'dataset', params: { orgId: ENGINE_ORG, datasetId } });
  await vi.waitFor(() => expect(view!.wrapper.find('h1').exists()).toBe(true));
  return view;
}

const timeline = (mounted: MountedView) => mounted.wrapper.get('section[aria-labelledby="timeline-title"]');

describe('the dataset timeline', { timeout: 15_000 }, () => {
  it('lists what the mirror saw and did, newest first, each kind in words', async () => {
    const row = await rowWith('FAILED');
    const entry = (at: string, kind: Parameters<typeof addTimelineEntry>[1]['kind'], extra = {}) =>
      addTimelineEntry(engine.store, { orgId: ENGINE_ORG, datasetId: row.datasetId, at, kind, ...extra });
    engine.store.transaction(() => {
      entry('2026-11-21T01:00:00.000Z', 'status', { from: null, to: 'HEALTHY', deliveryId: 'd-0' });
      entry('2026-11-21T02:00:00.000Z', 'status', { from: 'HEALTHY', to: 'FAILED', deliveryId: 'd-1' });
      entry('2026-11-21T02:01:00.000Z', 'notified', { deliveryId: 'd-1', text: 'FAILED: Daily prices' });
      entry('2026-11-21T02:31:00.000Z', 'reminded', { deliveryId: 'd-1', text: 'Still failing' });
      entry('2026-11-21T03:00:00.000Z', 'acknowledged', { deliveryId: 'd-1', by: 'sam', text: 'on it' });
      entry('2026-11-21T03:30:00.000Z', 'acknowledgement-ended', { text: 'delivered (HEALTHY)' });
      entry('2026-11-21T03:40:00.000Z', 'unacknowledged', { by: 'kim' });
    });
    const mounted = await open(row.datasetId);
    await vi.waitFor(() => expect(timeline(mounted).findAll('li')).toHaveLength(7));
    const items = timeline(mounted).findAll('li');
    expect(items.map((item) => item.attributes('data-kind'))).toEqual([
      'unacknowledged',
      'acknowledgement-ended',
      'acknowledged',
      'reminded',
      'notified',
      'status',
      'status',
    ]);
    expect(items[0]!.text()).toContain('Acknowledgement withdrawn by kim');
    expect(items[1]!.text()).toContain('Acknowledgement ended');
    expect(items[1]!.text()).toContain('delivered (HEALTHY)');
    expect(items[2]!.text()).toContain('Acknowledged by sam');
    expect(items[2]!.text()).toContain('“on it”');
    expect(items[3]!.text()).toContain('Reminder raised');
    expect(items[4]!.text()).toContain('Notification raised');
    expect(items[4]!.text()).toContain('FAILED: Daily prices');
    expect(items[5]!.text()).toContain('HEALTHY → FAILED');
    expect(items[6]!.text()).toContain('First seen HEALTHY');
    // Relative and exact time, machine-readable.
    expect(items[5]!.get('time').attributes('datetime')).toBe('2026-11-21T02:00:00.000Z');
    const link = items[5]!.get('a');
    expect(link.text()).toBe('d-1');
    expect(link.attributes('href')).toBe(
      `/orgs/${ENGINE_ORG}/datasets/${encodeURIComponent(row.datasetId)}/deliveries/d-1`,
    );
  });

  it('says so when nothing is recorded yet', async () => {
    const row = await rowWith('HEALTHY');
    const mounted = await open(row.datasetId);
    await vi.waitFor(() => expect(timeline(mounted).find('[data-timeline-empty]').exists()).toBe(true));
    expect(timeline(mounted).find('ol').exists()).toBe(false);
  });

  it('shows the first 20 entries and the rest on request', async () => {
    const row = await rowWith('HEALTHY');
    engine.store.transaction(() => {
      for (let i = 0; i < 25; i++)
        addTimelineEntry(engine.store, {
          orgId: ENGINE_ORG,
          datasetId: row.datasetId,
          at: new Date(Date.UTC(2026, 10, 20, i)).toISOString(),
          kind: 'notified',
          text: `n${i}`,
        });
    });
    const mounted = await open(row.datasetId);
    await vi.waitFor(() => expect(timeline(mounted).findAll('li')).toHaveLength(20));
    expect(timeline(mounted).get('li').text()).toContain('n24');
    const more = timeline(mounted)
      .findAll('button')
      .find((b) => b.text() === 'Show all 25 entries')!;
    await more.trigger('click');
    await vi.waitFor(() => expect(timeline(mounted).findAll('li')).toHaveLength(25));
  });
});
