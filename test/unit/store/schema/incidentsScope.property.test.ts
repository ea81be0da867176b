/**
 * A refresh scoped to the datasets a commit changed (RefreshOptions.datasetIds: a poll's written and
 * removed datasets, a tasks commit's) groups exactly as one over the whole org: two stores take the same
 * random script of failures, recoveries, tasks arriving late, datasets removed and commits; one refreshes
 * the whole org at each commit, the other only what changed since its last; their incidents must match
 * row for row after every commit.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import type { Stage } from '../../../../shared/status';
import { Store } from '../../../../electron/store/database';
import { deleteDataset, writeTasks } from '../../../../electron/store/tables/datasetWriter';
import { HOUR_MS, refreshIncidents, tasksScope } from '../../../../electron/store/schema/incidents';
import { tasksFailingAt } from '../../../helpers/fixtures';
import { type Failure, putFailure } from '../../../helpers/incidents';

const ORG = 'acme';
const GAP = 6 * HOUR_MS;
const START = Date.parse('2026-11-20T00:00:00Z');
const DATASETS = ['a', 'b', 'c', 'd', 'e'];
const CODES: [Stage, string][] = [
  ['ingest', 'E_AUTH_FAILED'],
  ['process', 'E_SCHEMA'],
];

const iso = (hours: number): string => new Date(START + hours * HOUR_MS).toISOString();

type Step =
  | {
      kind: 'put';
      id: string;
      status: 'FAILED' | 'MISSING' | 'HEALTHY';
      delivery: number;
      deadlineHours: number;
      supplier: string;
      code: number | null;
    }
  | { kind: 'tasks'; id: string; code: number }
  | { kind: 'remove'; id: string }
  | { kind: 'commit'; hours: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      id: fc.constantFrom(...DATASETS),
      status: fc.constantFrom('FAILED' as const, 'MISSING' as const, 'HEALTHY' as const),
      delivery: fc.integer({ min: 1, max: 3 }),
      deadlineHours: fc.integer({ min: 0, max: 72 }),
      supplier: fc.constantFrom('sup-a', 'sup-b'),
      // null: its tasks are not stored (they may arrive later).
      code: fc.option(fc.integer({ min: 0, max: CODES.length - 1 })),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('tasks' as const),
      id: fc.constantFrom(...DATASETS),
      code: fc.integer({ min: 0, max: CODES.length - 1 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('remove' as const), id: fc.constantFrom(...DATASETS) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('commit' as const), hours: fc.integer({ min: 0, max: 12 }) }),
  },
);

const tables = (store: Store): unknown[] => [
  store.all('SELECT * FROM incidents ORDER BY org_id, incident_id'),
  store.all('SELECT * FROM incident_failures ORDER BY org_id, dataset_id, delivery_id, status'),
];

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

describe('a refresh of the changed datasets alone', () => {
  it('groups as a refresh of the whole org, commit after commit', async () => {
    // The scripts must group something, or the comparison would hold trivially.
    let grouped = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), async (steps) => {
        const whole = await Store.open({ dataDir: null });
        const scoped = await Store.open({ dataDir: null });
        stores.push(whole, scoped);
        const deliveryOf = new Map<string, string>();
        let changed = new Set<string>();
        let now = 80;
        for (const s of [...steps, { kind: 'commit' as const, hours: 1 }]) {
          if (s.kind === 'put') {
            const deliveryId = `${s.id}-d${s.delivery}`;
            const code = s.code === null ? null : CODES[s.code]!;
            const failure: Failure = {
              id: s.id,
              status: s.status,
              supplier: s.supplier,
              deadline: iso(s.deadlineHours),
              deliveryId,
              task:
                code === null
                  ? 'not-stored'
                  : { stage: code[0], code: code[1], endedAt: iso(s.deadlineHours - 1) },
            };
            for (const store of [whole, scoped]) putFailure(store, ORG, failure);
            deliveryOf.set(s.id, deliveryId);
            changed.add(s.id);
          } else if (s.kind === 'tasks') {
            const deliveryId = deliveryOf.get(s.id);
            if (deliveryId === undefined) continue;
            const [stage, code] = CODES[s.code]!;
            for (const store of [whole, scoped])
              store.transaction(() =>
                writeTasks(store, ORG, deliveryId, tasksFailingAt(deliveryId, s.id, stage, code)),
              );
            // As the sync's tasks commit scopes it: by the deliveries it wrote.
            for (const id of tasksScope(scoped, ORG, [deliveryId]) ?? []) changed.add(id);
          } else if (s.kind === 'remove') {
            for (const store of [whole, scoped]) store.transaction(() => deleteDataset(store, ORG, s.id));
            deliveryOf.delete(s.id);
            changed.add(s.id);
          } else {
            now += s.hours;
            const at = new Date(START + now * HOUR_MS);
            whole.transaction(() => refreshIncidents(whole, ORG, { now: at, gapMs: GAP }));
            const datasetIds = [...changed];
            scoped.transaction(() => refreshIncidents(scoped, ORG, { now: at, gapMs: GAP, datasetIds }));
            changed = new Set();
            expect(tables(scoped)).toEqual(tables(whole));
            grouped += whole.all('SELECT 1 FROM incident_failures').length;
          }
        }
      }),
      { numRuns: 150 },
    );
    expect(grouped).toBeGreaterThan(100);
  });
});
