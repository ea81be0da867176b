/** What a handoff is asked with (the window, the CLI's `--since` and `--format`): imports nothing, for the CLI's help. */

/** The window a handoff looks back over when no `since` is given. */
export const DEFAULT_HANDOFF_HOURS = 8;
/** `since` when none is given (the CLI's `--since` default). */
export const DEFAULT_HANDOFF_SINCE = `${DEFAULT_HANDOFF_HOURS}h`;
/** The forms `since` takes, as the errors name them. */
export const SINCE_FORMS =
  'a duration back from now (90m, 8h, 2d) or an RFC 3339 time with its offset (2026-11-26T06:00:00Z)';

/** The CLI's `handoff --format`: Markdown for a chat, or the report as JSON. */
export const HANDOFF_FORMATS = ['md', 'json'] as const;
export type HandoffFormat = (typeof HANDOFF_FORMATS)[number];
