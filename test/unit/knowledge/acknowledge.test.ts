/**
 * The acknowledgement lifecycle (docs/architecture.md#acknowledgements) through the sync's own commit (applySync): an
 * acknowledgement holds while the dataset keeps that status with that delivery, survives a restart, and
 * ends by itself when the dataset delivers, fails again with another delivery, or misses the next one —
 * each step on the dataset's timeline. A cause's acknowledgement covers the failures of the moment only.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatasetRecord } from '../../../shared/schemas';
import {
  NothingToAcknowledge,
  acknowledgeCause,
  acknowledgeDataset,
  unacknowledgeDataset,
} from '../../../electron/knowledge/acknowledge';
import { InvalidArgument } from '../../../electron/query/errors';
import { listIncidents } from '../../../electron/query/incidents';
import { storedDatasetIds } from '../../../electron/query/storedHealth';
import {
  acknowledge,
  listAcknowledgements,
  openAcknowledgement,
} from '../../../electron/store/tables/acknowledgements';
import { Store } from '../../../electron/store/database';
import { writeTasks } from '../../../electron/store/tables/datasetWriter';
import { datasetTimeline } from '../../../electron/store/tables/timeline';
import { applySync } from '../../../electron/sync/apply';
import { ChangeSet, defaultSpoolOptions } from '../../../electron/sync/changes';
import { fixtureRecords, fixtureTasks } from '../../helpers/fixtures';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { regroup } from '../../helpers/incidents';

const ORG = 'acme';
let dataDir: string;
let store: Store;
let clock: Date;

beforeEach(async () => {
  dataDir = tempDir('dh-ack-');
  store = await Store.open({ dataDir, checkpoint: { openCheckpointDelayMs: 0 } });
  clock = new Date('2026-11-21T06:00:00.000Z');
});
afterEach(async () => {
  await store.close();
  removeTempDirs();
});

const who = () => ({ by: 'sam', now: clock });
const tick = (minutes: number) => (clock = new Date(clock.getTime() + minutes * 60_000));

/** Dataset `id` as the remote reports it: latest delivery `deliveryId` with `status`, supplier `supplier`. */
function record(id: string, status: string, deliveryId: string, supplier = 'sup-a'): DatasetRecord {
  const base = fixtureRecords(1, 5, id)[0]!;
  return {
    ...base,
    datasetId: id,
    datasetName: `Dataset ${id}`,
    supplier: { id: supplier, name: `Supplier ${supplier}` },
    deliveryId,
    latestDeliveryStatus: status,
    deliveryEventList: [
      {
        ...base.deliveryEventList[0]!,
        status,
        deliveryId,
        // Later deliveries have later deadlines (the id's number).
        deliveryDeadline: new Date(
          Date.UTC(2026, 10, 21, Number(deliveryId.replace(/\D/g, ''))),
        ).toISOString(),
        deliveredAt: status === 'MISSING' ? null : clock.toISOString(),
      },
    ],
  };
}

/** One sync cycle that received these records (their FAILED deliveries' tasks stored, as the sync does). */
async function sync(...records: DatasetRecord[]): Promise<void> {
  await syncKeeping(100, ...records);
}

async function syncKeeping(deliveriesPerDataset: number, ...records: DatasetRecord[]): Promise<void> {
  const changes = new ChangeSet(defaultSpoolOptions());
  for (const each of records) changes.add({ record: each, hash: `${Math.random()}` }, 100);
  const stored = new Map(storedDatasetIds(store, ORG).map((id) => [id, true]));
  await applySync(store, { orgId: ORG, changes, stored, now: clock, deliveriesPerDataset });
  store.transaction(() => {
    for (const each of records)
      if (each.latestDeliveryStatus === 'FAILED')
        writeTasks(store, ORG, each.deliveryId!, fixtureTasks(each.deliveryId!, each.datasetId));
    regroup(store, ORG, clock);
  });
}

async function restart(): Promise<void> {
  await store.close();
  store = await Store.open({ dataDir, checkpoint: { openCheckpointDelayMs: 0 } });
}

const kinds = (id: string) => datasetTimeline(store, ORG, id, 100).map((entry) => entry.kind);

