/**
 * Indexes that keep lookups asked after every commit small at 100k datasets (issue 25), one migration.
 *
 * The handoff's window by time (docs/decisions.md "The handoff's window, at 100k"): without them, its
 * entries and notes were found by reading the org's whole timeline and sorting it (0.55 s at 100k
 * datasets). Partial: the status entries that can matter to a handoff, those that leave a known status
 * or enter trouble. A first sync's "first seen" entry of each dataset not in trouble (100k of them)
 * leaves them small.
 *
 * A FAILED dataset's failed delivery (failedDelivery.ts), read for every FAILED dataset by the alerts
 * after each poll: through the events' primary key, one page of a 3M-row table each (6k pages, 60 ms
 * at 100k); through the FAILED events alone, with their delivery, an index a fiftieth of the table's
 * size (docs/decisions.md "The failed delivery, at 100k").
 */
export const LOOKUP_INDEXES = `
CREATE INDEX events_failed ON events (dataset_pk, deadline_key DESC, delivered_key DESC, seq DESC, delivery_id)
  WHERE status = 'FAILED';
CREATE INDEX timeline_handoff_changes ON timeline (org_id, at_key)
  WHERE kind = 'status' AND (from_status IS NOT NULL OR to_status IN ('FAILED', 'MISSING'));
CREATE INDEX timeline_handoff_notes ON timeline (org_id, at_key)
  WHERE kind = 'acknowledged' AND text IS NOT NULL AND text <> '';
`;

/** The status entries of `timeline_handoff_changes`, as a query must say it to be served by it. */
export const HANDOFF_CHANGE = `kind = 'status' AND (from_status IS NOT NULL OR to_status IN ('FAILED', 'MISSING'))`;
/** The acknowledgement notes of `timeline_handoff_notes`, likewise. */
export const HANDOFF_NOTE = `kind = 'acknowledged' AND text IS NOT NULL AND text <> ''`;
