/**
 * A member's store applies the team's operations (electron/team/localOperations.ts,
 * store/tables/teamLog.ts): two members given the same operations, in any order and however often,
 * hold the same acknowledgements and snoozes, and they are the rules' own (electron/team/converge.ts);
 * whether an acknowledgement holds comes from the mirrored health. What a member does for a linked org
 * becomes its operation in the outbox, by its team name; a viewer's desktop refuses.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TeamOperation } from '../../../shared/team';
import {
  acknowledgeCause,
  acknowledgeDataset,
  unacknowledgeDataset,
} from '../../../electron/knowledge/acknowledge';
import { snoozeDataset, unsnoozeDataset } from '../../../electron/knowledge/snooze';
import { incidentOfDataset } from '../../../electron/query/incidents';
import { Store } from '../../../electron/store/database';
import { openAcknowledgement } from '../../../electron/store/tables/acknowledgements';
import { type TeamLink, saveTeamLink, teamLinkOf } from '../../../electron/store/tables/teamLinks';
import { dropOperations, markPushed, outboxOf, operationsOf } from '../../../electron/store/tables/teamLog';
import { joinTeam } from '../../../electron/team/joining';
import { storedDatasetIds } from '../../../electron/query/storedHealth';
import { applySync } from '../../../electron/sync/apply';
import { ChangeSet, defaultSpoolOptions } from '../../../electron/sync/changes';
import { fixtureRecords } from '../../helpers/fixtures';
import { datasetTimeline } from '../../../electron/store/tables/timeline';
import { TeamState } from '../../../electron/team/converge';
import { ViewerCannotChange, recordPulled } from '../../../electron/team/localOperations';
import { arrival, operations } from '../../helpers/teamOperations';
import { MIRRORED_AT, mirrorTwoTroubles, shownState } from '../../helpers/teamMirror';

const NOW = MIRRORED_AT;
const ORGS = ['acme', 'other'];

const link = (orgId: string, role: 'member' | 'viewer' = 'member'): TeamLink => ({
  orgId,
  url: 'http://127.0.0.1:1',
  member: 'Alice',
  role,
  token: 'dht_x',
  tokenSealed: false,
  sourceId: `team-${orgId}`,
  setAside: null,
  cursor: 0,
  clock: null,
  joinedAt: NOW.toISOString(),
});

async function memberStore(): Promise<Store> {
  const store = await Store.open({ dataDir: null });
  for (const orgId of ORGS) {
    await mirrorTwoTroubles(store, orgId);
    store.transaction(() => saveTeamLink(store, link(orgId)));
  }
  return store;
}

const reset = (store: Store): void =>
  store.transaction(() => {
    for (const table of ['team_log', 'acknowledgements', 'snoozes', 'timeline'])
      store.run(`DELETE FROM ${table}`);
    for (const orgId of ORGS) saveTeamLink(store, link(orgId));
  });

const shown = (store: Store) => shownState(store);

/** Pulls `ops` in pieces, as a member reading pages of the team server's answers. */
function pull(store: Store, ops: readonly TeamOperation[]): void {
  for (let start = 0; start < ops.length; start += 3)
    ORGS.forEach((orgId) => {
      const page = ops
        .slice(start, start + 3)
        .filter((op) => op.orgId === orgId)
        .map((op, index) => ({ ...op, seq: start + index + 1 }));
      recordPulled(store, orgId, page, start + 3, NOW);
    });
}

