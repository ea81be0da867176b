/**
 * The window while an export holds the writers (docs/decisions.md "Export in slices"): every read the
 * window makes is answered, as before, while a write it asks for (a key, a snooze) waits for the
 * export's end and then happens; and Settings → Data's export writes the same file as the CLI's.
 */
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportSnapshot } from '../../../electron/query/exportSnapshot';
import { ENGINE_ORG, type EngineClient, engineClient } from '../../helpers/engineClient';

let engine: EngineClient;
beforeEach(async () => {
  engine = await engineClient({ datasets: 120 });
});
afterEach(async () => {
  await engine.close();
});

/** Holds the writers, as an export in progress does, until the result is called. */
async function exportInProgress(): Promise<() => Promise<void>> {
  let release!: () => void;
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const done = engine.store.holdingWriters(async () => {
    held();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await holding;
  return async () => {
    release();
    await done;
  };
}

const turns = async (count = 10) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('the window while an export runs', () => {
  it('its reads are answered; its writes wait for the end, then happen', async () => {
    const { client } = engine;
    const orgId = ENGINE_ORG;
    const { rows } = await client.call('datasets.rows', {
      orgId,
      filters: [],
      search: '',
      sort: '',
      pageSize: 200,
      pageToken: '',
    });
    const failed = rows.find((row) => row.status === 'FAILED')!;
    const datasetId = failed.datasetId;
    const release = await exportInProgress();

    const reads = await Promise.all([
      client.call('orgs.list', {}),
      client.call('datasets.rows', { orgId, filters: [], search: '', sort: '', pageSize: 5, pageToken: '' }),
      client.call('datasets.counts', { orgId, filters: [], search: '', sort: '' }),
      client.call('dataset.get', { orgId, datasetId }),
      client.call('delivery.tasks', { orgId, deliveryId: failed.deliveryId!, includeRunDetails: true }),
      client.call('keys.list', {}),
      client.call('snoozes.list', { orgId }),
      client.call('incidents.list', { orgId }),
      client.call('acks.list', { orgId, includeEnded: true }),
      client.call('dataset.triage', { orgId, datasetId }),
      client.call('dataset.timeline', { orgId, datasetId }),
      client.call('upcoming.list', { orgId, hours: 24 }),
      client.call('overdue.get', { orgId }),
      client.call('stats.get', { orgId, groupBy: 'supplier', days: 30, key: null }),
      client.call('handoff.get', { orgId, since: '8h' }),
    ]);
    expect(reads.every((answer) => answer !== undefined)).toBe(true);

    let created = false;
    const key = client.call('keys.create', { orgId, name: 'during export' }).then((answer) => {
      created = true;
      return answer;
    });
    let snoozed = false;
    const snooze = client.call('snoozes.set', { orgId, datasetId, kind: 'next-delivery' }).then(() => {
      snoozed = true;
    });
    await turns();
    expect([created, snoozed]).toEqual([false, false]);
    await release();
    await Promise.all([key, snooze]);
    expect((await client.call('keys.list', {})).map((each) => each.name)).toContain('during export');
    expect((await client.call('snoozes.list', { orgId })).map((each) => each.datasetId)).toEqual([datasetId]);
  });

  it("Settings → Data's export writes what the CLI's export writes", async () => {
    const { path, datasets } = await engine.client.call('data.export', { orgId: ENGINE_ORG });
    expect(datasets).toBe(120);
    let text = '';
    exportSnapshot(engine.store, ENGINE_ORG, (chunk) => (text += chunk));
    expect(readFileSync(path, 'utf8')).toBe(text);
  });
});
