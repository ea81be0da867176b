/**
 * The on-call layer's answers for one store (docs/architecture.md#the-on-call-layer), as the window, the CLI and the local API
 * ask them: one history in memory and one deadline clock shared by all, so each look is a walk over
 * memory. Time and the sources' states are injected (tests move the clock and stop the remote).
 */
import type { SourceState } from '../../shared/sync';
import type { OverdueSummary, UpcomingDeadlines } from '../../shared/upcoming';
import {
  DEFAULT_STATS_DAYS,
  DEFAULT_STATS_GROUP_BY,
  type ReliabilityStats,
  type StatsDays,
  type StatsGroupBy,
} from '../../shared/reliability';
import type { DatasetDeadlines } from '../../shared/views';
import type { DeadlineConfig } from '../../shared/schemas';
import { HANDOFF_AT_RISK_HOURS, type HandoffReport, handoffFirstRows } from '../../shared/handoff';
import { nextOccurrenceAfter } from '../../shared/deadlines';
import type { Store } from '../store/database';
import { datasetNames, failMessages } from '../query/incidents';
import { habitsOf } from './habits';
import { DeadlineClock } from './deadlineClock';
import { assembleHandoff, readStoredFacts, withTroubleDetails } from './handoff';
import { HistoryIndex, type HistoryIndexOptions, OrgHistory } from './history';
import { orgFreshness, overdueDatasets, upcomingDeadlines } from './upcoming';
import { StatsCache, statsWindowEnd } from './statsCache';

/** How far ahead the clock looks for a dataset's next deadlines before asking croner one by one. */
const NEXT_SPAN_MS = 8 * 86_400_000;

export interface KnowledgeOptions extends HistoryIndexOptions {
  store: Store;
  now: () => Date;
  /** The sync's source states (which orgs are stale, and since when). */
  sources: () => readonly SourceState[];
  /** No sync runs beside this store (the CLI on a data directory): whether data is stale is not known. */
  offline?: boolean;
}

export class OnCallKnowledge {
  readonly history: HistoryIndex;
  readonly clock = new DeadlineClock();
  readonly statsCache: StatsCache;

  constructor(private readonly options: KnowledgeOptions) {
    this.history = new HistoryIndex(options.store, options);
    // The statistics' slices give the event loop the same turns as the history's.
    this.statsCache = new StatsCache(options);
  }

  /** The org's history as of now (re-read where the store changed). */
  orgHistory(orgId: string): Promise<OrgHistory> {
    return this.history.current(orgId);
  }

  /**
   * A schedule's next deadline after now, RFC 3339, as the deadline clock has it (the window's "Next
   * expected": one source of truth with Upcoming and overdue); null when the schedule cannot be read.
   */
  nextDeadlineOf(config: DeadlineConfig): string | null {
    const schedule = this.clock.at(config, this.options.now().getTime());
    return schedule.problem !== null || schedule.next === null ? null : new Date(schedule.next).toISOString();
  }

  /** The org's deadlines of the next `hours` (1–168), soonest first. */
  async upcoming(orgId: string, hours: number): Promise<UpcomingDeadlines> {
    const history = await this.history.current(orgId);
    return upcomingDeadlines(history, this.clock, this.options.now().getTime(), hours);
  }

  /** The org's overdue (unverified) datasets: none unless its data is stale. */
  async overdue(orgId: string): Promise<OverdueSummary> {
    const now = this.options.now();
    const contact = orgFreshness(orgId, this.options.sources(), now);
    // Fresh (the usual case): no history is read, so the datasets list and the tray's tick stay cheap.
    if (!contact.stale || contact.lastSuccessAt === null)
      return {
        orgId,
        stale: contact.stale,
        lastSuccessAt: contact.lastSuccessAt,
        datasets: [],
        deadlines: 0,
      };
    const history = await this.history.current(orgId);
    return overdueDatasets(history, this.clock, now.getTime(), contact);
  }

