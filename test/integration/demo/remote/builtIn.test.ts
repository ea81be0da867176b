/**
 * The built-in demo's staged supplier outage, seen the way a new user sees it: the real sync mirrors
 * the simulator on loopback, and within the first two minutes several datasets of one supplier turn
 * FAILED with the same E_AUTH_FAILED at Ingest, some of them in one cycle (what the alerts group into
 * one notification), and that is the org's top cause. Real time is injected, so minutes pass at once.
 */
import { afterEach, expect, it } from 'vitest';
import { SUPPLIERS } from '../../../../electron/demo/catalog';
import { generateDatasetPlan } from '../../../../electron/demo/plan';
import {
  type BuiltInDemo,
  DEMO_DATASETS,
  DEMO_INTERVALS,
  DEMO_LAG_MS,
  DEMO_ORG_ID,
  DEMO_OUTAGE,
  attemptsDue,
  startBuiltInDemo,
} from '../../../../electron/demo/remote/builtIn';
import { listIncidents } from '../../../../electron/query/incidents';
import { Store } from '../../../../electron/store/database';
import { SourcesSync } from '../../../../electron/sync/sourcesSync';
import type { CycleEvent } from '../../../../shared/sync';

let demo: BuiltInDemo | undefined;
let store: Store | undefined;
afterEach(async () => {
  await demo?.close();
  await store?.close();
});

/** Two starting instants: the tests' usual one and an arbitrary afternoon. */
it.each([Date.UTC(2026, 10, 21, 4, 41), Date.UTC(2027, 2, 9, 15, 7, 31)])(
  'stages an outage of the busiest supplier that the sync shows as one cause within two minutes (start %d)',
  async (start) => {
    let now = start;
    const clock = () => new Date(now);
    demo = await startBuiltInDemo({ now: clock });
    const simStart = start - DEMO_LAG_MS;
    const { outage } = demo;
    expect(outage).toMatchObject({
      start: simStart + DEMO_OUTAGE.afterMs,
      end: simStart + DEMO_OUTAGE.afterMs + DEMO_OUTAGE.lengthMs,
      shortCode: 'E_AUTH_FAILED',
    });
    // The busiest supplier in the outage's first hour: no other has more ingestions due.
    const plans = Array.from({ length: DEMO_DATASETS }, (_, i) =>
      generateDatasetPlan(i, { seed: 1, orgId: DEMO_ORG_ID }),
    );
    const due = attemptsDue(plans, outage.start, outage.start + 3_600_000);
    for (const supplier of SUPPLIERS)
      expect(due.get(supplier.id) ?? 0).toBeLessThanOrEqual(due.get(outage.supplierId)!);
    const supplierIds = new Set(
      plans.filter((p) => p.supplier.id === outage.supplierId).map((p) => p.datasetId),
    );

    store = await Store.open({ dataDir: null });
    const sourcesSync = new SourcesSync({
      store,
      secrets: { apiKeyFor: () => null, hint: '' },
      now: clock,
      timers: { setTimeout: () => 0, clearTimeout: () => {} },
      builtIn: [{ source: demo.source, apiKey: demo.apiKey, intervals: DEMO_INTERVALS }],
    });
    const cycles: CycleEvent[] = [];
    sourcesSync.onCycle((event) => cycles.push(event));
    sourcesSync.start();
    const runner = sourcesSync.runner('demo')!;
    await runner.runCycle('crawl');
    for (let poll = 0; poll < 12; poll++) {
      now += DEMO_INTERVALS.pollMs;
      await runner.runCycle('poll');
    }
    await sourcesSync.stop();
    expect(cycles.every((cycle) => cycle.outcome === 'ok')).toBe(true);

    const newlyFailed = cycles
      .slice(1)
      .map((cycle) =>
        cycle.transitions.filter((t) => t.to === 'FAILED' && t.from !== null && supplierIds.has(t.datasetId)),
      );
    expect(newlyFailed.flat().length).toBeGreaterThanOrEqual(3);
    // Several at once: one cycle brings at least two of them (one grouped notification).
    expect(Math.max(...newlyFailed.map((failed) => failed.length))).toBeGreaterThanOrEqual(2);

    // The staged outage is one live incident of its code, the largest (Triage lists newest first).
    const top = listIncidents(store, demo.source.orgId)
      .filter((incident) => incident.causeId === 'ingest:E_AUTH_FAILED')
      .sort((a, b) => b.count - a.count)[0];
    expect(top).toMatchObject({ causeId: 'ingest:E_AUTH_FAILED', endedAt: null });
    expect(top!.suppliers[0]).toMatchObject({ id: outage.supplierId });
    expect(top!.suppliers[0]!.count).toBeGreaterThanOrEqual(3);
    for (const dataset of top!.datasets.filter((d) => d.supplierId === outage.supplierId))
      expect(supplierIds.has(dataset.datasetId)).toBe(true);
  },
);