describe("a member's store", () => {
  let one: Store;
  let two: Store;
  beforeAll(async () => {
    [one, two] = [await memberStore(), await memberStore()];
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it('shows the same state for the same operations, in any order, and the rules decide it', () => {
    fc.assert(
      fc.property(
        operations.chain((ops) => fc.tuple(fc.constant(ops), arrival(ops), arrival(ops))),
        ([ops, first, second]) => {
          reset(one);
          reset(two);
          pull(one, first);
          pull(two, second);
          const state = shown(one);
          expect(shown(two)).toEqual(state);
          const model = TeamState.of(ops).summary();
          const holds = (ack: { datasetId: string; deliveryId: string; status: string }) =>
            (ack.datasetId === 'ds-a' && ack.deliveryId === 'd-1' && ack.status === 'FAILED') ||
            (ack.datasetId === 'ds-b' && ack.deliveryId === 'd-2' && ack.status === 'MISSING');
          // Per delivery, the latest word: an acknowledgement (open while the health says it holds) or none.
          const expected = model.acknowledgements
            .filter((ack) => ack.acknowledged)
            .map((ack) => ({
              org_id: ack.orgId,
              dataset_id: ack.datasetId,
              delivery_id: ack.deliveryId,
              status: ack.status,
              note: ack.note,
              by_name: ack.stamp.author,
              at: ack.stamp.at.slice(0, 24),
              ended_at: holds(ack) ? null : NOW.toISOString(),
            }));
          expect(state.acknowledgements.map(({ cause_id: _, end_reason: __, ...row }) => row)).toEqual(
            expected,
          );
          for (const snooze of model.snoozes) {
            const row = state.snoozes.find(
              (each) => each.org_id === snooze.orgId && each.dataset_id === snooze.datasetId,
            );
            expect(row === undefined).toBe(!snooze.snoozed);
            if (row) expect(row).toMatchObject({ kind: snooze.kind, until: snooze.until });
          }
          // Every note anyone gave is on the dataset's timeline (a union).
          const notes = ops.filter((op) => op.kind === 'acknowledge' && op.payload.note !== null).length;
          expect(
            one.value('SELECT count(*) FROM timeline WHERE kind = ? AND text IS NOT NULL', ['acknowledged']),
          ).toBe(notes);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('holds an acknowledgement of the current failure, and keeps one of a past failure ended', () => {
    reset(one);
    const head = { orgId: 'acme', author: 'Bob', causeId: null };
    pull(one, [
      {
        ...head,
        opId: '0190a000-0000-7000-8000-000000000001',
        at: '2026-11-29T12:00:00.000Z#0000',
        kind: 'acknowledge',
        payload: {
          datasetId: 'ds-a',
          deliveryId: 'd-1',
          status: 'FAILED',
          note: 'vendor ticket 4711',
          causeId: null,
        },
      },
      {
        ...head,
        opId: '0190a000-0000-7000-8000-000000000002',
        at: '2026-11-29T12:01:00.000Z#0000',
        kind: 'acknowledge',
        payload: { datasetId: 'ds-a', deliveryId: 'd-0', status: 'FAILED', note: 'old one', causeId: null },
      },
    ]);
    expect(openAcknowledgement(one, 'acme', 'ds-a')).toMatchObject({
      deliveryId: 'd-1',
      by: 'Bob',
      note: 'vendor ticket 4711',
      at: '2026-11-29T12:00:00.000Z',
    });
    expect(one.get(`SELECT ended_at, end_reason FROM acknowledgements WHERE delivery_id = 'd-0'`)).toEqual({
      ended_at: NOW.toISOString(),
      end_reason: 'failed again (delivery d-1)',
    });
  });
});

describe('what a member does for a linked org', () => {
  let store: Store;
  beforeEach(async () => {
    store = await memberStore();
    return () => store.close();
  });

  it('is its operation in the outbox, by its team name, applied at once', () => {
    const ack = acknowledgeDataset(store, 'acme', 'ds-a', 'on it', { by: 'alice-os-user', now: NOW });
    expect(ack).toMatchObject({ by: 'Alice', note: 'on it', deliveryId: 'd-1', at: NOW.toISOString() });
    snoozeDataset(store, 'acme', 'ds-b', '1h', NOW);
    const later = new Date(NOW.getTime() + 1000);
    expect(unacknowledgeDataset(store, 'acme', 'ds-a', { by: 'x', now: later })).toBe(true);
    expect(unsnoozeDataset(store, 'acme', 'ds-b', later)).toBe(true);
    const outbox = outboxOf(store, 'acme', 10);
    expect(outbox.map((op) => [op.kind, op.author])).toEqual([
      ['acknowledge', 'Alice'],
      ['snooze', 'Alice'],
      ['unacknowledge', 'Alice'],
      ['unsnooze', 'Alice'],
    ]);
    expect(outbox[1]!.payload).toEqual({
      datasetId: 'ds-b',
      kind: '1h',
      until: '2026-11-29T13:30:00.000Z',
      deliveryId: null,
    });
    // Readings of one millisecond follow each other: the clock never repeats itself.
    expect(outbox.map((op) => op.at)).toEqual(
      [
        '2026-11-29T12:30:00.000Z#0000',
        '2026-11-29T12:30:00.000Z#0001',
        '2026-11-29T12:30:01.000Z#0000',
        '2026-11-29T12:30:01.000Z#0000',
      ].map((at, index) => (index === 3 ? '2026-11-29T12:30:01.000Z#0001' : at)),
    );
    expect(openAcknowledgement(store, 'acme', 'ds-a')).toBeNull();
    expect(teamLinkOf(store, 'acme')!.clock).toBe('2026-11-29T12:30:01.000Z#0001');
    expect(datasetTimeline(store, 'acme', 'ds-a', 10).map((entry) => [entry.kind, entry.by])).toEqual(
      expect.arrayContaining([
        ['acknowledged', 'Alice'],
        ['unacknowledged', 'Alice'],
      ]),
    );
  });

  it('acknowledges an incident as one operation per failure', () => {
    const { incidentId } = incidentOfDataset(store, 'acme', 'ds-a')!;
    const acks = acknowledgeCause(store, 'acme', incidentId, 'vendor ticket 4711', {
      by: 'x',
      now: NOW,
    });
    expect(acks.map((ack) => [ack.datasetId, ack.by, ack.causeId])).toEqual([['ds-a', 'Alice', incidentId]]);
    expect(operationsOf(store, 'acme').map((op) => op.kind)).toEqual(['acknowledge']);
  });

  it('takes back what the team server refused, and what it decided', () => {
    acknowledgeDataset(store, 'acme', 'ds-a', null, { by: 'x', now: NOW });
    const [op] = outboxOf(store, 'acme', 1);
    expect(dropOperations(store, [op!.opId], NOW)).toHaveLength(1);
    expect(openAcknowledgement(store, 'acme', 'ds-a')).toBeNull();
    expect(outboxOf(store, 'acme', 10)).toEqual([]);
  });

  it("refuses on a viewer's desktop, changing nothing", () => {
    store.transaction(() => saveTeamLink(store, link('acme', 'viewer')));
    expect(() => acknowledgeDataset(store, 'acme', 'ds-a', null, { by: 'x', now: NOW })).toThrow(
      ViewerCannotChange,
    );
    expect(() => snoozeDataset(store, 'acme', 'ds-a', '4h', NOW)).toThrow(/Alice is a viewer/);
    expect(openAcknowledgement(store, 'acme', 'ds-a')).toBeNull();
    expect(operationsOf(store, 'acme')).toEqual([]);
  });
});

describe('an acknowledgement that comes before the failure', () => {
  let store: Store;
  beforeEach(async () => {
    store = await memberStore();
    return () => store.close();
  });

  it('holds once the sync brings the failure, on a mirror that was a poll behind', async () => {
    // Bob's mirror still shows ds-a failed with d-1 when Alice's acknowledgement of d-7 arrives.
    pull(store, [
      {
        opId: '0190a000-0000-7000-8000-000000000077',
        orgId: 'acme',
        author: 'Alice',
        at: '2026-11-29T12:10:00.000Z#0000',
        kind: 'acknowledge',
        payload: {
          datasetId: 'ds-a',
          deliveryId: 'd-7',
          status: 'FAILED',
          note: 'vendor ticket 4711',
          causeId: null,
        },
      },
    ]);
    expect(openAcknowledgement(store, 'acme', 'ds-a')).toBeNull();
    // The next poll: ds-a failed again, with d-7.
    const changes = new ChangeSet(defaultSpoolOptions());
    const base = fixtureRecords(1, 3, 'ds-a')[0]!;
    const record = {
      ...base,
      datasetId: 'ds-a',
      deliveryId: 'd-7',
      latestDeliveryStatus: 'FAILED',
      deliveryEventList: [
        {
          ...base.deliveryEventList[0]!,
          status: 'FAILED',
          deliveryId: 'd-7',
          deliveryDeadline: '2026-11-29T12:00:00.000Z',
          deliveredAt: '2026-11-29T12:05:00.000Z',
        },
      ],
    };
    changes.add({ record, hash: 'd-7' }, 100);
    await applySync(store, {
      orgId: 'acme',
      changes,
      stored: new Map(storedDatasetIds(store, 'acme').map((id) => [id, true])),
      now: NOW,
      deliveriesPerDataset: 100,
    });
    expect(openAcknowledgement(store, 'acme', 'ds-a')).toMatchObject({
      deliveryId: 'd-7',
      by: 'Alice',
      note: 'vendor ticket 4711',
    });
  });
});

describe('joining again', () => {
  let store: Store;
  beforeEach(async () => {
    store = await memberStore();
    return () => store.close();
  });
  const identity = { orgId: 'acme', url: 'http://127.0.0.1:2', member: 'Alice', role: 'member' as const };

  it('another team server: refused while changes wait for the old one, then starts the log afresh', () => {
    acknowledgeDataset(store, 'acme', 'ds-a', null, { by: 'x', now: NOW });
    expect(() => joinTeam(store, identity, 'dht_y', NOW)).toThrow(
      /1 change made as Alice still waits? for http:\/\/127\.0\.0\.1:1/,
    );
    expect(teamLinkOf(store, 'acme')!.url).toBe('http://127.0.0.1:1');
    markPushed(
      store,
      outboxOf(store, 'acme', 10).map((op) => op.opId),
    );
    joinTeam(store, identity, 'dht_y', NOW);
    expect(teamLinkOf(store, 'acme')).toMatchObject({ url: identity.url, cursor: 0, token: 'dht_y' });
    expect(operationsOf(store, 'acme')).toEqual([]);
    // A pull from the old server that was still on its way: neither applied nor its cursor kept.
    expect(recordPulled(store, 'acme', [], 9, NOW, 'http://127.0.0.1:1')).toBe(0);
    expect(teamLinkOf(store, 'acme')!.cursor).toBe(0);
  });
});
