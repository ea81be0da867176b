/**
 * Precomputed reliability statistics (docs/architecture.md#performance-budgets, docs/architecture.md#reliability): one answer per (org, groupBy, days), kept
 * while the org's history revision and the window's end (the current hour, UTC) stay the same. The
 * engine warms the Reliability view's default (supplier, 30 days) after every sync cycle, so its first
 * look is a map read. Answers are computed a slice at a time (no long event-loop stall at 10k), one
 * computation per answer however many ask at once; a request for one group filters a held answer, or
 * reads that group's datasets alone. What is held is bounded (MAX_HELD_GROUP_WEEKS), least recently used
 * going first.
 */
import type { ReliabilityStats, StatsDays, StatsGroupBy } from '../../shared/reliability';
import type { OrgHistory } from './history';
import { reliabilityStatsInSlices, statsWindow, weekCount } from './reliability';

const HOUR_MS = 3_600_000;

/**
 * At most this many group-weeks held (a group's figures and its weeks): per dataset over 90 days at 10k
 * datasets is 130,000 (~45 MB). Beyond it, the least recently used answers go (the newest always stays).
 */
export const MAX_HELD_GROUP_WEEKS = 200_000;

/** Where a window ends for `now`: the start of its hour (UTC), so answers hold for an hour at most. */
export const statsWindowEnd = (now: number): number => Math.floor(now / HOUR_MS) * HOUR_MS;

interface Held {
  revision: string;
  to: number;
  stats: ReliabilityStats;
  /** Which computation made it (a slower, older one never replaces a newer one). */
  sequence: number;
  size: number;
}

export interface StatsCacheOptions {
  /** Between two slices of a computation (default: the next turn of the event loop). */
  between?: () => Promise<void>;
  maxHeldGroupWeeks?: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

const onlyGroup = (stats: ReliabilityStats, key: string): ReliabilityStats => ({
  ...stats,
  groups: stats.groups.filter((group) => group.key === key),
});

export class StatsCache {
  /** In use order: the least recently used first. */
  private readonly held = new Map<string, Held>();
  private readonly pending = new Map<string, Promise<ReliabilityStats>>();
  private readonly between: () => Promise<void>;
  private readonly maxHeld: number;
  private sequence = 0;
  /** How many answers were computed (not found held or pending): tests and measurements read it. */
  computed = 0;

  constructor(options: StatsCacheOptions = {}) {
    this.between = options.between ?? nextTurn;
    this.maxHeld = options.maxHeldGroupWeeks ?? MAX_HELD_GROUP_WEEKS;
  }

  /** The org's statistics with the window ending at `to` (an hour's start); only `key`'s group when given. */
  async get(
    history: OrgHistory,
    groupBy: StatsGroupBy,
    days: StatsDays,
    to: number,
    key: string | null = null,
  ): Promise<ReliabilityStats> {
    const slot = `${history.orgId}\u0000${groupBy}\u0000${days}`;
    const held = this.held.get(slot);
    if (held !== undefined && held.revision === history.revision && held.to === to) {
      this.held.delete(slot);
      this.held.set(slot, held);
      return key === null ? held.stats : onlyGroup(held.stats, key);
    }
    const ticket = `${slot}\u0000${history.revision}\u0000${to}`;
    const running = this.pending.get(ticket);
    if (running !== undefined) return key === null ? running : onlyGroup(await running, key);
    this.computed += 1;
    if (key !== null)
      return reliabilityStatsInSlices(history, { groupBy, window: statsWindow(to, days), key }, this.between);
    const sequence = ++this.sequence;
    const computing = reliabilityStatsInSlices(
      history,
      { groupBy, window: statsWindow(to, days) },
      this.between,
    )
      .then((stats) => {
        this.hold(slot, {
          revision: history.revision,
          to,
          stats,
          sequence,
          size: stats.groups.length * (1 + weekCount(days)),
        });
        return stats;
      })
      .finally(() => this.pending.delete(ticket));
    this.pending.set(ticket, computing);
    return computing;
  }

  /** Drops an org's answers (it was removed). */
  forget(orgId: string): void {
    for (const slot of this.held.keys()) if (slot.startsWith(`${orgId}\u0000`)) this.held.delete(slot);
  }

  /** What is held, in use order (least recently used first): tests read it. */
  heldSlots(): string[] {
    return [...this.held.keys()];
  }

  private hold(slot: string, answer: Held): void {
    const before = this.held.get(slot);
    if (before !== undefined && before.sequence > answer.sequence) return;
    this.held.delete(slot);
    this.held.set(slot, answer);
    let total = 0;
    for (const each of this.held.values()) total += each.size;
    for (const [other, each] of this.held) {
      if (total <= this.maxHeld || other === slot) break;
      this.held.delete(other);
      total -= each.size;
    }
  }
}
