/**
 * The notification rules' figures (docs/architecture.md#performance-budgets, docs/decisions.md "Rule
 * notifications: one evaluator", "Replaying the rules"): a 10k org of the remote simulator mirrored by
 * the real sync, then a week of its life on a simulated clock (a poll every POLL_MINUTES, the live
 * alerts judging every cycle with a rule set that uses every event and action). Measured:
 *
 * - the rules' live evaluation per sync cycle — the cycle's facts built from the store and judged by the
 *   evaluator, as the alerts do (budget ≤ 20 ms at 10k), p50 and p99 over the week's cycles;
 * - a 7-day replay of the same rules over what the week left in the store (budget ≤ 2 s at 10k), and
 *   that it predicts what the live alerts sent.
 */
import { Alerter } from '../electron/alerts/alerter';
import { replayRules } from '../electron/alerts/replay';
import { factsOfChanges } from '../electron/alerts/ruleFacts';
import { nextDigestTick } from '../electron/alerts/digests';
import { type RuleNotification, judge } from '../electron/alerts/ruleRun';
import { startRemoteSimulator } from '../electron/demo/remote/server';
import { cutHistories } from '../electron/query/ruleHistory';
import { createManualClock } from '../electron/demo/remote/clock';
import { RuleMatcher } from '../electron/rules/match';
import { Store } from '../electron/store/database';
import { ruleNotificationsSent } from '../electron/store/tables/ruleLog';
import { saveRuleSet } from '../electron/store/tables/ruleSets';
import { saveSource } from '../electron/store/tables/sources';
import { SourceRunner } from '../electron/sync/runner';
import type { RuleSet } from '../shared/rules';
import { DEFAULT_SETTINGS } from '../shared/settings';
import type { CycleEvent } from '../shared/sync';
import { type Report, ms } from './report';
import { summarize } from './stats';

const SIZE = 10_000;
const ORG = 'bench-rules';
const KEY = 'bench-rules-key';
const POLL_MINUTES = 15;
const DAYS = 7;
const LIVE_BUDGET_MS = 20;
const REPLAY_BUDGET_MS = 2_000;
const MINUTE = 60_000;

/** Every event and action: what a team with rules of its own might save. */
const RULES: RuleSet = {
  rules: [
    {
      id: 'noisy',
      name: 'Noisy',
      enabled: true,
      event: 'failed',
      match: { datasets: ['*7'] },
      action: 'timeline',
      routes: [],
    },
    {
      id: 'failed',
      name: 'Failures',
      enabled: true,
      event: 'failed',
      match: {},
      action: 'notify',
      routes: ['tray'],
    },
    {
      id: 'missing',
      name: 'Missing',
      enabled: true,
      event: 'missing',
      match: {},
      action: 'digest',
      digest: { everyMinutes: 60 },
      routes: ['tray'],
    },
    {
      id: 'late',
      name: 'Late',
      enabled: true,
      event: 'late',
      lateByMinutes: 30,
      match: {},
      action: 'urgent',
      routes: ['tray'],
    },
    {
      id: 'back',
      name: 'Back',
      enabled: true,
      event: 'recovered',
      match: {},
      action: 'notify',
      routes: ['tray'],
    },
  ],
  routes: [],
};

