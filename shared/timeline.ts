/** A dataset's timeline (docs/architecture.md#timeline): what the mirror saw and did, as the window and the local API show it. */
export const TIMELINE_KINDS = [
  'status',
  'notified',
  'reminded',
  /** A failure a notification rule kept silent (timeline only), or that no rule tells of. */
  'ruled',
  'acknowledged',
  'unacknowledged',
  'acknowledgement-ended',
  'outage',
] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

export interface TimelineEntry {
  /** RFC 3339. */
  at: string;
  kind: TimelineKind;
  /** For `status`: the status before (null: first seen) and after (null: removed by the remote). */
  from: string | null;
  to: string | null;
  deliveryId: string | null;
  /** The notification's title, the note, why an acknowledgement ended, the outage. */
  text: string | null;
  /** Who acknowledged. */
  by: string | null;
}

/** Entries a dataset's timeline shows at most (newest first). */
export const TIMELINE_LIMIT = 500;
