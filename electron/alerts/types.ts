/**
 * What the alerts engine announces (DESIGN.md §5). Each announcement carries its words and where it
 * leads, so the tray's notifications, the `serve` log and an `--on-failed` hook say the same thing.
 */
import type { Stage } from '../../shared/status';
import type { WindowTarget } from '../../shared/routes';
import type { FailedDataset } from '../store/announcements';

/** Kept by the alerts' memory (store/announcements.ts), named in every failure announcement. */
export type { FailedDataset };

/** The first failed task of the delivery (null when its tasks are not synced yet). */
export interface FailureReason {
  stage: Stage;
  shortCode: string | null;
  message: string | null;
}

/** Why several failures were announced as one. */
export type SummaryCause = 'first-sync' | 'many' | 'quiet-hours';

interface Common {
  title: string;
  body: string;
  /** Where clicking it leads. */
  target: WindowTarget;
  /** RFC 3339. */
  at: string;
}

export type Announcement =
  | (Common & { kind: 'failed'; dataset: FailedDataset; reason: FailureReason | null })
  | (Common & { kind: 'summary'; cause: SummaryCause; orgId: string; datasets: FailedDataset[] })
  | (Common & {
      kind: 'recovered';
      orgId: string;
      datasets: { datasetId: string; datasetName: string | null; from: string; to: string }[];
    });
