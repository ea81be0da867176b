/**
 * What the alerter announces (docs/architecture.md#notifications, docs/architecture.md#the-on-call-layer). Each announcement carries its words and where it
 * leads, so the tray's notifications, the `serve` log and an `--on-failed` hook say the same thing.
 */
import type { RuleEvent } from '../../shared/rules';
import type { Stage } from '../../shared/status';
import type { WindowTarget } from '../../shared/routes';
import type { FailedDataset } from '../store/tables/announcements';

/** Kept by the alerts' memory (store/tables/announcements.ts), named in every failure announcement. */
export type { FailedDataset };

/** The first failed task of the delivery (null when its tasks are not synced yet). */
export interface FailureReason {
  stage: Stage;
  shortCode: string | null;
  message: string | null;
}

/** A new failure with what it is grouped by: its incident (docs/decisions.md "Incidents") and its cause. */
export interface CausedFailure extends FailedDataset {
  /** The incident it belongs to (`inc-…`); its cause key when no incident holds it. */
  incidentId: string;
  /** Its cause key (`normalize:E_X`, `missing:SUP`, `unknown`). */
  causeId: string;
  /** "Ingest failed: E_AUTH_FAILED", "Failed, cause not known yet". */
  causeTitle: string;
  reason: FailureReason | null;
  supplierId: string | null;
  supplierName: string | null;
}

/** An incident as a summary or reminder names it. */
export interface CauseCount {
  incidentId: string;
  causeId: string;
  title: string;
  count: number;
}

/** Why several failures were announced as one. */
export type SummaryCause = 'first-sync' | 'many' | 'quiet-hours';

interface Common {
  /** A notification rule made it urgent: it stays on screen until dismissed, with its own sound. */
  urgent?: true;
  title: string;
  body: string;
  /** Where clicking it leads. */
  target: WindowTarget;
  /** RFC 3339. */
  at: string;
}

interface Contact {
  orgId: string;
  sourceId: string;
  sourceName: string;
  /** The source's last successful sync before contact was lost (null: never). */
  lastSuccessAt: string | null;
  lostAt: string;
}

export type Announcement =
  /** One new failure: the dataset and its failed stage. */
  | (Common & {
      kind: 'failed';
      dataset: FailedDataset;
      reason: FailureReason | null;
      incidentId: string;
      causeId: string;
    })
  /**
   * Two or more new failures of one cycle with the same cause; or (`more`) those of a cause notified
   * before, batched during its cool-down and released together.
   */
  | (Common & {
      kind: 'cause';
      orgId: string;
      incidentId: string;
      causeId: string;
      causeTitle: string;
      suppliers: { id: string | null; name: string | null; count: number }[];
      datasets: FailedDataset[];
      /** The cause was notified before: these are more of it, released after its cool-down. */
      more: boolean;
      /** The cause's datasets FAILED now (those acknowledged included). */
      failingNow: number;
    })
  /** Many failures at once (first sync, a burst, the end of quiet hours), with their causes by count. */
  | (Common & {
      kind: 'summary';
      cause: SummaryCause;
      orgId: string;
      datasets: FailedDataset[];
      causes: CauseCount[];
    })
  /** What a digest rule gathered since its last digest (docs/decisions.md "Rule notifications: one evaluator"). */
  | (Common & { kind: 'digest'; orgId: string; ruleId: string; ruleName: string; datasetIds: string[] })
  /** MISSING or late datasets a rule tells of (docs/decisions.md "Rule notifications: one evaluator"). */
  | (Common & {
      kind: 'event';
      orgId: string;
      ruleId: string;
      ruleName: string;
      event: RuleEvent | 'digest';
      datasetIds: string[];
    })
  /** Failures still FAILED and not acknowledged, by cause (`causes`: one, or the top ones when many). */
  | (Common & { kind: 'reminder'; orgId: string; causes: CauseCount[]; datasets: FailedDataset[] })
  | (Common & {
      kind: 'recovered';
      orgId: string;
      datasets: { datasetId: string; datasetName: string | null; from: string; to: string }[];
    })
  | (Common & Contact & { kind: 'contact-lost' })
  | (Common & Contact & { kind: 'contact-regained'; regainedAt: string });

export type AnnouncementKind = Announcement['kind'];
