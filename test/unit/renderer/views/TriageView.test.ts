/**
 * The Triage view against the real engine (docs/architecture.md#incidents): the causes as the engine lists them, worst
 * first; a reload after a sync cycle of its org that changed something (an acknowledgement made at
 * another door, the CLI, shows up then), none for a cycle that changed nothing or another org's; the
 * empty state of an org with nothing FAILED or MISSING; acknowledging a cause from the view.
 */
import { flushPromises } from '@vue/test-utils';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadDemo } from '../../../../electron/demo/load';
import { writeDataset } from '../../../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../../../electron/store/tables/orgs';
import { EMPTY_COUNTS, type CycleEvent } from '../../../../shared/sync';
import { ENGINE_NOW, ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';
import { fixtureRecords } from '../../../helpers/fixtures';
import { type MountedView, countCalls, mountView } from './mountView';
import '../../../../renderer/src/views/TriageView.vue';
import { regroup } from '../../../helpers/incidents';

let engine: EngineClient;
let view: MountedView | null = null;

beforeEach(async () => {
  engine = await engineClient({ datasets: 120 });
});
afterEach(async () => {
  view?.wrapper.unmount();
  view = null;
  await engine.close();
});

const shownIds = (): string[] =>
  [...document.querySelectorAll('section[data-incident-id]')].map((card) =>
    card.getAttribute('data-incident-id')!,
  );
const card = (causeId: string) =>
  document.querySelector<HTMLElement>(`section[data-incident-id="${CSS.escape(causeId)}"]`);

function cycle(orgId: string, written: number): CycleEvent {
  return {
    sourceId: 'src-1',
    orgId,
    kind: 'poll',
    outcome: 'ok',
    firstSync: false,
    transitions: [],
    counts: { ...EMPTY_COUNTS, received: written, written },
    error: null,
    startedAt: ENGINE_NOW.toISOString(),
    endedAt: ENGINE_NOW.toISOString(),
  };
}

async function openTriage(orgId = ENGINE_ORG, query: Record<string, string> = {}): Promise<MountedView> {
  const mounted = await mountView(engine.client, { name: 'triage', params: { orgId }, query });
  await vi.waitFor(() => expect(document.querySelector('[data-causes]')).not.toBeNull());
  return mounted;
}

describe('the Triage view', { timeout: 20_000 }, () => {
  it('lists the causes as the engine does, worst first, with their counts', async () => {
    const causes = await engine.client.call('incidents.list', { orgId: ENGINE_ORG });
    expect(causes.length).toBeGreaterThan(2);
    view = await openTriage();
    expect(shownIds()).toEqual(causes.map((cause) => cause.incidentId));
    for (const cause of causes) {
      expect(card(cause.incidentId)!.getAttribute('data-count')).toBe(String(cause.count));
      expect(card(cause.incidentId)!.querySelector('button[aria-expanded]')!.textContent).toContain(
        cause.title,
      );
    }
    const summary = document.querySelector('[data-causes]')!;
    expect(summary.getAttribute('data-causes')).toBe(String(causes.length));
  });

  it('reloads after a cycle of its org that changed something, not after one that changed nothing', async () => {
    view = await openTriage();
    const [worst] = await engine.client.call('incidents.list', { orgId: ENGINE_ORG });
    // Acknowledged at another door (the CLI): the view learns of it with the next cycle that changed data.
    await engine.client.call('acks.set', {
      orgId: ENGINE_ORG,
      datasetId: null,
      causeId: worst!.incidentId,
      note: 'on it',
    });
    const asked = countCalls(engine.calls, 'incidents.list');
    engine.emit('sync.cycle', cycle(ENGINE_ORG, 0));
    engine.emit('sync.cycle', cycle('another-org', 5));
    await flushPromises();
    expect(countCalls(engine.calls, 'incidents.list')).toBe(asked);
    expect(card(worst!.incidentId)!.getAttribute('data-unacknowledged')).toBe(String(worst!.count));

    engine.emit('sync.cycle', cycle(ENGINE_ORG, 3));
    await vi.waitFor(() => expect(card(worst!.incidentId)!.getAttribute('data-unacknowledged')).toBe('0'));
    expect(countCalls(engine.calls, 'incidents.list')).toBe(asked + 1);
    expect(card(worst!.incidentId)!.querySelector('[data-ack-note]')!.textContent).toBe('on it');
    expect(shownIds().indexOf(worst!.incidentId)).toBeGreaterThan(0);
  });

  it('says when nothing needs triage, with a link to the datasets', async () => {
    loadDemo(engine.store, { orgId: 'quiet', datasets: 0, seed: 1, now: ENGINE_NOW });
    view = await openTriage('quiet');
    expect(document.body.textContent).toContain('Nothing needs triage');
    const link = [...document.querySelectorAll('a')].find((a) =>
      a.textContent?.includes('Go to the datasets'),
    );
    expect(link?.getAttribute('href')).toBe('/orgs/quiet/datasets');
    expect(shownIds()).toEqual([]);
  });

  it('draws a long list a screen first, then all of it; a link to the last incident draws and opens it at once', async () => {
    loadDemo(engine.store, { orgId: 'long', datasets: 400, seed: 3, now: ENGINE_NOW });
    const causes = await engine.client.call('incidents.list', { orgId: 'long' });
    expect(causes.length).toBeGreaterThan(24);
    view = await openTriage('long');
    await vi.waitFor(() => expect(shownIds()).toEqual(causes.map((cause) => cause.incidentId)));
    view.wrapper.unmount();

    // The last incident is past the first screen: the link draws up to it before scrolling there.
    const last = causes.at(-1)!.incidentId;
    view = await openTriage('long', { incident: last });
    await vi.waitFor(() => expect(card(last)).not.toBeNull());
    await flushPromises();
    expect(card(last)!.querySelector('button[aria-expanded]')!.getAttribute('aria-expanded')).toBe('true');
    expect(document.activeElement?.getAttribute('data-stop')).toBe(`cause:${last}`);
  });

  it('draws the first 200 datasets of a large cause, and the rest on request', async () => {
    // 250 datasets of one supplier MISSING: one cause.
    engine.store.transaction(() => {
      ensureOrg(engine.store, 'big', ENGINE_NOW);
      for (const base of fixtureRecords(250, 5, 'big')) {
        // All due at one time: one incident (a link by cause, from before incidents, opens it).
        const event = {
          ...base.deliveryEventList[0]!,
          status: 'MISSING',
          deliveredAt: null,
          deliveryDeadline: '2026-11-21T04:00:00.000Z',
        };
        writeDataset(
          engine.store,
          'big',
          {
            ...base,
            supplier: { id: 'SUP-BIG', name: 'Big Supplier' },
            latestDeliveryStatus: 'MISSING',
            deliveryId: event.deliveryId,
            deliveryEventList: [event],
          },
          { events: 'replace', deliveriesPerDataset: 30 },
        );
      }
      regroup(engine.store, 'big', ENGINE_NOW);
    });
    view = await openTriage('big', { cause: 'missing:SUP-BIG' });
    const [incident] = await engine.client.call('incidents.list', { orgId: 'big' });
    const big = () => card(incident!.incidentId)!;
    await vi.waitFor(() => expect(big().querySelectorAll('tr[data-dataset-id]')).toHaveLength(200));
    expect(big().getAttribute('data-count')).toBe('250');
    const more = [...big().querySelectorAll('button')].find((b) => b.textContent?.includes('Show all 250'));
    more!.click();
    await vi.waitFor(() => expect(big().querySelectorAll('tr[data-dataset-id]')).toHaveLength(250));
  });

  it('acknowledges a whole cause with a note from its Acknowledge button', async () => {
    const [worst] = await engine.client.call('incidents.list', { orgId: ENGINE_ORG });
    view = await openTriage(ENGINE_ORG, { incident: worst!.incidentId });
    await vi.waitFor(() =>
      expect(
        card(worst!.incidentId)!.querySelector('button[aria-expanded]')!.getAttribute('aria-expanded'),
      ).toBe('true'),
    );
    const button = card(worst!.incidentId)!.querySelector<HTMLButtonElement>(
      `.head button[aria-label="Acknowledge ${worst!.title}"]`,
    )!;
    button.click();
    await vi.waitFor(() => expect(document.querySelector('[data-ack-note-input] textarea')).not.toBeNull());
    const note = document.querySelector<HTMLTextAreaElement>('[data-ack-note-input] textarea')!;
    note.value = 'credentials rotated';
    note.dispatchEvent(new Event('input'));
    document.querySelector<HTMLFormElement>('.ack-dialog form')!.requestSubmit();
    await vi.waitFor(() => expect(card(worst!.incidentId)!.getAttribute('data-unacknowledged')).toBe('0'));
    const acks = await engine.client.call('acks.list', { orgId: ENGINE_ORG, includeEnded: false });
    const ofCause = acks.filter((ack) => ack.causeId === worst!.incidentId);
    expect(ofCause).toHaveLength(worst!.count);
    expect(ofCause.every((ack) => ack.note === 'credentials rotated')).toBe(true);
  });
});
