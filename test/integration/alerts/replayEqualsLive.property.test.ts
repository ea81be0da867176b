/**
 * Replay equals live (docs/decisions.md "Replaying the rules"): a random week of a simulated org is
 * synced through the real sync (the remote simulator on loopback, a manual clock), the live alerts
 * judge every cycle with a random rule set and tick on their 30-second grid, someone acknowledges
 * problems now and then; afterwards the replay of the same rule set over the stored history must
 * predict every notification the live alerts sent — the same ids, rules, actions, times, words, targets
 * and events — no more, no fewer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Alerter } from '../../../electron/alerts/alerter';
import { replayRules } from '../../../electron/alerts/replay';
import { nextDigestTick } from '../../../electron/alerts/digests';
import type { Store } from '../../../electron/store/database';
import { acknowledge } from '../../../electron/store/tables/acknowledgements';
import { ruleNotificationsSent } from '../../../electron/store/tables/ruleLog';
import { saveRuleSet } from '../../../electron/store/tables/ruleSets';
import { type DigestSchedule, RULE_EVENTS, type Rule, type RuleSet, TRAY_ROUTE } from '../../../shared/rules';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { HandTimers, ReportedSync } from '../../helpers/alerts';
import { ORG, closeBenches, syncBench } from '../../helpers/sync';

const MINUTE = 60_000;

/** The next tick at which a digest of `set` falls due (the live ticks between send nothing). */
const nextDue = (store: Store, set: RuleSet, after: number): number =>
  nextDigestTick(store, (_org, ruleId) => set.rules.find((rule) => rule.id === ruleId), after, 'UTC');

afterEach(closeBenches);

const ruleArbitrary = (index: number): fc.Arbitrary<Rule> =>
  fc
    .record({
      event: fc.constantFrom(...RULE_EVENTS.filter((event) => event !== 'contact-lost')),
      action: fc.constantFrom('notify', 'urgent', 'digest', 'timeline' as const),
      pattern: fc.constantFrom(null, '*1*', '*-2?', '*a*'),
      lateBy: fc.constantFrom(1, 5, 60),
      digest: fc.oneof(
        fc.record({ everyMinutes: fc.constantFrom(30, 95, 240) }),
        fc.record({ at: fc.constantFrom('09:00', '08:15,17:30').map((times) => times.split(',')) }),
      ) as fc.Arbitrary<DigestSchedule>,
      enabled: fc.boolean(),
    })
    .map(({ event, action, pattern, lateBy, digest, enabled }) => ({
      id: `rule-${index}`,
      name: `Rule ${index}`,
      enabled: enabled || index === 0,
      event,
      ...(event === 'late' ? { lateByMinutes: lateBy } : {}),
      match: pattern === null ? {} : { datasets: [pattern] },
      action,
      ...(action === 'digest' ? { digest } : {}),
      routes: action === 'timeline' ? [] : [TRAY_ROUTE],
    }));

const ruleSetArbitrary: fc.Arbitrary<RuleSet> = fc
  .integer({ min: 1, max: 4 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, index) => ruleArbitrary(index))))
  .map((rules) => ({ rules, routes: [] }));

const weekArbitrary = fc.record({
  seed: fc.integer({ min: 1, max: 10_000 }),
  failRate: fc.constantFrom(0.1, 0.25, 0.4),
  set: ruleSetArbitrary,
  // At most 3.5 days: the simulated org's hourly datasets keep their last 100 deliveries (about four
  // days), and a dataset's timeline is kept as long as its deliveries — older changes are not replayed
  // (docs/decisions.md "Replaying the rules", what the history does not hold).
  steps: fc.array(
    fc.record({
      minutes: fc.integer({ min: 10, max: 200 }),
      crawl: fc.boolean(),
      acknowledge: fc.boolean(),
    }),
    { minLength: 15, maxLength: 25 },
  ),
});

/**
 * A week found by a random run: a poll learns a dataset went MISSING → DELIVERED_LATE before its
 * delivery time is stored, and a later crawl fills it in. Live judged the `late` rule on the lateness
 * known then; the replay must not judge it on the one stored afterwards.
 */
