/**
 * Supplier-wide outages: a few a week across an org, each hitting every attempt of one supplier's
 * datasets whose ingestion is due in its window (the same Ingest failure, or MISSING), nothing else;
 * the same attempt re-derived later agrees; and the fixed instant the UI tests and the benchmark
 * generate at shows one in progress, as the org's top cause.
 */
import { describe, expect, it } from 'vitest';
import { SUPPLIERS } from '../../../electron/demo/catalog';
import { loadDemo } from '../../../electron/demo/load';
import {
  OUTAGE_CODES,
  type SupplierOutage,
  checkOutages,
  seededOutages,
  supplierOutageAt,
} from '../../../electron/demo/outages';
import { type DatasetPlan, generateDatasetPlan } from '../../../electron/demo/plan';
import { SimulatedOrg } from '../../../electron/demo/remote/org';
import { buildTasksRecord } from '../../../electron/demo/tasks';
import { attemptStatus } from '../../../electron/demo/attempt';
import { drawCourse } from '../../../electron/demo/attemptCourse';
import { nextOccurrenceAfter } from '../../../electron/demo/schedule';
import { listIncidents } from '../../../electron/query/incidents';
import { Store } from '../../../electron/store/database';
import { STAGES } from '../../../shared/status';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
/** The instant and orgs of test/helpers/ui.ts (UI_NOW, seed 11, org acme) and bench/setup.ts (seed 1, org bench). */
const FIXED_NOW = Date.parse('2026-11-21T04:41:00.000Z');

function plansOf(count: number, seed: number, orgId: string, extra?: SupplierOutage[]): DatasetPlan[] {
  return Array.from({ length: count }, (_, index) =>
    generateDatasetPlan(index, { seed, orgId, outages: extra }),
  );
}

/** The deadlines of `plan` whose ingestion (as outages see it) is due in [from, to). */
function deadlinesDue(plan: DatasetPlan, from: number, to: number): number[] {
  const lead = plan.typicalMs + plan.slackMs;
  const found: number[] = [];
  for (let d = nextOccurrenceAfter(plan.schedule, from + lead - 1); d !== null && d - lead < to;) {
    found.push(d);
    d = nextOccurrenceAfter(plan.schedule, d);
  }
  return found;
}

/** The plan as if no outage ever touched its supplier. */
function withoutOutages(plan: DatasetPlan): DatasetPlan {
  return { ...plan, outages: { ...plan.outages, supplierIndex: -1, extra: [] } };
}

