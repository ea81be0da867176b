/**
 * Source contact (docs/architecture.md#notifications): when a source's data turns stale — no successful sync for
 * STALE_AFTER_POLLS poll intervals, whether its last cycle failed or not, and a stopped source (its key
 * rejected) too once that time has passed — one "Lost contact" notice (saying the last error, if any);
 * when it syncs successfully again, one "Contact regained" notice saying how long it was out. A single
 * failed cycle is no loss: the next may well succeed (docs/decisions.md). A source that never synced is
 * out of contact once that time has passed since its first cycle the engine saw. Each outage is a row of
 * sync_outages, written before its notice is emitted: never announced twice, also across restarts
 * (an outage still open at start is not announced again).
 *
 * A source is judged only once one of its cycles finished since the engine started: at start its data
 * is as old as the time the app was closed, and the first sync, seconds away, says whether contact holds.
 * Paused: outages are recorded (the timeline shows them), never announced. Quiet hours: a loss is held
 * and announced when they end if the source is still out of contact (dropped if it came back
 * meanwhile); a regain during quiet hours is not announced.
 */
import { type SourceState, pastStaleAge } from '../../shared/sync';
import {
  type Outage,
  clearHeldOutages,
  heldOutages,
  openOutage,
  recordLoss,
  recordRegain,
} from '../store/tables/outages';
import { type AlertsContext, paused, quiet } from './context';
import { contactLostText, contactRegainedText } from './text';
import type { Announcement } from './types';

/**
 * Whether the source's data is stale at `now`: no successful sync for STALE_AFTER_POLLS poll intervals
 * (never synced: counted from `since`, its first cycle the engine saw).
 */
export function outOfContact(state: SourceState, now: Date, since: number): boolean {
  return pastStaleAge(state, now, since);
}

export class ContactWatch {
  /** The sources judged, with when the first of their cycles the engine saw finished. */
  private readonly judged = new Map<string, number>();

  /** A cycle of the source finished (at `now`): from now on its contact is judged. */
  sawCycle(sourceId: string, now: Date): void {
    if (!this.judged.has(sourceId)) this.judged.set(sourceId, now.getTime());
  }

  /**
   * Records losses and regains of contact and decides their notices. `justSynced`: the source whose
   * cycle just succeeded is in contact, however long that cycle took. Runs inside `store.whenIdle`.
   */
  decide(
    ctx: AlertsContext,
    states: readonly SourceState[],
    justSynced: string | null = null,
  ): { notices: Announcement[]; lost: Outage[] } {
    const { store, now } = ctx;
    const silent = paused(ctx);
    const hold = quiet(ctx);
    const made: Announcement[] = [];
    const losses: Outage[] = [];
    if (!hold) {
      const held = heldOutages(store);
      if (held.length > 0) {
        clearHeldOutages(store);
        if (!silent)
          for (const outage of held)
            if (outage.regainedAt === null) {
              const state = states.find((candidate) => candidate.sourceId === outage.sourceId);
              made.push(lost(outage, state?.lastError ?? null, now));
            }
      }
    }
    for (const state of states) {
      const since = this.judged.get(state.sourceId);
      if (since === undefined) continue;
      const fresh = state.sourceId === justSynced || !outOfContact(state, now, since);
      const open = openOutage(store, state.orgId, state.sourceId);
      if (!fresh && open === null) {
        const outage = recordLoss(
          store,
          {
            orgId: state.orgId,
            sourceId: state.sourceId,
            sourceName: state.name,
            lastSuccessAt: state.lastSuccessAt,
            lostAt: now.toISOString(),
          },
          hold && !silent,
        );
        losses.push(outage);
        if (!hold && !silent) made.push(lost(outage, state.lastError, now));
      } else if (fresh && open !== null) {
        const regainedAt = now.toISOString();
        recordRegain(store, open.id, regainedAt);
        if (!hold && !silent) made.push(regained({ ...open, sourceName: state.name }, regainedAt));
      }
    }
    return { notices: made, lost: losses };
  }
}

function lost(outage: Outage, lastError: string | null, now: Date): Announcement {
  return {
    kind: 'contact-lost',
    orgId: outage.orgId,
    sourceId: outage.sourceId,
    sourceName: outage.sourceName,
    lastSuccessAt: outage.lastSuccessAt,
    lostAt: outage.lostAt,
    ...contactLostText(outage.sourceName, outage.lastSuccessAt, lastError, now),
    target: { view: 'datasets', orgId: outage.orgId },
    at: now.toISOString(),
  };
}

function regained(outage: Outage, regainedAt: string): Announcement {
  return {
    kind: 'contact-regained',
    orgId: outage.orgId,
    sourceId: outage.sourceId,
    sourceName: outage.sourceName,
    lastSuccessAt: outage.lastSuccessAt,
    lostAt: outage.lostAt,
    regainedAt,
    // Out since the last sync that worked (the loss is noticed three poll intervals later).
    ...contactRegainedText(outage.sourceName, outage.lastSuccessAt ?? outage.lostAt, regainedAt),
    target: { view: 'datasets', orgId: outage.orgId },
    at: regainedAt,
  };
}
