/**
 * The routes' outbox (docs/decisions.md "Routes: at most once (issue 27)"): a notification and route
 * once, each state change only from the state it expects, `sending` at start-up dead, dead rows sent again.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../../electron/store/database';
import { ensureOrg } from '../../../../electron/store/tables/orgs';
import {
  abandonSendingRows,
  claimOutboxRow,
  deadOutboxRows,
  dueOutboxRows,
  enqueueOutbox,
  nextOutboxAttemptAt,
  outboxRow,
  pruneOutbox,
  reviveOutboxRow,
  settleOutboxRow,
  unclaimOutboxRow,
} from '../../../../electron/store/tables/routeOutbox';

const T0 = new Date('2026-11-21T12:00:00.000Z');
const later = (ms: number) => new Date(T0.getTime() + ms);

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  ensureOrg(store, 'acme', T0);
  ensureOrg(store, 'umbrella', T0);
});
afterEach(() => store.close());

const entry = (notificationId: string, routeId = 'channel', orgId = 'acme') => ({
  orgId,
  notificationId,
  routeId,
  payload: JSON.stringify({ title: notificationId, body: '' }),
});

const idOf = (notificationId: string, routeId = 'channel') =>
  store.value<number>('SELECT id FROM route_outbox WHERE notification_id = ? AND route_id = ?', [
    notificationId,
    routeId,
  ])!;

describe('route outbox', () => {
  it('holds a notification once per route: enqueuing it again changes nothing', () => {
    expect(enqueueOutbox(store, [entry('n1'), entry('n1', 'pager')], T0)).toBe(2);
    const first = outboxRow(store, idOf('n1'))!;
    expect(enqueueOutbox(store, [entry('n1'), { ...entry('n1', 'pager'), payload: '{}' }], later(5))).toBe(0);
    expect(outboxRow(store, idOf('n1'))).toEqual(first);
    expect(first).toMatchObject({ state: 'pending', attempts: 0, nextAttemptAt: T0.toISOString() });
    // The same notification id of another org is another notification.
    expect(enqueueOutbox(store, [entry('n1', 'channel', 'umbrella')], T0)).toBe(1);
  });

  it('joins the transaction of the caller: a decision rolled back leaves no delivery', () => {
    expect(() =>
      store.transaction(() => {
        enqueueOutbox(store, [entry('n1')], T0);
        throw new Error('the decision failed');
      }),
    ).toThrow('the decision failed');
    expect(dueOutboxRows(store, T0, 10)).toEqual([]);
  });

  it('claims a due row once, counts the attempt, and settles only a row being sent', () => {
    enqueueOutbox(store, [entry('n1'), entry('n2')], T0);
    expect(dueOutboxRows(store, later(-1), 10)).toEqual([]);
    expect(dueOutboxRows(store, T0, 10).map((row) => row.notificationId)).toEqual(['n1', 'n2']);
    const claimed = claimOutboxRow(store, idOf('n1'), later(1))!;
    expect(claimed).toMatchObject({ state: 'sending', attempts: 1, nextAttemptAt: null });
    expect(claimOutboxRow(store, idOf('n1'), later(2))).toBeNull();
    settleOutboxRow(
      store,
      idOf('n1'),
      { state: 'pending', nextAttemptAt: later(60_000), error: 'HTTP 500' },
      later(3),
    );
    expect(outboxRow(store, idOf('n1'))).toMatchObject({
      state: 'pending',
      attempts: 1,
      lastError: 'HTTP 500',
      nextAttemptAt: later(60_000).toISOString(),
    });
    // Settling a row that is not being sent changes nothing.
    settleOutboxRow(store, idOf('n1'), { state: 'sent' }, later(4));
    expect(outboxRow(store, idOf('n1'))!.state).toBe('pending');
    expect(nextOutboxAttemptAt(store)).toBe(T0.toISOString());
    claimOutboxRow(store, idOf('n2'), later(5));
    settleOutboxRow(store, idOf('n2'), { state: 'sent' }, later(6));
    expect(outboxRow(store, idOf('n2'))).toMatchObject({ state: 'sent', lastError: null });
    expect(nextOutboxAttemptAt(store)).toBe(later(60_000).toISOString());
  });

  it('puts back a claimed row whose attempt never started, its attempt uncounted', () => {
    enqueueOutbox(store, [entry('n1')], T0);
    claimOutboxRow(store, idOf('n1'), T0);
    unclaimOutboxRow(store, idOf('n1'), later(30_000), 'the disk refused', later(1));
    expect(outboxRow(store, idOf('n1'))).toMatchObject({
      state: 'pending',
      attempts: 0,
      lastError: 'the disk refused',
    });
  });

  it('makes every row found sending dead, and sends a dead row again from its first attempt', () => {
    enqueueOutbox(store, [entry('n1'), entry('n2'), entry('n3', 'channel', 'umbrella')], T0);
    claimOutboxRow(store, idOf('n1'), T0);
    claimOutboxRow(store, idOf('n3'), T0);
    const abandoned = abandonSendingRows(store, 'outcome unknown', later(1));
    expect(abandoned.map((row) => [row.notificationId, row.state, row.lastError])).toEqual([
      ['n1', 'dead', 'outcome unknown'],
      ['n3', 'dead', 'outcome unknown'],
    ]);
    expect(abandonSendingRows(store, 'outcome unknown', later(2))).toEqual([]);
    expect(deadOutboxRows(store, 'acme').map((row) => row.notificationId)).toEqual(['n1']);
    expect(
      deadOutboxRows(store)
        .map((row) => row.notificationId)
        .sort(),
    ).toEqual(['n1', 'n3']);
    expect(reviveOutboxRow(store, idOf('n2'), later(3))).toBeNull();
    expect(reviveOutboxRow(store, idOf('n1'), later(3))).toMatchObject({
      state: 'pending',
      attempts: 0,
      nextAttemptAt: later(3).toISOString(),
    });
    expect(deadOutboxRows(store, 'acme')).toEqual([]);
  });

  it('forgets rows long sent or long dead, and an org removed takes its rows along', () => {
    enqueueOutbox(store, [entry('n1'), entry('n2'), entry('n3')], T0);
    claimOutboxRow(store, idOf('n1'), T0);
    settleOutboxRow(store, idOf('n1'), { state: 'sent' }, T0);
    claimOutboxRow(store, idOf('n2'), T0);
    settleOutboxRow(store, idOf('n2'), { state: 'dead', error: 'refused' }, later(10));
    expect(pruneOutbox(store, later(1), later(1))).toBe(1);
    expect(pruneOutbox(store, later(1), later(11))).toBe(1);
    expect(dueOutboxRows(store, T0, 10).map((row) => row.notificationId)).toEqual(['n3']);
    store.run(`DELETE FROM orgs WHERE id = 'acme'`);
    expect(dueOutboxRows(store, T0, 10)).toEqual([]);
  });
});
