/**
 * Random team operations for property tests (electron/team/converge.ts, store/tables/teamLog.ts): drawn
 * from few orgs, datasets, authors and clock readings, so that they collide. One author's name has an
 * emoji and another a character from U+E000 up, where JavaScript's `<` and SQLite's order of text
 * would disagree.
 */
import fc from 'fast-check';
import type { TeamOperation } from '../../shared/team';

export const AUTHORS = ['alice', 'bob', 'carol', '\u{1F600} dee', '\uE000 eve'];

export const reading = fc
  .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 2 }))
  .map(([second, counter]) => `2026-11-29T12:00:0${second}.000Z#000${counter}`);
export const failure = fc.record({
  datasetId: fc.constantFrom('ds-a', 'ds-b'),
  deliveryId: fc.constantFrom('d-1', 'd-2'),
  status: fc.constantFrom('FAILED' as const, 'MISSING' as const),
});

export const operation = (index: number): fc.Arbitrary<TeamOperation> =>
  fc
    .record({
      orgId: fc.constantFrom('acme', 'other'),
      author: fc.constantFrom(...AUTHORS),
      at: reading,
      failure,
      kind: fc.constantFrom('acknowledge', 'unacknowledge', 'snooze', 'unsnooze'),
      note: fc.option(fc.constantFrom('vendor ticket 4711', 'on it', 'escalated'), { freq: 2 }),
      snoozeKind: fc.constantFrom('1h' as const, 'next-delivery' as const, 'healthy' as const),
    })
    .map(({ orgId, author, at, failure: { datasetId, deliveryId, status }, kind, note, snoozeKind }) => {
      const opId = `0190a000-0000-7000-8000-${String(index).padStart(12, '0')}`;
      const head = { opId, orgId, author, at };
      switch (kind) {
        case 'acknowledge':
          return { ...head, kind, payload: { datasetId, deliveryId, status, note, causeId: null } };
        case 'unacknowledge':
          return { ...head, kind, payload: { datasetId, deliveryId, status } };
        case 'snooze':
          return {
            ...head,
            kind,
            payload: {
              datasetId,
              kind: snoozeKind,
              until: snoozeKind === '1h' ? '2026-11-29T13:00:00.000Z' : null,
              deliveryId: snoozeKind === 'next-delivery' ? deliveryId : null,
            },
          };
        default:
          return { ...head, kind: 'unsnooze' as const, payload: { datasetId } };
      }
    });

export const operations = fc
  .integer({ min: 0, max: 25 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, index) => operation(index))))
  .map((ops) => ops as TeamOperation[]);

/** The same operations in another order, some of them twice (a push retried, a pull overlapping). */
export const arrival = (ops: TeamOperation[]) =>
  fc
    .tuple(fc.shuffledSubarray(ops, { minLength: ops.length, maxLength: ops.length }), fc.subarray(ops))
    .chain(([shuffled, again]) =>
      fc.shuffledSubarray([...shuffled, ...again], {
        minLength: shuffled.length + again.length,
        maxLength: shuffled.length + again.length,
      }),
    );
