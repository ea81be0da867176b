/**
 * No time the mirror answers lies after the answer's own time (docs/decisions.md "Failure time"):
 * over generated org histories — deliveries due before or after the sync, failed before their deadline,
 * delivered "later" than the sync by a remote clock ahead, tasks stored or not — every date-time of
 * `/local/v1/incidents`, `/local/v1/causes`, `/local/v1/acknowledgements`, each timeline and
 * `/local/v1/handoff` is at or before the clock of the server that answered. Only what is a forecast by
 * name is exempt: the handoff's at-risk deadlines and the end of their window.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { acknowledgeCause } from '../../../electron/knowledge/acknowledge';
import { listIncidents } from '../../../electron/query/incidents';
import { STAGES } from '../../../shared/status';
import { type DatasetSpec, type LocalFixture, localFixture } from '../../helpers/localApi';

const SYNCED = Date.parse('2026-11-21T06:00:00.000Z');
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** Forecasts by name: deadlines ahead are what they are about. */
const FORECAST_KEYS = new Set(['atRisk', 'atRiskUntil']);

/** Every date-time string in a body with its JSON path, forecasts left out. */
function timesIn(value: unknown, path = '$'): [string, string][] {
  if (typeof value === 'string') return RFC3339.test(value) ? [[path, value]] : [];
  if (Array.isArray(value)) return value.flatMap((item, i) => timesIn(item, `${path}[${i}]`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([key, item]) =>
      FORECAST_KEYS.has(key) ? [] : timesIn(item, `${path}.${key}`),
    );
  return [];
}

const at = (ms: number) => new Date(ms).toISOString();

const spec = fc
  .record({
    status: fc.constantFrom('FAILED', 'FAILED', 'MISSING', 'HEALTHY', 'DELIVERED_LATE'),
    supplier: fc.constantFrom('sup-1', 'sup-2'),
    // Due from three days before the sync to two hours after it.
    deadline: fc.integer({ min: -72 * 60, max: 2 * 60 }),
    // Delivered around the deadline, or nothing said; a remote clock may put it after the sync.
    delivered: fc.option(fc.integer({ min: -60, max: 180 }), { nil: null }),
    failure: fc.option(
      fc.record({
        stage: fc.constantFrom(...STAGES),
        shortCode: fc.constantFrom('E_AUTH_FAILED', 'E_TIMEOUT'),
      }),
      { nil: undefined },
    ),
  })
  .map((drawn): Omit<DatasetSpec, 'id' | 'deliveryId' | 'name'> => {
    const deadline = SYNCED + drawn.deadline * 60_000;
    return {
      product: 'Prices',
      supplier: { id: drawn.supplier, name: `Supplier ${drawn.supplier}` },
      status: drawn.status,
      deadline: at(deadline),
      deliveredAt:
        drawn.status === 'MISSING' || drawn.delivered === null
          ? null
          : at(deadline + drawn.delivered * 60_000),
      ...(drawn.status === 'FAILED' && drawn.failure
        ? { failure: { ...drawn.failure, message: 'it broke' } }
        : {}),
    };
  });

let fixture: LocalFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe('times the mirror answers', () => {
  it('are never after the answer’s own time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(spec, { minLength: 1, maxLength: 12 }),
        fc.array(spec, { maxLength: 6 }),
        fc.integer({ min: 0, max: 30 }),
        async (first, later, minutesAfter) => {
          await fixture?.close();
          fixture = await localFixture({ now: new Date(SYNCED) });
          const specs = first.map((drawn, i) => ({
            ...drawn,
            id: `ds-${i}`,
            name: `Dataset ${i}`,
            deliveryId: `d-${i}-1`,
          }));
          await fixture.sync('acme', ...specs);
          // Someone owns the first incident; ten minutes on, some datasets deliver again.
          const [incident] = listIncidents(fixture.store, 'acme');
          if (incident)
            acknowledgeCause(fixture.store, 'acme', incident.incidentId, 'on it', {
              by: 'sam',
              now: new Date(SYNCED + 5 * 60_000),
            });
          fixture.clock.now = new Date(SYNCED + 10 * 60_000);
          await fixture.sync(
            'acme',
            ...later.map((drawn, i) => ({
              ...drawn,
              id: `ds-${i}`,
              name: `Dataset ${i}`,
              deliveryId: `d-${i}-2`,
            })),
          );
          const answeredAt = SYNCED + (10 + minutesAfter) * 60_000;
          fixture.clock.now = new Date(answeredAt);
          const paths = [
            '/local/v1/incidents?includeEnded=true',
            '/local/v1/causes',
            '/local/v1/acknowledgements?includeEnded=true',
            '/local/v1/handoff?since=8h',
            ...specs.map((each) => `/local/v1/datasets/${each.id}/timeline`),
          ];
          for (const path of paths) {
            const answer = await fixture.get(path);
            expect(answer.status, `${path}: ${answer.body}`).toBe(200);
            for (const [where, time] of timesIn(answer.json()))
              expect(
                Date.parse(time),
                `${path} ${where} = ${time}, answered at ${at(answeredAt)}`,
              ).toBeLessThanOrEqual(answeredAt);
          }
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