describe('seeded supplier outages', () => {
  const plans = plansOf(400, 5, 'org-demo');
  const source = plans[0]!.outages;

  it('come a few a week across the org, a few hours each, mostly failures at Ingest', () => {
    const from = Date.parse('2026-01-05T00:00:00Z');
    const outages = seededOutages(source.orgKey, source.failShare, from, from + 20 * WEEK);
    expect(outages.length / 20).toBeGreaterThanOrEqual(3);
    expect(outages.length / 20).toBeLessThanOrEqual(6);
    for (const outage of outages) {
      expect(outage.end - outage.start).toBeGreaterThanOrEqual(2 * HOUR);
      expect(outage.end - outage.start).toBeLessThanOrEqual(6 * HOUR);
      expect(SUPPLIERS.map((s) => s.id)).toContain(outage.supplierId);
    }
    const codes = new Set(outages.map((o) => o.shortCode));
    expect([...codes].sort()).toEqual([...OUTAGE_CODES, null].sort());
    expect(outages.filter((o) => o.shortCode !== null).length / outages.length).toBeGreaterThan(0.6);
    expect(new Set(outages.map((o) => o.supplierId)).size).toBeGreaterThan(8);
    expect(() => seededOutages(source.orgKey, source.failShare, from, Infinity)).toThrow(
      /from and to must be finite/,
    );
    // Never two at once: one per slot, inside it.
    for (let i = 1; i < outages.length; i++) expect(outages[i]!.start).toBeGreaterThan(outages[i - 1]!.end);
  });

  it('hit every attempt of the supplier due in the window the same way, and nothing else', () => {
    const from = Date.parse('2026-06-01T00:00:00Z');
    const outages = seededOutages(source.orgKey, source.failShare, from, from + 3 * WEEK);
    let hit = 0;
    for (const outage of outages) {
      for (const plan of plans) {
        // Attempts due just around the window, in it or not.
        for (const deadline of deadlinesDue(plan, outage.start - 3 * HOUR, outage.end + 3 * HOUR)) {
          const due = deadline - plan.typicalMs - plan.slackMs;
          const covering = outages.find(
            (o) => o.supplierId === plan.supplier.id && due >= o.start && due < o.end,
          );
          const course = drawCourse(plan, deadline);
          expect(supplierOutageAt(plan.outages, due)).toEqual(covering ?? null);
          if (covering !== undefined) {
            hit += 1;
            if (covering.shortCode === null) {
              expect(course).toMatchObject({ outcome: 'missing', startAt: null, failedStep: -1 });
            } else {
              expect(course).toMatchObject({
                outcome: 'fail',
                failedStep: 0,
                failureCode: covering.shortCode,
              });
              expect(plan.steps[0]!.stage).toBe('ingest');
            }
          } else {
            // Other suppliers, and this one outside its windows, behave as with no outages at all.
            expect(course).toEqual(drawCourse(withoutOutages(plan), deadline));
          }
        }
      }
    }
    expect(hit).toBeGreaterThan(outages.length * 3);
  });

  it('fail nothing at a fail rate of 0: the supplier publishes nothing instead', () => {
    const quiet = generateDatasetPlan(0, { seed: 5, orgId: 'org-demo', failRate: 0 }).outages;
    const from = Date.parse('2026-01-01');
    const outages = seededOutages(quiet.orgKey, quiet.failShare, from, from + 30 * WEEK);
    expect(outages.length).toBeGreaterThan(0);
    expect(outages.every((o) => o.shortCode === null)).toBe(true);
  });
});

