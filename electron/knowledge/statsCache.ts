/**
 * Precomputed reliability statistics (DESIGN.md §10–§11): one answer per (org, groupBy, days), kept
 * while the org's history revision and the window's end (the current hour, UTC) stay the same. The
 * engine warms the Reliability view's default (supplier, 30 days) after every sync cycle, so its first
 * look is a map read; a request for one group filters a held answer, or reads that group's datasets alone.
 */
import type { ReliabilityStats, StatsDays, StatsGroupBy } from '../../shared/reliability';
import type { OrgHistory } from './history';
import { reliabilityStats, statsWindow } from './reliability';

const HOUR_MS = 3_600_000;

/** Where a window ends for `now`: the start of its hour (UTC), so answers hold for an hour at most. */
export const statsWindowEnd = (now: number): number => Math.floor(now / HOUR_MS) * HOUR_MS;

interface Held {
  revision: string;
  to: number;
  stats: ReliabilityStats;
}

export class StatsCache {
  private readonly held = new Map<string, Held>();
  /** How many answers were computed (not found held): tests and measurements read it. */
  computed = 0;

  /** The org's statistics with the window ending at `to` (an hour's start); only `key`'s group when given. */
  get(
    history: OrgHistory,
    groupBy: StatsGroupBy,
    days: StatsDays,
    to: number,
    key: string | null = null,
  ): ReliabilityStats {
    const slot = `${history.orgId}\u0000${groupBy}\u0000${days}`;
    const held = this.held.get(slot);
    const fresh = held !== undefined && held.revision === history.revision && held.to === to;
    if (key !== null) {
      if (fresh) return { ...held.stats, groups: held.stats.groups.filter((group) => group.key === key) };
      this.computed += 1;
      return reliabilityStats(history, { groupBy, window: statsWindow(to, days), key });
    }
    if (fresh) return held.stats;
    this.computed += 1;
    const stats = reliabilityStats(history, { groupBy, window: statsWindow(to, days) });
    this.held.set(slot, { revision: history.revision, to, stats });
    return stats;
  }

  /** Drops an org's answers (it was removed). */
  forget(orgId: string): void {
    for (const slot of this.held.keys()) if (slot.startsWith(`${orgId}\u0000`)) this.held.delete(slot);
  }
}