const LATE_BEFORE_ITS_DELIVERY_TIME = {
  seed: 420,
  failRate: 0.1 as const,
  set: {
    rules: [
      {
        id: 'rule-0',
        name: 'Rule 0',
        enabled: true,
        event: 'late',
        lateByMinutes: 5,
        match: { datasets: ['*a*'] },
        action: 'digest',
        digest: { everyMinutes: 30 },
        routes: [TRAY_ROUTE],
      },
    ],
    routes: [],
  } satisfies RuleSet,
  steps: (
    [
      [182, 0, 0],
      [167, 0, 1],
      [39, 0, 0],
      [161, 1, 1],
      [27, 1, 1],
      [148, 1, 0],
      [130, 1, 0],
      [95, 1, 1],
      [185, 0, 0],
      [171, 1, 1],
      [119, 0, 1],
      [156, 0, 0],
      [22, 1, 1],
      [131, 0, 1],
      [197, 0, 0],
      [190, 1, 0],
      [103, 1, 1],
      [116, 0, 1],
      [103, 0, 1],
      [41, 0, 1],
      [10, 1, 0],
      [61, 1, 1],
      [28, 0, 1],
    ] as const
  ).map(([minutes, crawl, acknowledge]) => ({ minutes, crawl: crawl === 1, acknowledge: acknowledge === 1 })),
};

describe('the replay of the rules', () => {
  it('predicts every notification the live alerts sent over a random week', async () => {
    await fc.assert(
      fc.asyncProperty(weekArbitrary, async ({ seed, failRate, set, steps }) => {
        const bench = await syncBench({ simulator: { datasets: 24, seed, failRate } });
        try {
          const now = (): Date => new Date(bench.clock.now());
          const alerts = new Alerter({
            store: bench.store,
            sync: new ReportedSync(),
            settings: () => DEFAULT_SETTINGS,
            now,
            timeZone: 'UTC',
            timers: new HandTimers(),
            onError: (error) => {
              throw error;
            },
          });
          await alerts.handleCycle(await bench.runner.runCycle('crawl'));
          saveRuleSet(bench.store, ORG, set, now());
          for (const step of steps) {
            // Off the grid, as real cycles are: a cycle and a tick never share a millisecond.
            const target = bench.clock.now() + step.minutes * MINUTE + 7_000;
            // The live ticks that can send a digest: the grid tick at or after the moment one falls due
            // (a tick at any other time finds none due, and is left out to keep a week quick).
            for (let tick = nextDue(bench.store, set, bench.clock.now()); tick <= target;) {
              bench.clock.set(tick);
              await alerts.tick();
              tick = nextDue(bench.store, set, tick);
            }
            bench.clock.set(target);
            if (step.acknowledge) acknowledgeOne(bench.store, now());
            await alerts.handleCycle(await bench.runner.runCycle(step.crawl ? 'crawl' : 'poll'));
          }
          const live = ruleNotificationsSent(bench.store, ORG, new Date(0), now());
          const replay = replayRules({
            store: bench.store,
            orgId: ORG,
            set,
            days: 30,
            now: now(),
            timeZone: 'UTC',
          });
          expect(replay.notifications).toEqual(live);
          await alerts.stop();
        } finally {
          await bench.close();
        }
      }),
      // The same weeks on every run (REPLAY_SEED and REPLAY_RUNS explore others).
      {
        numRuns: Number(process.env.REPLAY_RUNS ?? 8),
        seed: Number(process.env.REPLAY_SEED ?? 20_261_129),
        endOnFailure: true,
        examples: [[LATE_BEFORE_ITS_DELIVERY_TIME]],
      },
    );
  }, 600_000);
});

/** Someone acknowledges the first FAILED or MISSING dataset nobody is on yet. */
function acknowledgeOne(store: Store, at: Date): void {
  const row = store.get(
    `SELECT d.dataset_id, d.status, d.delivery_id, d.failed_delivery FROM datasets d
     WHERE d.org_id = ? AND d.status IN ('FAILED', 'MISSING') AND NOT EXISTS (
       SELECT 1 FROM acknowledgements a WHERE a.org_id = d.org_id AND a.dataset_id = d.dataset_id AND a.ended_at IS NULL)
     ORDER BY d.dataset_id LIMIT 1`,
    [ORG],
  );
  if (row === undefined) return;
  const status = String(row.status);
  store.transaction(() =>
    acknowledge(store, {
      orgId: ORG,
      datasetId: String(row.dataset_id),
      deliveryId: String(status === 'FAILED' ? (row.failed_delivery ?? row.delivery_id) : row.delivery_id),
      status,
      causeId: null,
      note: null,
      by: 'sam',
      at: at.toISOString(),
    }),
  );
}
