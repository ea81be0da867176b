/**
 * Precomputed reliability statistics (docs/architecture.md#performance-budgets, docs/architecture.md#reliability): one answer per (org, groupBy, days), kept
 * while the org's history revision and the window's end (the current hour, UTC) stay the same. The
 * engine warms the Reliability view's default (supplier, 30 days) after every sync cycle, so its first
 * look is a map read. Answers are computed a slice at a time (no long event-loop stall at 10k), one
 * computation per answer however many ask at once; a request for one group filters a held answer, or
 * reads that group's datasets alone. An answer is held in columns (knowledge/statsTable.ts) and made
 * into objects on each look; what is held is bounded by its bytes (MAX_HELD_BYTES), least recently used
 * going first.
 */
import type { ReliabilityStats, StatsDays, StatsGroupBy } from '../../shared/reliability';
import type { OrgHistory } from './history';
import { reliabilityTableInSlices, statsOf, statsWindow, type StatsTable } from './reliability';

const HOUR_MS = 3_600_000;

/**
 * At most this many bytes of answers held (their columns, counted by tableBytes). A 100k org's answer
 * per dataset over 90 days is about 27 MiB, over 30 days 17; per supplier or product, a few KiB. Beyond it,
 * the least recently used answers go (the newest always stays: it was just asked for).
 */
export const MAX_HELD_BYTES = 48 * 1024 * 1024;

/** Where a window ends for `now`: the start of its hour (UTC), so answers hold for an hour at most. */
export const statsWindowEnd = (now: number): number => Math.floor(now / HOUR_MS) * HOUR_MS;

interface Held {
  revision: string;
  to: number;
  table: StatsTable;
  /** Which computation made it (a slower, older one never replaces a newer one). */
  sequence: number;
}

export interface StatsCacheOptions {
  /** Between two slices of a computation (default: the next turn of the event loop). */
  between?: () => Promise<void>;
  maxHeldBytes?: number;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class StatsCache {
  /** In use order: the least recently used first. */
  private readonly held = new Map<string, Held>();
  private readonly pending = new Map<string, Promise<StatsTable>>();
  private readonly between: () => Promise<void>;
  private readonly maxHeld: number;
  private sequence = 0;
  /** How many answers were computed (not found held or pending): tests and measurements read it. */
  computed = 0;

  constructor(options: StatsCacheOptions = {}) {
    this.between = options.between ?? nextTurn;
    this.maxHeld = options.maxHeldBytes ?? MAX_HELD_BYTES;
  }

  /**
   * The org's statistics with the window ending at `to` (an hour's start); only `key`'s group when
   * given; each group's weeks unless `weeks` is false.
   */
  async get(
    history: OrgHistory,
    groupBy: StatsGroupBy,
    days: StatsDays,
    to: number,
    key: string | null = null,
    weeks = true,
  ): Promise<ReliabilityStats> {
    const answer = (table: StatsTable) => statsOf(table, { weeks, key });
    const slot = `${history.orgId}\u0000${groupBy}\u0000${days}`;
    const held = this.held.get(slot);
    if (held !== undefined && held.revision === history.revision && held.to === to) {
      this.held.delete(slot);
      this.held.set(slot, held);
      return answer(held.table);
    }
    const ticket = `${slot}\u0000${history.revision}\u0000${to}`;
    const running = this.pending.get(ticket);
    if (running !== undefined) return answer(await running);
    this.computed += 1;
    if (key !== null)
      return answer(
        await reliabilityTableInSlices(
          history,
          { groupBy, window: statsWindow(to, days), key },
          this.between,
        ),
      );
    const sequence = ++this.sequence;
    const computing = reliabilityTableInSlices(
      history,
      { groupBy, window: statsWindow(to, days) },
      this.between,
    )
      .then((table) => {
        this.hold(slot, { revision: history.revision, to, table, sequence });
        return table;
      })
      .finally(() => this.pending.delete(ticket));
    this.pending.set(ticket, computing);
    return answer(await computing);
  }

  /** Drops an org's answers (it was removed). */
  forget(orgId: string): void {
    for (const slot of this.held.keys()) if (slot.startsWith(`${orgId}\u0000`)) this.held.delete(slot);
  }

  /** What is held, in use order (least recently used first): tests read it. */
  heldSlots(): string[] {
    return [...this.held.keys()];
  }

  /** The bytes held (tests and measurements read it). */
  heldBytes(): number {
    let total = 0;
    for (const each of this.held.values()) total += each.table.bytes;
    return total;
  }

  private hold(slot: string, answer: Held): void {
    const before = this.held.get(slot);
    if (before !== undefined && before.sequence > answer.sequence) return;
    this.held.delete(slot);
    this.held.set(slot, answer);
    let total = this.heldBytes();
    for (const [other, each] of this.held) {
      if (total <= this.maxHeld || other === slot) break;
      this.held.delete(other);
      total -= each.table.bytes;
    }
  }
}
