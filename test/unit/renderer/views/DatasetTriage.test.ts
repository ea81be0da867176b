/**
 * The acknowledgement shown where a failure shows (docs/architecture.md#acknowledgements), against the real engine: the dataset
 * view's cause (linking to Triage) with the acknowledge control, whose acknowledgement also lands in the
 * timeline; the delivery view's control for the current failure, and an earlier delivery's ended one.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { acknowledge, endStaleAcknowledgements } from '../../../../electron/store/tables/acknowledgements';
import type { DatasetRow } from '../../../../shared/rows';
import { ENGINE_ORG, type EngineClient, engineClient } from '../../../helpers/engineClient';
import { type MountedView, mountView } from './mountView';
import '../../../../renderer/src/views/DatasetView.vue';
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

const triageSection = () => document.querySelector<HTMLElement>('[data-dataset-triage]');
const byText = (text: string, root: ParentNode = document.body) =>
  [...root.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent?.trim() === text);

describe('the dataset view: cause and acknowledgement', { timeout: 20_000 }, () => {
  it('shows the cause with a link to it in Triage, and acknowledges with a note', async () => {
    const row = await rowWith('FAILED');
    const triage = (await engine.client.call('dataset.triage', {
      orgId: ENGINE_ORG,
      datasetId: row.datasetId,
    }))!;
    view = await mountView(engine.client, {
      name: 'dataset',
      params: { orgId: ENGINE_ORG, datasetId: row.datasetId },
    });
    await vi.waitFor(() => expect(triageSection()).not.toBeNull());
    const link = triageSection()!.querySelector<HTMLAnchorElement>('[data-cause-link]')!;
    expect(link.textContent).toBe(row.causeTitle);
    expect(link.getAttribute('href')).toBe(
      `/orgs/${ENGINE_ORG}/triage?incident=${encodeURIComponent(triage.incidentId)}`,
    );
    expect(triageSection()!.getAttribute('data-cause-id')).toBe(row.causeId);

    byText('Acknowledge', triageSection()!)!.click();
    await vi.waitFor(() =>
      expect(document.querySelector('textarea[aria-label="Note (optional)"]')).not.toBeNull(),
    );
    const note = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Note (optional)"]')!;
    note.value = 'paging the supplier';
    note.dispatchEvent(new Event('input'));
    const dialog = note.closest('form')!;
    dialog.requestSubmit();
    await vi.waitFor(() =>
      expect(triageSection()!.querySelector('[data-ack-badge]')?.textContent).toContain('is on it'),
    );
    expect(triageSection()!.textContent).toContain('paging the supplier');
    const stored = await engine.client.call('acks.list', { orgId: ENGINE_ORG, includeEnded: false });
    expect(stored.map((ack) => [ack.datasetId, ack.note])).toEqual([[row.datasetId, 'paging the supplier']]);
    // The timeline follows at once.
    await vi.waitFor(() =>
      expect(document.querySelector('li[data-kind="acknowledged"]')?.textContent).toContain(
        '“paging the supplier”',
      ),
    );
  });

  it('shows nothing of triage for a dataset that is fine', async () => {
    const row = await rowWith('HEALTHY');
    view = await mountView(engine.client, {
      name: 'dataset',
      params: { orgId: ENGINE_ORG, datasetId: row.datasetId },
    });
    await vi.waitFor(() => expect(document.querySelector('[data-timeline-empty]')).not.toBeNull());
    expect(triageSection()).toBeNull();
  });
});

describe('the delivery view: acknowledgement', { timeout: 20_000 }, () => {
  const section = () => document.querySelector<HTMLElement>('[data-delivery-acknowledgement]');

  it('the current failure: its cause and acknowledgement, with who and the note', async () => {
    const row = await rowWith('FAILED');
    const triage = (await engine.client.call('dataset.triage', {
      orgId: ENGINE_ORG,
      datasetId: row.datasetId,
    }))!;
    await engine.client.call('acks.set', {
      orgId: ENGINE_ORG,
      datasetId: row.datasetId,
      causeId: null,
      note: 'rerun queued',
    });
    view = await mountView(engine.client, {
      name: 'delivery',
      params: { orgId: ENGINE_ORG, datasetId: row.datasetId, deliveryId: triage.deliveryId! },
    });
    await vi.waitFor(() => expect(section()?.querySelector('[data-ack-badge]')).not.toBeNull());
    expect(section()!.querySelector('[data-cause-link]')!.textContent).toBe(triage.causeTitle);
    expect(section()!.textContent).toContain('rerun queued');
    expect(byText('Withdraw', section()!)).toBeDefined();
  });

  it('an earlier failed delivery: the acknowledgement it had and why it ended', async () => {
    const row = await rowWith('FAILED');
    const dataset = (await engine.client.call('dataset.get', {
      orgId: ENGINE_ORG,
      datasetId: row.datasetId,
    }))!;
    const current = (await engine.client.call('dataset.triage', {
      orgId: ENGINE_ORG,
      datasetId: row.datasetId,
    }))!.deliveryId!;
    const earlier = dataset.deliveryEventList.find((e) => e.deliveryId !== current)!.deliveryId!;
    engine.store.transaction(() => {
      acknowledge(engine.store, {
        orgId: ENGINE_ORG,
        datasetId: row.datasetId,
        deliveryId: earlier,
        status: 'FAILED',
        causeId: null,
        note: 'known outage',
        by: 'kim',
        at: '2026-11-20T10:00:00.000Z',
      });
      endStaleAcknowledgements(
        engine.store,
        ENGINE_ORG,
        row.datasetId,
        'FAILED',
        current,
        '2026-11-20T12:00:00.000Z',
      );
    });
    view = await mountView(engine.client, {
      name: 'delivery',
      params: { orgId: ENGINE_ORG, datasetId: row.datasetId, deliveryId: earlier },
    });
    await vi.waitFor(() => expect(section()?.querySelector('[data-past-acknowledgement]')).not.toBeNull());
    const text = section()!.textContent!.replace(/\s+/g, ' ');
    expect(text).toContain('Acknowledged by kim');
    expect(text).toContain('known outage');
    expect(text).toContain(`failed again (delivery ${current})`);
    expect(byText('Acknowledge', section()!)).toBeUndefined();
  });
});
