/**
 * Incidents (docs/decisions.md "Incidents"): the grouping rule as a table of scripted failures, each
 * written through the store and grouped by refreshIncidents as a sync's commit does, and the failure
 * time of each kind of failure (before its deadline, after it, MISSING, tasks not stored).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getIncident, incidentOfDataset, listIncidents } from '../../../../electron/query/incidents';
import { Store } from '../../../../electron/store/database';
import { HOUR_MS, refreshIncidents, settleGivenIncidents } from '../../../../electron/store/schema/incidents';
import { type Failure, putFailure } from '../../../helpers/incidents';

const ORG = 'acme';
const GAP = 6 * HOUR_MS;
const at = (iso: string) => new Date(iso);

const put = (store: Store, failure: Failure): void => putFailure(store, ORG, failure);

/** Groups what is stored as a sync's commit at `now` does. */
function sync(store: Store, now: string): void {
  store.transaction(() => refreshIncidents(store, ORG, { now: at(now), gapMs: GAP }));
}

const auth = (endedAt: string) => ({ stage: 'ingest' as const, code: 'E_AUTH_FAILED', endedAt });
const incidentOf = (store: Store, id: string) => incidentOfDataset(store, ORG, id)?.incidentId;

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
});
afterEach(() => store.close());

describe('grouping failures into incidents', () => {
  it.each([
    {
      name: 'same code, same time, two suppliers → one incident',
      failures: [
        { id: 'a', supplier: 'sup-a', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T05:10:00Z') },
        { id: 'b', supplier: 'sup-b', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T05:20:00Z') },
      ],
      together: [['a', 'b']],
    },
    {
      name: 'same code a month apart → two incidents',
      failures: [
        { id: 'a', deadline: '2026-10-21T06:00:00Z', task: auth('2026-10-21T05:10:00Z') },
        { id: 'b', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T05:10:00Z') },
      ],
      together: [['a'], ['b']],
    },
    {
      name: 'exactly the gap apart → one incident (the edge belongs to it)',
      failures: [
        { id: 'a', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T00:00:00Z') },
        { id: 'b', deadline: '2026-11-21T07:00:00Z', task: auth('2026-11-21T06:00:00Z') },
      ],
      together: [['a', 'b']],
    },
    {
      name: 'the gap and a millisecond apart → two incidents',
      failures: [
        { id: 'a', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T00:00:00.000Z') },
        { id: 'b', deadline: '2026-11-21T07:00:00Z', task: auth('2026-11-21T06:00:00.001Z') },
      ],
      together: [['a'], ['b']],
    },
    {
      name: 'a chain of failures each within the gap of the last → one incident longer than the gap',
      failures: [
        { id: 'a', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T00:00:00Z') },
        { id: 'b', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T05:00:00Z') },
        { id: 'c', deadline: '2026-11-21T12:00:00Z', task: auth('2026-11-21T10:00:00Z') },
      ],
      together: [['a', 'b', 'c']],
    },
    {
      name: 'same time, another code or stage → apart',
      failures: [
        { id: 'a', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T05:00:00Z') },
        {
          id: 'b',
          deadline: '2026-11-21T06:00:00Z',
          task: { stage: 'ingest' as const, code: 'E_SOURCE_TIMEOUT', endedAt: '2026-11-21T05:00:00Z' },
        },
        {
          id: 'c',
          deadline: '2026-11-21T06:00:00Z',
          task: { stage: 'dispatch' as const, code: 'E_AUTH_FAILED', endedAt: '2026-11-21T05:00:00Z' },
        },
      ],
      together: [['a'], ['b'], ['c']],
    },
    {
      name: 'MISSING: one supplier, close deadlines → one; another supplier → apart; two days later → apart',
      failures: [
        { id: 'm1', status: 'MISSING' as const, supplier: 'sup-a', deadline: '2026-11-21T06:00:00Z' },
        { id: 'm2', status: 'MISSING' as const, supplier: 'sup-a', deadline: '2026-11-21T08:00:00Z' },
        { id: 'm3', status: 'MISSING' as const, supplier: 'sup-b', deadline: '2026-11-21T06:00:00Z' },
        { id: 'm4', status: 'MISSING' as const, supplier: 'sup-a', deadline: '2026-11-19T06:00:00Z' },
      ],
      together: [['m1', 'm2'], ['m3'], ['m4']],
    },
    {
      name: 'tasks not stored: the unknown cause, grouped by time like any other',
      failures: [
        { id: 'u1', deadline: '2026-11-21T06:00:00Z', deliveredAt: '2026-11-21T05:00:00Z' },
        { id: 'u2', deadline: '2026-11-21T06:00:00Z', deliveredAt: '2026-11-21T05:30:00Z' },
        { id: 'u3', deadline: '2026-11-10T06:00:00Z', deliveredAt: '2026-11-10T05:30:00Z' },
      ],
      together: [['u1', 'u2'], ['u3']],
    },
  ])('$name', ({ failures, together }) => {
    for (const failure of failures) put(store, failure);
    sync(store, '2026-11-21T09:00:00Z');
    const groups = together.map((ids) => new Set(ids.map((id) => incidentOf(store, id))));
    for (const group of groups) expect(group.size).toBe(1);
    const ids = groups.map((group) => [...group][0]);
    expect(new Set(ids).size).toBe(together.length);
    for (const id of ids) expect(id).toMatch(/^inc-[0-9a-f]{10}$/);
  });

  it('a failure joining an open incident keeps its id, and moves its last failure', () => {
    put(store, {
      id: 'a',
      supplier: 'sup-a',
      deadline: '2026-11-21T06:00:00Z',
      task: auth('2026-11-21T05:00:00Z'),
    });
    sync(store, '2026-11-21T05:30:00Z');
    const [first] = listIncidents(store, ORG);
    expect(first).toMatchObject({ count: 1, lastFailureAt: '2026-11-21T05:00:00.000Z' });
    put(store, {
      id: 'b',
      supplier: 'sup-b',
      deadline: '2026-11-21T08:00:00Z',
      task: auth('2026-11-21T07:00:00Z'),
    });
    sync(store, '2026-11-21T07:30:00Z');
    const [after] = listIncidents(store, ORG);
    expect(after).toMatchObject({
      incidentId: first!.incidentId,
      count: 2,
      firstFailureAt: '2026-11-21T05:00:00.000Z',
      lastFailureAt: '2026-11-21T07:00:00.000Z',
      representative: { datasetId: 'b' },
    });
    expect(after!.suppliers.map((supplier) => supplier.id).sort()).toEqual(['sup-a', 'sup-b']);
  });

  it('ends when none of its datasets is troubled; a failure within the gap opens it again', () => {
    put(store, { id: 'a', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T05:00:00Z') });
    sync(store, '2026-11-21T05:30:00Z');
    const id = incidentOf(store, 'a')!;
    put(store, {
      id: 'a',
      status: 'HEALTHY',
      deadline: '2026-11-21T07:00:00Z',
      deliveredAt: '2026-11-21T06:30:00Z',
    });
    sync(store, '2026-11-21T06:45:00Z');
    expect(listIncidents(store, ORG)).toEqual([]);
    expect(getIncident(store, ORG, id)).toMatchObject({
      endedAt: '2026-11-21T06:45:00.000Z',
      count: 0,
      recovered: 1,
    });
    put(store, { id: 'b', deadline: '2026-11-21T09:00:00Z', task: auth('2026-11-21T08:00:00Z') });
    sync(store, '2026-11-21T08:30:00Z');
    expect(incidentOf(store, 'b')).toBe(id);
    expect(getIncident(store, ORG, id)).toMatchObject({ endedAt: null, count: 1, recovered: 1 });
  });

  it('the same dataset failing again a day later is a new incident; the old one ends', () => {
    put(store, { id: 'a', deadline: '2026-11-20T06:00:00Z', task: auth('2026-11-20T05:00:00Z') });
    sync(store, '2026-11-20T05:30:00Z');
    const old = incidentOf(store, 'a')!;
    put(store, {
      id: 'a',
      deliveryId: 'a-d2',
      deadline: '2026-11-21T06:00:00Z',
      task: auth('2026-11-21T05:00:00Z'),
    });
    sync(store, '2026-11-21T05:30:00Z');
    expect(incidentOf(store, 'a')).not.toBe(old);
    expect(getIncident(store, ORG, old)?.endedAt).toBe('2026-11-21T05:30:00.000Z');
  });

  it('a failure of unknown cause moves to its own incident when its tasks arrive, keeping when it was learned', () => {
    put(store, { id: 'a', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T05:00:00Z') });
    put(store, { id: 'u', deadline: '2026-11-21T06:00:00Z' });
    sync(store, '2026-11-21T05:30:00Z');
    const unknown = incidentOf(store, 'u')!;
    expect(incidentOfDataset(store, ORG, 'u')).toMatchObject({ causeId: 'unknown' });
    // Learned at 05:30: its deadline (06:00) is later, so its time is when the mirror learned of it.
    expect(incidentOfDataset(store, ORG, 'u')?.dataset.since).toBe('2026-11-21T05:30:00.000Z');
    put(store, { id: 'u', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T05:20:00Z') });
    sync(store, '2026-11-21T05:35:00Z');
    expect(incidentOf(store, 'u')).toBe(incidentOf(store, 'a'));
    expect(incidentOfDataset(store, ORG, 'u')?.dataset.since).toBe('2026-11-21T05:20:00.000Z');
    expect(getIncident(store, ORG, unknown)).toBeNull();
  });

  it('a dataset failing every hour is one dataset of its incident, not a recovery an hour; kept in two rows', () => {
    for (const hour of ['01', '02', '03', '04']) {
      put(store, {
        id: 'hourly',
        deliveryId: `hourly-${hour}`,
        deadline: `2026-11-21T${hour}:00:00Z`,
        task: auth(`2026-11-21T${hour}:05:00Z`),
      });
      sync(store, `2026-11-21T${hour}:10:00Z`);
    }
    const [incident] = listIncidents(store, ORG);
    expect(incident).toMatchObject({
      count: 1,
      recovered: 0,
      firstFailureAt: '2026-11-21T01:05:00.000Z',
      lastFailureAt: '2026-11-21T04:05:00.000Z',
      suppliers: [{ id: 'sup-a', count: 1 }],
    });
    // Its first failure and its current one: the incident's first time stays exact, the rest goes.
    expect(store.value<number>('SELECT count(*) FROM incident_failures')).toBe(2);
    put(store, {
      id: 'hourly',
      status: 'HEALTHY',
      deliveryId: 'hourly-05',
      deadline: '2026-11-21T05:00:00Z',
      deliveredAt: '2026-11-21T04:55:00Z',
    });
    sync(store, '2026-11-21T05:10:00Z');
    expect(getIncident(store, ORG, incident!.incidentId)).toMatchObject({
      count: 0,
      recovered: 1,
      endedAt: '2026-11-21T05:10:00.000Z',
      firstFailureAt: '2026-11-21T01:05:00.000Z',
    });
  });

  it('an incident a file gave with times ahead of the import is held to the import’s time', () => {
    put(store, {
      id: 'a',
      status: 'HEALTHY',
      deadline: '2026-11-21T06:00:00Z',
      deliveredAt: '2026-11-21T05:50:00Z',
    });
    store.transaction(() => {
      // Over, from a machine whose clock ran two days ahead.
      store.run(
        `INSERT INTO incidents (org_id, incident_id, cause_id, title, first_failure_at, last_failure_at, opened_at,
           ended_at)
         VALUES ('acme', 'inc-0123456789', 'ingest:E_AUTH_FAILED', 'Ingest failed: E_AUTH_FAILED',
           '2026-11-22T00:00:00.000Z', '2026-11-22T00:00:00.000Z', '2026-11-23T00:00:00.000Z',
           '2026-11-23T01:00:00.000Z')`,
      );
      store.run(
        `INSERT INTO incident_failures (org_id, dataset_id, delivery_id, status, incident_id, cause_id,
           failure_at, learned_at, ended_at)
         VALUES ('acme', 'a', 'a-d0', 'FAILED', 'inc-0123456789', 'ingest:E_AUTH_FAILED',
           '2026-11-22T00:00:00.000Z', '2026-11-23T00:00:00.000Z', '2026-11-23T01:00:00.000Z')`,
      );
      settleGivenIncidents(store, ORG, at('2026-11-21T07:00:00Z'));
      refreshIncidents(store, ORG, { now: at('2026-11-21T07:00:00Z'), gapMs: GAP });
    });
    expect(getIncident(store, ORG, 'inc-0123456789')).toMatchObject({
      firstFailureAt: '2026-11-21T07:00:00.000Z',
      lastFailureAt: '2026-11-21T07:00:00.000Z',
      endedAt: '2026-11-21T07:00:00.000Z',
      recovered: 1,
    });
  });

  it('keeps another org’s failures out', () => {
    put(store, { id: 'a', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T05:00:00Z') });
    sync(store, '2026-11-21T09:00:00Z');
    expect(listIncidents(store, 'other')).toEqual([]);
  });
});

describe('failure time', () => {
  const sinceOf = (id: string) => incidentOfDataset(store, ORG, id)?.dataset.since;

  it.each([
    {
      name: 'FAILED before its deadline: when its first failed task ended, not the deadline',
      failure: {
        id: 'x',
        deadline: '2026-11-21T06:00:00Z',
        deliveredAt: null,
        task: auth('2026-11-21T04:10:00Z'),
      },
      since: '2026-11-21T04:10:00.000Z',
    },
    {
      name: 'FAILED after its deadline: when its first failed task ended',
      failure: {
        id: 'x',
        deadline: '2026-11-21T03:00:00Z',
        deliveredAt: '2026-11-21T04:20:00Z',
        task: auth('2026-11-21T04:10:00Z'),
      },
      since: '2026-11-21T04:10:00.000Z',
    },
    {
      name: 'FAILED, its task without an end: the stage’s time',
      failure: {
        id: 'x',
        deadline: '2026-11-21T06:00:00Z',
        deliveredAt: '2026-11-21T04:30:00Z',
        task: auth(null as unknown as string),
      },
      since: '2026-01-01T00:00:00.000Z',
    },
    {
      name: 'FAILED, tasks not stored: the delivery’s own time',
      failure: { id: 'x', deadline: '2026-11-21T06:00:00Z', deliveredAt: '2026-11-21T04:40:00Z' },
      since: '2026-11-21T04:40:00.000Z',
    },
    {
      name: 'FAILED, tasks not stored, no delivery time, deadline ahead: when the mirror learned of it',
      failure: { id: 'x', deadline: '2026-11-21T06:00:00Z', deliveredAt: null },
      since: '2026-11-21T05:00:00.000Z',
    },
    {
      name: 'MISSING: its deadline',
      failure: { id: 'x', status: 'MISSING' as const, deadline: '2026-11-21T04:00:00Z' },
      since: '2026-11-21T04:00:00.000Z',
    },
    {
      name: 'a task end after the mirror learned of it (a remote clock ahead): capped at the learning',
      failure: { id: 'x', deadline: '2026-11-21T06:00:00Z', task: auth('2026-11-21T05:40:00Z') },
      since: '2026-11-21T05:00:00.000Z',
    },
  ])('$name', ({ failure, since }) => {
    put(store, failure);
    sync(store, '2026-11-21T05:00:00Z');
    expect(sinceOf('x')).toBe(since);
    const [incident] = listIncidents(store, ORG);
    expect(Date.parse(incident!.lastFailureAt)).toBeLessThanOrEqual(Date.parse('2026-11-21T05:00:00Z'));
  });
});