export async function ruleFigures(
  report: Report,
  log: (line: string) => void,
  quick: boolean,
): Promise<void> {
  const start = Date.UTC(2026, 10, 2, 0, 0, 7);
  const clock = createManualClock(start);
  const simulator = await startRemoteSimulator({
    port: 0,
    apiKey: KEY,
    datasets: SIZE,
    seed: 27,
    orgId: ORG,
    clock,
  });
  const store = await Store.open({ dataDir: null });
  const now = (): Date => new Date(clock.now());
  try {
    const source = saveSource(store, { id: 'bench-rules-remote', orgId: ORG, baseUrl: simulator.url }, now());
    const runner = new SourceRunner({
      store,
      source,
      apiKey: KEY,
      missingKeyHint: 'set a key',
      now,
      intervals: { pollMs: POLL_MINUTES * MINUTE, crawlMs: 6 * 60 * MINUTE },
      deliveriesPerDataset: 100,
      sleep: async () => undefined,
      random: () => 0.5,
      timers: { setTimeout: () => 0, clearTimeout: () => undefined },
    });
    const alerts = new Alerter({
      store,
      sync: { onCycle: () => () => undefined, onState: () => () => undefined, states: () => [] },
      settings: () => DEFAULT_SETTINGS,
      now,
      timeZone: 'UTC',
      timers: { setTimeout: () => 0, clearTimeout: () => undefined },
    });
    log(`  first sync of ${SIZE.toLocaleString('en-US')} datasets…`);
    await alerts.handleCycle(await runner.runCycle('crawl'));
    saveRuleSet(store, ORG, RULES, now());
    const matcher = new RuleMatcher(RULES.rules);
    const ruleOf = (_org: string, ruleId: string) => RULES.rules.find((rule) => rule.id === ruleId);
    const evaluations: number[] = [];
    const cycles = ((quick ? 2 : DAYS) * 24 * 60) / POLL_MINUTES;
    log(`  ${cycles} polls, ${POLL_MINUTES} min apart, the live alerts judging each…`);
    for (let n = 1; n <= cycles; n += 1) {
      const poll = start + n * POLL_MINUTES * MINUTE;
      // The alerts' ticks between cycles that send a digest (the others find nothing due), on their grid.
      for (let tick = nextDigestTick(store, ruleOf, clock.now(), 'UTC'); tick <= poll;) {
        clock.set(tick);
        await alerts.tick();
        tick = nextDigestTick(store, ruleOf, tick, 'UTC');
      }
      clock.set(poll + 7_000);
      const event: CycleEvent = await runner.runCycle(n % 24 === 0 ? 'crawl' : 'poll');
      // The rules' part of the alerts' evaluation, as ruleCycle does it: facts from the store, judged.
      const began = performance.now();
      judge(matcher, factsOfChanges(store, ORG, event.transitions, now().toISOString()), now().toISOString());
      evaluations.push(performance.now() - began);
      await alerts.handleCycle(event);
    }
    const live = summarize(evaluations);
    report.atMost('rules: live evaluation per sync cycle, p50', SIZE, live.p50, LIVE_BUDGET_MS, ms, {
      note: `the cycle's facts from the store and the evaluator, over ${cycles} polls`,
    });
    report.atMost('rules: live evaluation per sync cycle, p99', SIZE, live.p99, LIVE_BUDGET_MS, ms);
    const days = quick ? 2 : DAYS;
    const began = performance.now();
    const replay = replayRules({ store, orgId: ORG, set: RULES, days, now: now(), timeZone: 'UTC' });
    const took = performance.now() - began;
    const sent = ruleNotificationsSent(store, ORG, new Date(0), now()) as RuleNotification[];
    // Hourly datasets keep about four days of deliveries, and their timelines as much: the replay says
    // so in its note, and what it cannot see before the cut shifts the digests after it. Replay equals
    // live is the property test's to show; here, how many of live's notifications the replay predicted.
    const cut = cutHistories(store, ORG, new Date(0)).latest;
    const predicted = new Set(replay.notifications.map((notification) => notification.id));
    const foreseen = sent.filter((notification) => predicted.has(notification.id)).length;
    report.atMost(`rules: replay of ${days} days`, SIZE, took, REPLAY_BUDGET_MS, ms, {
      note: `${replay.notifications.length} notifications replayed, ${sent.length} sent live, ${foreseen} of them predicted exactly${
        cut === null
          ? ''
          : ` (timelines cut from ${cut.toISOString().slice(0, 16)}Z on, as the replay's note says)`
      }`,
    });
    await alerts.stop();
  } finally {
    await store.close();
    await simulator.close();
  }
}
