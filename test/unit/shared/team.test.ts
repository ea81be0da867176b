/** The team's wire format (shared/team.ts): what a push or a pull may carry, and what it refuses. */
import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { TeamOperation, operationProblem } from '../../../shared/team';

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

describe('what the schema cannot say of an operation', () => {
  const snooze = (payload: Record<string, unknown>) =>
    ({ ...ack, kind: 'snooze', payload: { datasetId: 'ds-a', ...payload } }) as never;

  it('takes text and snoozes that hold what their kind needs', () => {
    expect(operationProblem(ack as never)).toBeNull();
    expect(operationProblem({ ...ack, payload: { ...ack.payload, note: 'on it 👍' } } as never)).toBeNull();
    expect(
      operationProblem(snooze({ kind: '4h', until: '2026-11-29T16:00:00.000Z', deliveryId: null })),
    ).toBeNull();
    expect(operationProblem(snooze({ kind: 'next-delivery', until: null, deliveryId: 'd-1' }))).toBeNull();
    expect(operationProblem(snooze({ kind: 'healthy', until: null, deliveryId: null }))).toBeNull();
  });

  it.each([
    [
      'a NUL in a note',
      { ...ack, payload: { ...ack.payload, note: 'a\u0000b' } },
      '/payload/note holds a NUL',
    ],
    [
      'half a surrogate pair',
      { ...ack, payload: { ...ack.payload, datasetId: 'ds-\uD83D' } },
      '/payload/datasetId',
    ],
    ['a 1 h snooze with no end', snooze({ kind: '1h', until: null, deliveryId: null }), 'needs its end time'],
    [
      'a 1 h snooze ending at no time',
      snooze({ kind: '1h', until: 'soon', deliveryId: null }),
      'needs its end time',
    ],
    [
      'a healthy snooze with an end',
      snooze({ kind: 'healthy', until: '2026-11-29T16:00:00.000Z', deliveryId: null }),
      'has no end time',
    ],
    [
      'a next-delivery snooze with no delivery',
      snooze({ kind: 'next-delivery', until: null, deliveryId: null }),
      'needs the delivery',
    ],
    [
      'a 4 h snooze naming a delivery',
      snooze({ kind: '4h', until: '2026-11-29T16:00:00.000Z', deliveryId: 'd-1' }),
      'names no delivery',
    ],
  ])('refuses %s', (_, op, message) => {
    expect(operationProblem(op as never)).toContain(message);
  });
});
