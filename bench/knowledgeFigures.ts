/**
 * The on-call layer's figures (docs/architecture.md#performance-budgets, docs/architecture.md#the-on-call-layer), in process on a store as the engine holds it, with an
 * injected clock and source states: the deadline clock behind Upcoming and overdue (the bench org), and
 * the reliability statistics over a second org holding 100 deliveries per dataset (the store's retention).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { scheduleKey } from '../electron/knowledge/deadlineClock';
import { OnCallKnowledge } from '../electron/knowledge/service';
import type { Store } from '../electron/store/database';
import { STATS_DAYS, STATS_GROUPS, type StatsDays, type StatsGroupBy } from '../shared/reliability';
import type { SourceState } from '../shared/sync';
import { judgedAt, viewBudget } from './budgets';
import { type Report, bytes, ms } from './report';
import { BENCH_NOW } from './setup';
import { summarize } from './stats';

const HOUR = 3_600_000;
/** Cold reads and computations, each on a new service (its own history and clock). */
const COLD_RUNS = 3;
/** Clock steps for the refresh figures, and looks at a warm answer. */
const STEPS = 8;
const WARM_LOOKS = 20;
const UPCOMING_HOURS = 6;
/** The poll interval of the fake source, and how long ago its last success was (stale after three). */
const POLL_MS = 60_000;
const STALE_FOR_MS = 6 * HOUR;

/** A full garbage collection (V8's gc, exposed at run time: the bench runs without --expose-gc). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // Twice: array buffers (a closed store's WebAssembly memory) are released by the collection after.
  gc();
  gc();
}

const signedBytes = (value: number): string => (value < 0 ? `−${bytes(-value)}` : bytes(value));

/** Sub-millisecond looks (a held answer) in µs, where ms() would say 0.00 ms. */
const fine = (value: number): string => (value < 0.1 ? `${(value * 1000).toFixed(0)} µs` : ms(value));

/** A failing source of the org whose last success was `STALE_FOR_MS` before `now` (the data is stale). */
function staleSource(orgId: string, now: number): SourceState {
  const lastSuccess = new Date(now - STALE_FOR_MS).toISOString();
  return {
    sourceId: 'bench-source',
    orgId,
    name: 'bench',
    phase: 'error',
    activity: null,
    lastSuccessAt: lastSuccess,
    lastError: 'connect ECONNREFUSED (bench: the remote is unreachable)',
    lastErrorAt: new Date(now - POLL_MS).toISOString(),
    lastDurationMs: 40,
    lastCounts: null,
    nextRunAt: new Date(now + POLL_MS).toISOString(),
    stopped: false,
    pollIntervalMs: POLL_MS,
  };
}

/** A service over `store` whose clock reads `clock.now` (moved by the caller). */
function knowledgeAt(store: Store, clock: { now: number }, sources: SourceState[] = []): OnCallKnowledge {
  return new OnCallKnowledge({ store, now: () => new Date(clock.now), sources: () => sources });
}

async function time<T>(work: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
}

/**
 * Upcoming and overdue on the bench org: the first answer (the history read, then every schedule
 * computed), the refresh as the clock moves past deadlines, and overdue while the data is stale.
 */
export async function deadlineClockFigures(
  store: Store,
  orgId: string,
  size: number,
  report: Report,
  log: (line: string) => void,
): Promise<void> {
  log('  deadline clock (Upcoming, overdue)…');
  const judged = judgedAt(size);
  const reads: number[] = [];
  const computes: number[] = [];
  const firsts: number[] = [];
  let schedules = 0;
  let deadlines = 0;
  for (let run = 0; run < COLD_RUNS; run += 1) {
    // Separated: the history read, then the clock's first look at every schedule.
    const clock = { now: BENCH_NOW.getTime() };
    const split = knowledgeAt(store, clock);
    const read = await time(() => split.orgHistory(orgId));
    const compute = await time(() => split.upcoming(orgId, UPCOMING_HOURS));
    reads.push(read.ms);
    computes.push(compute.ms);
    schedules = new Set(read.result.datasets.map((dataset) => scheduleKey(dataset.config))).size;
    deadlines = compute.result.total;
    // As the window asks it: one call, both together.
    firsts.push((await time(() => knowledgeAt(store, clock).upcoming(orgId, UPCOMING_HOURS))).ms);
  }
  const first = summarize(firsts);
  report.atMost(`Upcoming (${UPCOMING_HOURS} h), first answer`, size, first.p50, viewBudget(size).limit, ms, {
    judged,
    note: `history read + ${schedules} schedules computed, ${deadlines} deadlines; p50 of ${first.n} cold runs`,
  });
  report.info('  of which the history read', size, ms(summarize(reads).p50), 'p50; no schedule computed');
  report.info(
    '  of which the schedules computed',
    size,
    ms(summarize(computes).p50),
    `p50; ${schedules} schedules, history in memory`,
  );

  const clock = { now: BENCH_NOW.getTime() };
  const knowledge = knowledgeAt(store, clock);
  await knowledge.upcoming(orgId, UPCOMING_HOURS);
  for (const stepHours of [1, 6]) {
    const samples: number[] = [];
    let total = 0;
    for (let step = 0; step < STEPS; step += 1) {
      clock.now += stepHours * HOUR;
      const refresh = await time(() => knowledge.upcoming(orgId, UPCOMING_HOURS));
      samples.push(refresh.ms);
      total += refresh.result.total;
    }
    const refresh = summarize(samples);
    report.atMost(
      `Upcoming refresh, clock +${stepHours} h p50`,
      size,
      refresh.p50,
      viewBudget(size).limit,
      ms,
      {
        judged,
        note: `passed deadlines moved on; ${STEPS} steps, ${Math.round(total / STEPS)} deadlines each on average; max ${ms(refresh.max)}`,
      },
    );
  }

  // The last success was when the data was taken (BENCH_NOW); the remote has not answered for 6 h since.
  const staleClock = { now: BENCH_NOW.getTime() + STALE_FOR_MS };
  const sources = [staleSource(orgId, staleClock.now)];
  const overdueFirst = await time(() => knowledgeAt(store, staleClock, sources).overdue(orgId));
  if (!overdueFirst.result.stale) throw new Error('overdue: the org is not stale with a success 6 h ago');
  const stale = knowledgeAt(store, staleClock, sources);
  await stale.overdue(orgId);
  const looks: number[] = [];
  for (let look = 0; look < WARM_LOOKS; look += 1) looks.push((await time(() => stale.overdue(orgId))).ms);
  const overdue = summarize(looks);
  const { datasets, deadlines: passed } = overdueFirst.result;
  report.atMost(
    'overdue (stale for 6 h), history in memory p50',
    size,
    overdue.p50,
    viewBudget(size).limit,
    ms,
    {
      judged,
      note: `${datasets.length} datasets, ${passed} deadlines passed since the last sync; first answer (history read) ${ms(overdueFirst.ms)}`,
    },
  );
}