  /** One dataset's deadlines, habits and overdue count; null when the org has no such dataset. */
  async datasetDeadlines(orgId: string, datasetId: string): Promise<DatasetDeadlines | null> {
    const now = this.options.now();
    const history = await this.history.current(orgId);
    const dataset = history.dataset(datasetId);
    if (dataset === undefined) return null;
    const at = now.getTime();
    const schedule = this.clock.at(dataset.config, at);
    const next = schedule.problem === null ? this.clock.ahead(dataset.config, at, NEXT_SPAN_MS, 5) : [];
    // Fewer than five within a year (a yearly schedule): the ones beyond are asked of croner directly.
    while (schedule.problem === null && next.length < 5) {
      const after = nextOccurrenceAfter(dataset.config, next[next.length - 1] ?? at);
      if (after === null) break;
      next.push(after);
    }
    const overdue = overdueDatasets(
      OrgHistory.of(orgId, history.revision, [dataset]),
      this.clock,
      at,
      orgFreshness(orgId, this.options.sources(), now),
    );
    return {
      problem: schedule.problem,
      timeZone: schedule.timeZone,
      previous: schedule.previous === null ? null : new Date(schedule.previous).toISOString(),
      next: next.map((ms) => new Date(ms).toISOString()),
      habits: habitsOf(dataset),
      overdue: overdue.deadlines,
    };
  }

  /**
   * The org's reliability statistics over the `days` before the current hour, grouped (only `key`'s
   * group when given); held until the history or the hour changes.
   */
  async stats(
    orgId: string,
    groupBy: StatsGroupBy,
    days: StatsDays,
    key: string | null = null,
    options: { weeks: boolean } = { weeks: true },
  ): Promise<ReliabilityStats> {
    const history = await this.history.current(orgId);
    const to = statsWindowEnd(this.options.now().getTime());
    return this.statsCache.get(history, groupBy, days, to, key, options.weeks);
  }

  /** After a sync cycle: reads what changed and precomputes the Reliability view's default statistics. */
  async warm(orgId: string): Promise<void> {
    await this.stats(orgId, DEFAULT_STATS_GROUP_BY, DEFAULT_STATS_DAYS);
  }

  /** The time the answers are given at (the API reads a `since` like 8h against it). */
  now(): Date {
    return this.options.now();
  }

  /**
   * The org's shift handoff for the window [since, now] (docs/architecture.md#handoff); `rows`: only the
   * first rows of each section (shared/handoff.ts handoffFirstRows), the details read for those alone.
   */
  async handoff(orgId: string, since: Date, rows?: number): Promise<HandoffReport> {
    const now = this.options.now();
    const history = await this.history.current(orgId);
    // At-risk datasets only, before the cap: a busy org's 8 hours may hold more than the cap's deadlines.
    const upcoming = upcomingDeadlines(history, this.clock, now.getTime(), HANDOFF_AT_RISK_HOURS, {
      onlyAtRisk: true,
    });
    // Overdue is known only where a source of the org runs (its states say whether the data is stale).
    const syncing = !this.options.offline && this.options.sources().some((state) => state.orgId === orgId);
    const overdue = syncing ? await this.overdue(orgId) : null;
    const { store } = this.options;
    return store.whenReadable(() => {
      const details = rows === undefined;
      const stored = readStoredFacts(store, orgId, since.getTime(), now.getTime(), history, details);
      const report = assembleHandoff({
        ...stored,
        orgId,
        since: since.getTime(),
        now: now.getTime(),
        datasets: { get: (datasetId) => history.facts(datasetId) },
        overdue,
        upcoming: upcoming.deadlines,
      });
      if (details) return report;
      const cut = handoffFirstRows(report, rows);
      const troubles = [...cut.newlyFailed, ...cut.stillFailing, ...cut.missing];
      const deliveries = troubles.flatMap(({ deliveryId }) => (deliveryId === null ? [] : [deliveryId]));
      return withTroubleDetails(
        cut,
        datasetNames(
          store,
          orgId,
          troubles.map(({ datasetId }) => datasetId),
        ),
        failMessages(store, orgId, deliveries),
      );
    });
  }

  /** When a deadline of any schedule seen next passes (overdue counts may grow then); null: none. */
  nextDeadline(): number | null {
    return this.clock.soonest();
  }
}
