/**
 * The handoff's recoveries from the stored history (docs/architecture.md#handoff), so they are true on
 * a first sync, after an import and after a week offline: for each dataset that is not FAILED or
 * MISSING now, its newest troubled delivery and the first settled delivery after it, whose time
 * (delivered, else deadline) is capped by when the mirror learned of the recovery.
 *
 * Walked over the on-call layer's history (its columns hold every stored delivery in the events' own
 * order, newest first), not in SQL: one statement over a 100k org's datasets was a seek into the events
 * per dataset, 2–3 s before the handoff could show anything. Only the datasets whose recovery may fall
 * in the window then ask the timeline when the mirror learned of it (query/handoff.ts).
 */
import type { HistoryRecovery } from '../query/handoff';
import { STATUS_CODE, STATUS_NAME, isSettled } from './historyColumns';
import type { OrgHistory } from './orgHistory';

/** A recovery the history shows: when its delivery says it happened (NaN: it does not say). */
export interface ReportedRecovery {
  datasetId: string;
  was: string;
  reportedAt: number;
}

const troubled = (code: number): boolean => code === STATUS_CODE.FAILED || code === STATUS_CODE.MISSING;

/**
 * The history's recoveries that may lie at or after `since` (their delivery's time is, or is unknown),
 * and those of the datasets in `also` wherever they lie (the timeline's recoveries they overrule).
 */
export function reportedRecoveries(
  history: OrgHistory,
  since: number,
  also: ReadonlySet<string>,
): ReportedRecovery[] {
  const found: ReportedRecovery[] = [];
  for (const block of history.blocks) {
    const { deliveries } = block;
    const { statuses, starts } = deliveries;
    for (let k = 0; k < block.size; k += 1) {
      const status = block.datasetStatuses[k];
      if (status === 'FAILED' || status === 'MISSING') continue;
      // Newest first: the first troubled delivery met is the newest; the settled one just before it in
      // this order (the nearest newer) is the first settled after it.
      let recovery = -1;
      let trouble = -1;
      for (let i = starts[k]!; i < starts[k + 1]!; i += 1) {
        const code = statuses[i]!;
        if (troubled(code)) {
          trouble = i;
          break;
        }
        // An unknown status waits as one in progress does (isSettled).
        if (isSettled(code)) recovery = i;
      }
      if (trouble < 0 || recovery < 0) continue;
      const delivered = deliveries.delivered(recovery);
      const reportedAt = Number.isNaN(delivered) ? deliveries.deadline(recovery) : delivered;
      const datasetId = block.ids[k]!;
      if (reportedAt >= since || Number.isNaN(reportedAt) || also.has(datasetId))
        found.push({ datasetId, was: STATUS_NAME[statuses[trouble]!]!, reportedAt });
    }
  }
  return found;
}

/**
 * The recoveries with their times: the delivery's time, never after the mirror learned of it (`learned`,
 * epoch ms by dataset; absent: it has not, so now). One the delivery dates before `since` keeps that
 * date: it is not one of the window's, whenever the mirror learned of it.
 */
export function datedRecoveries(
  reported: readonly ReportedRecovery[],
  learned: ReadonlyMap<string, number>,
  now: number,
): HistoryRecovery[] {
  return reported.map(({ datasetId, was, reportedAt }) => {
    const heard = Math.min(learned.get(datasetId) ?? now, now);
    const at = Number.isNaN(reportedAt) ? heard : Math.min(reportedAt, heard);
    return { datasetId, was, recoveredAt: new Date(at).toISOString() };
  });
}