/** Statistics of every (groupBy, days), the default first; the largest (dataset, 90 days) last. */
const STATS_ORDER: { groupBy: StatsGroupBy; days: StatsDays }[] = [
  { groupBy: 'supplier', days: 30 },
  ...STATS_GROUPS.flatMap((groupBy) => STATS_DAYS.map((days) => ({ groupBy, days }))).filter(
    ({ groupBy, days }) => !(groupBy === 'supplier' && days === 30),
  ),
];

/**
 * Reliability statistics on an org with 100 deliveries per dataset: the history read (and the memory it
 * holds), each (groupBy, days) computed cold, and the held answer read again (what the view gets after
 * the engine's precomputation).
 */
export async function statsFigures(
  store: Store,
  orgId: string,
  size: number,
  deliveries: number,
  report: Report,
  log: (line: string) => void,
): Promise<void> {
  log('  reliability statistics…');
  const judged = judgedAt(size);
  const clock = { now: BENCH_NOW.getTime() };
  const reads: number[] = [];
  let rssGrowth = Number.NaN;
  let heapGrowth = Number.NaN;
  let held: OnCallKnowledge | null = null;
  for (let run = 0; run < COLD_RUNS; run += 1) {
    const knowledge = knowledgeAt(store, clock);
    held = null; // the previous run's history is garbage before this one is read
    collectGarbage();
    const before = process.memoryUsage();
    reads.push((await time(() => knowledge.orgHistory(orgId))).ms);
    held = knowledge;
    if (run === 0) {
      collectGarbage();
      const after = process.memoryUsage();
      rssGrowth = after.rss - before.rss;
      heapGrowth = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    }
  }
  const knowledge = held!;
  const history = await knowledge.orgHistory(orgId);
  const read = summarize(reads);
  report.info(
    'statistics: history read (orgHistory), p50',
    size,
    ms(read.p50),
    `${history.datasets.length} datasets × ${deliveries} deliveries; ${read.n} cold reads; max ${ms(read.max)}; once per engine start, then per changed dataset`,
  );
  report.info(
    '  memory held by the history',
    size,
    signedBytes(heapGrowth),
    `JS heap + array buffers after a full collection, before/after the first read; process RSS ${signedBytes(rssGrowth)}`,
  );

  for (const { groupBy, days } of STATS_ORDER) {
    const colds: number[] = [];
    let groups = 0;
    for (let run = 0; run < COLD_RUNS; run += 1) {
      // A new cache over the same history: the computation alone.
      knowledge.statsCache.forget(orgId);
      const cold = await time(() => knowledge.stats(orgId, groupBy, days));
      colds.push(cold.ms);
      groups = cold.result.groups.length;
    }
    const looks: number[] = [];
    for (let look = 0; look < WARM_LOOKS; look += 1)
      looks.push((await time(() => knowledge.stats(orgId, groupBy, days))).ms);
    const cached = summarize(looks);
    const cold = summarize(colds);
    const isDefault = groupBy === 'supplier' && days === 30;
    report.atMost(
      `statistics ${groupBy}/${days} d, computed${isDefault ? ' (the default, precomputed after each sync)' : ''}`,
      size,
      cold.p50,
      viewBudget(size).limit,
      ms,
      {
        judged,
        note: `${groups} groups; p50 of ${cold.n} cold runs (history in memory); held answer p50 ${fine(cached.p50)}`,
      },
    );
  }
}
