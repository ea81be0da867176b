/**
 * The datasets table's rows as the engine answers `datasets.rows` and `datasets.counts`: what the
 * table shows of each dataset, not the whole record. The calls themselves are in shared/rpc.ts.
 */
import type { AcknowledgementView } from './causes';
import type { DeliveryStatus } from './status';

/** How many delivery statuses each table row carries for its strip, newest first. */
export const ROW_STRIP_LENGTH = 14;

/** One row of the datasets table as the store has it (electron/query/rows.ts). */
export interface MirroredRow {
  datasetId: string;
  datasetName: string | null;
  dataProductName: string | null;
  supplierId: string | null;
  supplierName: string | null;
  status: string | null;
  deliveryId: string | null;
  latestDeliveryTimestamp: string | null;
  nextExpectedDeliveryTimestamp: string | null;
  /** Statuses of the newest deliveries, newest first (null: unknown), at most ROW_STRIP_LENGTH. */
  strip: (string | null)[];
  /** A FAILED or MISSING dataset's cause id and title (shared/causes.ts); null otherwise. */
  causeId: string | null;
  causeTitle: string | null;
  /** The acknowledgement that holds for its failure now, if any. */
  acknowledgement: AcknowledgementView | null;
}

/**
 * One row of the datasets table: what the table shows, not the whole record — the store's row and the
 * deadline clock's mark (docs/architecture.md#deadlines), which is never a remote status.
 */
export interface DatasetRow extends MirroredRow {
  /** Its deadlines passed since the last successful sync while the org's data is stale (overdue, unverified); 0: none. */
  overdueDeadlines: number;
  /** The oldest of them, RFC 3339 UTC; null when none. */
  overdueSince: string | null;
}

export interface RowsPage {
  rows: DatasetRow[];
  /** "" on the last page. */
  nextPageToken: string;
}

/** Datasets per latest status under the query without its status filters (chips), and the query's total. */
export interface StatusCounts {
  byStatus: Record<DeliveryStatus | 'NONE', number>;
  total: number;
}
