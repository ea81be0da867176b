/** The team's wire format (shared/team.ts): what a push or a pull may carry, and what it refuses. */
import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { TeamOperation } from '../../../shared/team';

const check = Compile(TeamOperation);
const ack = {
  opId: '017f22e2-79b0-7abc-8def-0123456789ab',
  orgId: 'acme',
  author: 'Alice',
  at: '2026-11-29T12:00:00.000Z#0000',
  kind: 'acknowledge',
  payload: {
    datasetId: 'ds-a',
    deliveryId: 'd-1',
    status: 'FAILED',
    note: 'vendor ticket 4711',
    causeId: null,
  },
};

describe('team operations on the wire', () => {
  it('take each kind with its own payload', () => {
    expect(check.Check(ack)).toBe(true);
    const { note: _note, causeId: _cause, ...failure } = ack.payload;
    expect(check.Check({ ...ack, kind: 'unacknowledge', payload: failure })).toBe(true);
    const snooze = { datasetId: 'ds-a', kind: '1h', until: '2026-11-29T13:00:00.000Z', deliveryId: null };
    expect(check.Check({ ...ack, kind: 'snooze', payload: snooze })).toBe(true);
    expect(check.Check({ ...ack, kind: 'unsnooze', payload: { datasetId: 'ds-a' } })).toBe(true);
  });

  it.each([
    ['an id that is not a UUID version 7', { opId: '017f22e2-79b0-4abc-8def-0123456789ab' }],
    ['a time that is not a clock reading', { at: '2026-11-29T12:00:00Z' }],
    ['an empty author', { author: '' }],
    ['an unknown kind', { kind: 'delete' }],
    ['a field it does not know', { extra: 1 }],
    ['a payload of another kind', { kind: 'unsnooze' }],
    ['a status that is not a failure', { payload: { ...ack.payload, status: 'HEALTHY' } }],
    ['a note over 2,000 characters', { payload: { ...ack.payload, note: 'x'.repeat(2001) } }],
  ])('refuse %s', (_, change) => {
    expect(check.Check({ ...ack, ...change })).toBe(false);
  });
});