describe('acknowledgement lifecycle', () => {
  it('holds across a restart and ends when the dataset delivers healthy', async () => {
    await sync(record('a', 'FAILED', 'd1'));
    tick(5);
    const ack = acknowledgeDataset(store, ORG, 'a', '  rotating the key ', who());
    expect(ack).toMatchObject({ deliveryId: 'd1', status: 'FAILED', note: 'rotating the key', by: 'sam' });
    await restart();
    expect(openAcknowledgement(store, ORG, 'a')).toMatchObject({
      deliveryId: 'd1',
      note: 'rotating the key',
    });
    expect(listIncidents(store, ORG)[0]!.unacknowledged).toBe(0);
    tick(30);
    await sync(record('a', 'HEALTHY', 'd2'));
    expect(openAcknowledgement(store, ORG, 'a')).toBeNull();
    expect(listAcknowledgements(store, ORG, true)).toEqual([
      expect.objectContaining({
        deliveryId: 'd1',
        endedAt: clock.toISOString(),
        endReason: 'delivered (HEALTHY)',
      }),
    ]);
    expect(kinds('a')).toEqual(['acknowledgement-ended', 'status', 'acknowledged', 'status']);
  });

  it('ends when the dataset fails again with another delivery: that failure is unacknowledged', async () => {
    await sync(record('a', 'FAILED', 'd1'));
    acknowledgeDataset(store, ORG, 'a', null, who());
    tick(60);
    await sync(record('a', 'FAILED', 'd2'));
    expect(openAcknowledgement(store, ORG, 'a')).toBeNull();
    expect(listAcknowledgements(store, ORG, true)[0]!.endReason).toBe('failed again (delivery d2)');
    const [cause] = listIncidents(store, ORG);
    expect(cause!.datasets[0]).toMatchObject({ deliveryId: 'd2', acknowledgement: null });
  });

  it('ends when a MISSING dataset misses its next delivery too (no status change)', async () => {
    await sync(record('m', 'MISSING', 'd1'));
    acknowledgeDataset(store, ORG, 'm', 'supplier says tomorrow', who());
    tick(60);
    await sync(record('m', 'MISSING', 'd2'));
    expect(openAcknowledgement(store, ORG, 'm')).toBeNull();
    expect(listAcknowledgements(store, ORG, true)[0]!.endReason).toBe('missing');
  });

  it('ends when a MISSING delivery arrives FAILED: "failed", not "failed again"', async () => {
    await sync(record('m', 'MISSING', 'd1'));
    acknowledgeDataset(store, ORG, 'm', null, who());
    tick(60);
    await sync(record('m', 'FAILED', 'd1'));
    expect(listAcknowledgements(store, ORG, true)[0]!.endReason).toBe('failed (delivery d1)');
  });

  it('keeps one acknowledgement per dataset: acknowledging another failure ends the earlier one', async () => {
    await sync(record('a', 'FAILED', 'd1'));
    acknowledgeDataset(store, ORG, 'a', null, who());
    tick(1);
    const base = { orgId: ORG, datasetId: 'a', status: 'FAILED', causeId: null, note: null, by: 'kim' };
    store.transaction(() => acknowledge(store, { ...base, deliveryId: 'd0', at: clock.toISOString() }));
    expect(listAcknowledgements(store, ORG, true).map((ack) => [ack.deliveryId, ack.endReason])).toEqual([
      ['d0', null],
      ['d1', 'another failure was acknowledged'],
    ]);
    // The store refuses two at once, whoever writes.
    expect(() =>
      store.run("UPDATE acknowledgements SET ended_at = NULL WHERE org_id = ? AND dataset_id = 'a'", [ORG]),
    ).toThrow(/UNIQUE/);
  });

  it('holds through a sync that re-sends the same failure', async () => {
    await sync(record('a', 'FAILED', 'd1'));
    acknowledgeDataset(store, ORG, 'a', null, who());
    tick(1);
    await sync(record('a', 'FAILED', 'd1'));
    expect(openAcknowledgement(store, ORG, 'a')).not.toBeNull();
  });

  it('acknowledges a cause’s current failures only; one that joins later is new', async () => {
    await sync(
      record('a', 'FAILED', 'd1'),
      record('b', 'FAILED', 'd1b', 'sup-b'),
      record('h', 'HEALTHY', 'd1h'),
    );
    const acks = acknowledgeCause(store, ORG, 'NORMALIZE:E_SCHEMA_MISMATCH', 'vendor changed format', who());
    // A cause key with one live incident names it: the acknowledgements carry the incident's id.
    const incident = listIncidents(store, ORG)[0]!.incidentId;
    expect(acks.map((each) => [each.datasetId, each.causeId])).toEqual([
      ['a', incident],
      ['b', incident],
    ]);
    tick(10);
    await sync(record('h', 'FAILED', 'd2h'));
    const [cause] = listIncidents(store, ORG);
    expect(cause).toMatchObject({ incidentId: incident, count: 3, unacknowledged: 1 });
    // Again: only the new one.
    expect(
      acknowledgeCause(store, ORG, 'normalize:E_SCHEMA_MISMATCH', null, who()).map((a) => a.datasetId),
    ).toEqual(['h']);
  });

  it('withdraws an acknowledgement, on the timeline', async () => {
    await sync(record('a', 'FAILED', 'd1'));
    acknowledgeDataset(store, ORG, 'a', null, who());
    tick(1);
    expect(unacknowledgeDataset(store, ORG, 'a', who())).toBe(true);
    expect(unacknowledgeDataset(store, ORG, 'a', who())).toBe(false);
    expect(openAcknowledgement(store, ORG, 'a')).toBeNull();
    expect(kinds('a')).toEqual(['unacknowledged', 'acknowledged', 'status']);
  });

  it('refuses what cannot be acknowledged, naming the field', async () => {
    await sync(record('a', 'FAILED', 'd1'), record('h', 'HEALTHY', 'd1h'));
    expect(() => acknowledgeDataset(store, ORG, 'h', null, who())).toThrow(NothingToAcknowledge);
    expect(() => acknowledgeDataset(store, ORG, 'nope', null, who())).toThrow(NothingToAcknowledge);
    expect(() => acknowledgeDataset(store, ORG, 'a', 'x'.repeat(2001), who())).toThrow(
      expect.objectContaining({ field: 'note' }) as unknown as Error,
    );
    expect(() => acknowledgeCause(store, ORG, 'bogus:E_X', null, who())).toThrow(InvalidArgument);
    expect(() => acknowledgeCause(store, ORG, 'ingest:E_NONE', null, who())).toThrow(NothingToAcknowledge);
    expect(() => acknowledgeDataset(store, ORG, 'a', null, { by: ' ', now: clock })).toThrow(
      expect.objectContaining({ field: 'by' }) as unknown as Error,
    );
    expect(listAcknowledgements(store, ORG, true)).toEqual([]);
  });

  it('refuses control characters in who and in the note (a note keeps its line breaks and tabs)', async () => {
    await sync(record('a', 'FAILED', 'd1'));
    expect(() => acknowledgeDataset(store, ORG, 'a', null, { by: 'sam\u001b[31m', now: clock })).toThrow(
      new InvalidArgument(
        'by',
        'the name of who acknowledges has a control character (U+001B); a name is plain text',
      ),
    );
    expect(() => acknowledgeDataset(store, ORG, 'a', 'on it\u0000', who())).toThrow(
      new InvalidArgument(
        'note',
        'note has a control character (U+0000); a note holds text, line breaks and tabs',
      ),
    );
    expect(() => acknowledgeDataset(store, ORG, 'a', 'on it\u0085', who())).toThrow(InvalidArgument);
    expect(listAcknowledgements(store, ORG, true)).toEqual([]);
    const made = acknowledgeDataset(store, ORG, 'a', '  rotating:\n\t- the key  ', {
      by: ' Ana María ',
      now: clock,
    });
    expect(made).toMatchObject({ note: 'rotating:\n\t- the key', by: 'Ana María' });
  });
});

describe('timeline retention', () => {
  it('drops entries older than the oldest retained delivery when the history moves on, status unchanged', async () => {
    clock = new Date('2026-11-21T01:30:00.000Z');
    await syncKeeping(2, record('a', 'HEALTHY', 'd1'));
    expect(kinds('a')).toEqual(['status']);
    tick(60);
    await syncKeeping(2, record('a', 'HEALTHY', 'd2'));
    // d1 (due 01:00) and d2 (02:00) kept: the first sighting (01:30) is within that history.
    expect(kinds('a')).toEqual(['status']);
    tick(60);
    await syncKeeping(2, record('a', 'HEALTHY', 'd3'));
    // Only d2 and d3 are kept now: the entry from 01:30 predates them and goes, though no status changed.
    expect(kinds('a')).toEqual([]);
  });
});