describe('an outage seen by a live simulator', () => {
  it('is the same attempt, the same failure, whenever it is derived later', () => {
    const org = new SimulatedOrg({ datasets: 300, seed: 5, orgId: 'org-demo' });
    const plans = Array.from({ length: org.size }, (_, i) => org.plan(i));
    const source = plans[0]!.outages;
    const from = Date.parse('2026-06-01');
    const outage = seededOutages(source.orgKey, source.failShare, from, from + 2 * WEEK).find(
      (o) => o.shortCode !== null,
    )!;
    const checked = new Set<string>();
    for (const plan of plans.filter((p) => p.supplier.id === outage.supplierId)) {
      for (const deadline of deadlinesDue(plan, outage.start, outage.end)) {
        const course = drawCourse(plan, deadline);
        const settled = course.settleAt!;
        const [early, late] = [settled + 1, settled + 2 * DAY + 17 * 60_000];
        expect(attemptStatus(course, early)).toBe('FAILED');
        expect(attemptStatus(drawCourse(plan, deadline), late)).toBe('FAILED');
        // Through the simulator's tasks endpoint: the same failed task, code and message both times.
        const first = org.tasks(course.deliveryId, early, false)!;
        const again = org.tasks(course.deliveryId, late, false)!;
        expect(again).toEqual(first);
        const failed = STAGES.flatMap((s) => first[s].tasks).filter((t) => t.status === 'FAILED');
        expect(failed).toHaveLength(1);
        expect(failed[0]).toMatchObject({ shortCode: outage.shortCode, taskName: plan.steps[0]!.name });
        expect(first.ingest.status).toBe('FAILED');
        expect(buildTasksRecord(plan, course, late).ingest.tasks[0]!.shortCode).toBe(outage.shortCode);
        checked.add(plan.datasetId);
      }
    }
    // Supplier-wide: several of the supplier's datasets, not one.
    expect(checked.size).toBeGreaterThanOrEqual(3);
  });

  it('takes outages of its own for one supplier, checked with the field named', () => {
    const start = Date.parse('2026-06-03T10:00:00Z');
    const supplier = generateDatasetPlan(0, { seed: 5, orgId: 'org-demo' }).supplier.id;
    const staged: SupplierOutage = { supplierId: supplier, start, end: start + 4 * HOUR, shortCode: null };
    const org = new SimulatedOrg({ datasets: 200, seed: 5, orgId: 'org-demo', outages: [staged] });
    let missing = 0;
    for (let i = 0; i < org.size; i++) {
      const plan = org.plan(i);
      for (const deadline of deadlinesDue(plan, staged.start, staged.end)) {
        const course = drawCourse(plan, deadline);
        if (plan.supplier.id !== supplier) continue;
        expect(course.startAt).toBeNull();
        expect(attemptStatus(course, deadline + 3 * DAY)).toBe('MISSING');
        missing += 1;
      }
    }
    expect(missing).toBeGreaterThan(0);

    const ok = { supplierId: supplier, start, end: start + HOUR, shortCode: 'E_AUTH_FAILED' } as const;
    expect(() => checkOutages([ok])).not.toThrow();
    expect(() => checkOutages([ok, { ...ok, supplierId: 'SUP-9' }])).toThrow(
      /outages\[1\]\.supplierId 'SUP-9' is not a demo supplier \(one of SUP-1001, /,
    );
    expect(() => checkOutages([{ ...ok, end: start }])).toThrow(
      /outages\[0\]: start and end .* start before end/,
    );
    expect(() => checkOutages([{ ...ok, start: Number.NaN }])).toThrow(RangeError);
    expect(() =>
      checkOutages([{ ...ok, shortCode: 'E_OUT_OF_MEMORY' as unknown as SupplierOutage['shortCode'] }]),
    ).toThrow(/shortCode 'E_OUT_OF_MEMORY' is not an ingest outage code \(E_AUTH_FAILED, .* or null/);
    expect(() => new SimulatedOrg({ datasets: 1, seed: 1, outages: [{ ...ok, end: 0 }] })).toThrow(
      /outages\[0\]/,
    );
  });
});

describe('the fixed instant of the UI tests and the benchmark', () => {
  it('the 300-dataset UI org is in an outage: its top cause is one supplier, at least 3 datasets', async () => {
    const store = await Store.open({ dataDir: null });
    try {
      loadDemo(store, { orgId: 'acme', datasets: 300, seed: 11, now: new Date(FIXED_NOW) });
      const source = generateDatasetPlan(0, { seed: 11, orgId: 'acme' }).outages;
      const [ongoing] = seededOutages(source.orgKey, source.failShare, FIXED_NOW, FIXED_NOW + 1);
      expect(ongoing?.shortCode).not.toBeNull();
      const causes = listIncidents(store, 'acme');
      // The outage is the largest live incident: one supplier, its code, failing now.
      const top = [...causes].sort((a, b) => b.count - a.count)[0];
      expect(top!.causeId).toBe(`ingest:${ongoing!.shortCode}`);
      expect(top!.suppliers[0]).toMatchObject({ id: ongoing!.supplierId });
      expect(top!.suppliers[0]!.count).toBeGreaterThanOrEqual(3);
      // The rest stays varied: many other causes, none of them one supplier's.
      expect(causes.length).toBeGreaterThan(10);
      for (const cause of causes.filter((c) => c !== top && c.kind === 'failed'))
        expect(cause.suppliers[0]!.count).toBeLessThan(top!.suppliers[0]!.count);
    } finally {
      await store.close();
    }
  });

  it('the 10k benchmark org is in an outage hitting dozens of one supplier’s datasets', () => {
    const plans = plansOf(10_000, 1, 'bench');
    const source = plans[0]!.outages;
    const [ongoing] = seededOutages(source.orgKey, source.failShare, FIXED_NOW, FIXED_NOW + 1);
    expect(ongoing?.shortCode).not.toBeNull();
    let failing = 0;
    for (const plan of plans.filter((p) => p.supplier.id === ongoing!.supplierId)) {
      // Each attempt due in the outage so far (and settled by now) failed with its code.
      for (const deadline of deadlinesDue(plan, ongoing!.start, FIXED_NOW)) {
        const course = drawCourse(plan, deadline);
        expect(course.failureCode).toBe(ongoing!.shortCode);
        if (attemptStatus(course, FIXED_NOW) === 'FAILED') failing += 1;
      }
    }
    expect(failing).toBeGreaterThanOrEqual(30);
  });
});
