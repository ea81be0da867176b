/**
 * A cause's cool-down (docs/architecture.md#grouping-by-incident, docs/decisions.md): once a cause was notified (a failure's own
 * notification, the cause's, or a summary naming it — a burst's or a night's; a first sync's tells what
 * was failing already and starts none), its next new failures do not notify again until
 * COOL_DOWN_MS have passed. They are remembered as 'batched' (store/tables/announcements.ts, so a restart or a
 * crash keeps them) and released as one notification of the cause when the cool-down is over. The
 * clock is read from the alerts' memory, not kept in the process: what was told, and when, per cause.
 */
import { toldSince } from '../store/tables/announcements';
import type { Store } from '../store/database';
import { withCauses } from './causes';

/**
 * Ten minutes: a supplier-wide outage fails its datasets one after another as each deadline comes, one
 * or two a poll (60 s). Ten polls' worth of them then make one notification, so an hour of outage is at
 * most seven notifications of that cause instead of sixty, while a failure still reaches the person on
 * call within ten minutes of the last word on its cause — well inside the half hour the first reminder
 * waits (Settings → Triage), and short enough that "N more" still reads as the same incident.
 */
export const COOL_DOWN_MS = 10 * 60_000;

/** When each of an org's causes was last notified, within the cool-down. */
export class CauseClock {
  private constructor(
    private readonly last: ReadonlyMap<string, number>,
    private readonly now: number,
  ) {}

  /** The org's notifications of the last COOL_DOWN_MS, by the cause their failures have now. */
  static read(store: Store, orgId: string, now: Date): CauseClock {
    const told = toldSince(store, orgId, new Date(now.getTime() - COOL_DOWN_MS));
    const last = new Map<string, number>();
    const at = new Map(told.map((failure) => [failure.deliveryId, Date.parse(failure.announcedAt)]));
    for (const failure of withCauses(store, orgId, told)) {
      const time = at.get(failure.deliveryId) ?? 0;
      last.set(failure.incidentId, Math.max(last.get(failure.incidentId) ?? 0, time));
    }
    return new CauseClock(last, now.getTime());
  }

  /** Whether the cause was notified less than COOL_DOWN_MS ago (its new failures wait). */
  cooling(incidentId: string): boolean {
    const last = this.last.get(incidentId);
    return last !== undefined && this.now - last < COOL_DOWN_MS;
  }
}
