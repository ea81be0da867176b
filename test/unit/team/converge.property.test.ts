/**
 * The team's rules converge (electron/team/converge.ts): members that have the same operations show the
 * same state whatever order the operations came in and however often each came, and that state is the
 * rules' own: per failure the latest acknowledgement or withdrawal, per dataset the latest snooze, every
 * note kept. Operations are drawn from few datasets, authors and clock readings, so that they collide.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TeamOperation } from '../../../shared/team';
import { TeamState, compareStamps } from '../../../electron/team/converge';
import { arrival, operations } from '../../helpers/teamOperations';

describe('the team rules', () => {
  it('give the same state for the same operations, in any order, however often they come', () => {
    fc.assert(
      fc.property(
        operations.chain((ops) => fc.tuple(fc.constant(ops), arrival(ops), arrival(ops))),
        ([ops, first, second]) => {
          const expected = TeamState.of(ops).summary();
          expect(TeamState.of(first).summary()).toEqual(expected);
          expect(TeamState.of(second).summary()).toEqual(expected);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('are last writer wins per failure and per dataset, and a union of notes', () => {
    fc.assert(
      fc.property(operations, (ops) => {
        const state = TeamState.of(ops);
        const latest = (matches: (op: TeamOperation) => boolean) =>
          ops.filter(matches).sort(compareStamps).at(-1);
        for (const op of ops) {
          if (op.kind === 'acknowledge' || op.kind === 'unacknowledge') {
            const { datasetId, deliveryId, status } = op.payload;
            const key = { orgId: op.orgId, datasetId, deliveryId, status };
            const same = (o: TeamOperation) =>
              (o.kind === 'acknowledge' || o.kind === 'unacknowledge') &&
              o.orgId === op.orgId &&
              o.payload.datasetId === datasetId &&
              o.payload.deliveryId === deliveryId;
            const winner = latest(same)!;
            expect(state.acknowledgement(key)).toMatchObject({
              acknowledged: winner.kind === 'acknowledge',
              stamp: { opId: winner.opId },
              note: winner.kind === 'acknowledge' ? winner.payload.note : null,
            });
            const notes = ops
              .filter((o) => same(o) && o.kind === 'acknowledge' && o.payload.note !== null)
              .sort(compareStamps)
              .map((o) => (o.kind === 'acknowledge' ? o.payload.note : null));
            expect(state.notesOf(key).map((note) => note.text)).toEqual(notes);
          } else {
            const winner = latest(
              (o) =>
                (o.kind === 'snooze' || o.kind === 'unsnooze') &&
                o.orgId === op.orgId &&
                o.payload.datasetId === op.payload.datasetId,
            )!;
            expect(state.snooze(op.orgId, op.payload.datasetId)).toMatchObject({
              snoozed: winner.kind === 'snooze',
              stamp: { opId: winner.opId },
            });
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it('order two operations by clock reading, then author, then id', () => {
    const a = { at: '2026-11-29T12:00:00.000Z#0001', author: 'bob', opId: 'x' };
    expect(compareStamps(a, { ...a, at: '2026-11-29T12:00:00.000Z#0002', author: 'alice' })).toBeLessThan(0);
    expect(compareStamps(a, { ...a, author: 'carol' })).toBeLessThan(0);
    expect(compareStamps(a, { ...a, opId: 'y' })).toBeLessThan(0);
    expect(compareStamps(a, { ...a })).toBe(0);
    // By code points, as SQLite orders text: U+E000 before U+1F600, where UTF-16 units say otherwise.
    expect(compareStamps({ ...a, author: '\uE000' }, { ...a, author: '\u{1F600}' })).toBeLessThan(0);
  });

  it('tell whether an operation changed anything', () => {
    const state = new TeamState();
    const ack = {
      opId: '0190a000-0000-7000-8000-000000000001',
      orgId: 'acme',
      author: 'alice',
      at: '2026-11-29T12:00:01.000Z#0000',
      kind: 'acknowledge' as const,
      payload: { datasetId: 'ds-a', deliveryId: 'd-1', status: 'FAILED' as const, note: null, causeId: null },
    };
    expect(state.apply(ack)).toBe(true);
    expect(state.apply(ack)).toBe(false);
    const { note: _note, causeId: _cause, ...failure } = ack.payload;
    const older = {
      ...ack,
      opId: '0190a000-0000-7000-8000-000000000002',
      at: '2026-11-29T12:00:00.000Z#0000',
      kind: 'unacknowledge' as const,
      payload: failure,
    };
    // An earlier withdrawal, arriving late: the acknowledgement stands.
    expect(state.apply(older)).toBe(false);
    expect(
      state.acknowledgement({ orgId: 'acme', datasetId: 'ds-a', deliveryId: 'd-1', status: 'FAILED' }),
    ).toMatchObject({ acknowledged: true, stamp: { author: 'alice' } });
  });
});
