/**
 * The handoff's window by time (docs/decisions.md "The handoff's window, at 100k"): without these, its
 * entries and notes were found by reading the org's whole timeline and sorting it (0.55 s at 100k
 * datasets). Partial: the status entries that can matter to a handoff, those that leave a known status
 * or enter trouble. A first sync's "first seen" entry of each dataset not in trouble (100k of them)
 * leaves them small.
 */
export const HANDOFF_INDEXES = `
CREATE INDEX timeline_handoff_changes ON timeline (org_id, at_key)
  WHERE kind = 'status' AND (from_status IS NOT NULL OR to_status IN ('FAILED', 'MISSING'));
CREATE INDEX timeline_handoff_notes ON timeline (org_id, at_key)
  WHERE kind = 'acknowledged' AND text IS NOT NULL AND text <> '';
`;

/** The status entries of `timeline_handoff_changes`, as a query must say it to be served by it. */
export const HANDOFF_CHANGE = `kind = 'status' AND (from_status IS NOT NULL OR to_status IN ('FAILED', 'MISSING'))`;
/** The acknowledgement notes of `timeline_handoff_notes`, likewise. */
export const HANDOFF_NOTE = `kind = 'acknowledged' AND text IS NOT NULL AND text <> ''`;
