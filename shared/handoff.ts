/**
 * The shift handoff (docs/decisions.md "Handoff"): what happened to an org since a time and what the next person
 * must watch. The engine assembles the report (electron/knowledge/handoff.ts); this file holds its
 * shape and its Markdown, shared so the window's "Copy as Markdown", the CLI and `/local/v1/handoff`
 * give the same bytes for the same report.
 */
import { parseISO } from 'date-fns';
import type { AcknowledgementView } from './causes';
import type { SnoozeView } from './rpc';
import { DEFAULT_HANDOFF_HOURS, SINCE_FORMS } from './handoffOptions';
import { TIME_RANGE, inTimeRange } from './timeRange';
import type { UpcomingDeadline } from './upcoming';

export { DEFAULT_HANDOFF_HOURS, SINCE_FORMS };
/** How far ahead the handoff lists at-risk deadlines. */
export const HANDOFF_AT_RISK_HOURS = 8;

/** Who a line is about. */
export interface HandoffDataset {
  datasetId: string;
  datasetName: string | null;
  supplierId: string | null;
  supplierName: string | null;
  dataProductName: string | null;
}

/** A note written on one of the dataset's acknowledgements within the window. */
export interface HandoffNote {
  /** RFC 3339 UTC. */
  at: string;
  by: string | null;
  text: string;
}

/** A FAILED or MISSING dataset now, with its incident and who owns it. */
export interface HandoffTrouble extends HandoffDataset {
  status: string;
  deliveryId: string | null;
  /** Its failure time (shared/causes.ts CauseDataset.since), RFC 3339 UTC: never after generatedAt. */
  since: string;
  /** Whether it failed within the window. */
  isNew: boolean;
  incidentId: string;
  causeId: string;
  causeTitle: string;
  message: string | null;
  /** The acknowledgement that holds now; null: nobody on it. */
  acknowledgement: AcknowledgementView | null;
  /** The window's other acknowledgement notes (earlier, withdrawn or ended ones), oldest first. */
  notes: HandoffNote[];
}

/** A dataset whose trouble ended within the window and that is neither FAILED nor MISSING now. */
export interface HandoffRecovery extends HandoffDataset {
  /** The troubled status it left. */
  was: string;
  /** Its status now. */
  status: string;
  /**
   * When it left that status: the next delivery's time, never after the mirror learned of it, RFC 3339
   * UTC, within the window.
   */
  recoveredAt: string;
}

/** An overdue (unverified) dataset, with its names. */
export interface HandoffOverdueDataset extends HandoffDataset {
  deadlines: number;
  /** The oldest passed deadline, RFC 3339 UTC. */
  since: string;
}

/** Overdue (unverified) as the sync's state tells it; `known: false` when no running instance can tell. */
export interface HandoffOverdue {
  known: boolean;
  stale: boolean;
  lastSuccessAt: string | null;
  deadlines: number;
  datasets: HandoffOverdueDataset[];
}

/** A sync outage of the org that overlaps the window. */
export interface HandoffOutage {
  sourceId: string;
  sourceName: string;
  lostAt: string;
  /** null: not regained yet. */
  regainedAt: string | null;
  lastSuccessAt: string | null;
  /** From an imported snapshot (another machine's contact with its source). */
  imported: boolean;
}

/** How many of each section lists; the Markdown's summary line says the same. */
export interface HandoffSummary {
  newlyFailed: number;
  recovered: number;
  stillFailing: number;
  missing: number;
  /** Overdue (unverified) datasets; null when not known here (no running instance syncs the org). */
  overdue: number | null;
  snoozed: number;
  /** Datasets with at-risk deadlines in the next HANDOFF_AT_RISK_HOURS (a dataset's several count once). */
  atRisk: number;
  outages: number;
}

/** The report; its JSON is what the CLI and the API print (stable keys, RFC 3339 UTC times). */
export interface HandoffReport {
  orgId: string;
  orgName: string;
  /** The window [since, generatedAt]. */
  since: string;
  generatedAt: string;
  /** At-risk deadlines are those in (generatedAt, atRiskUntil]. */
  atRiskUntil: string;
  summary: HandoffSummary;
  /** FAILED now, failed within the window; newest first (by since, then dataset id). */
  newlyFailed: HandoffTrouble[];
  /** Recovered within the window; newest first (by recoveredAt, then dataset id). */
  recovered: HandoffRecovery[];
  /** FAILED now, failed before the window; newest first. */
  stillFailing: HandoffTrouble[];
  /** MISSING now; newest first. */
  missing: HandoffTrouble[];
  /** Its datasets newest first (by their oldest passed deadline). */
  overdue: HandoffOverdue;
  /** Snoozes in force now, newest first (by when set). */
  snoozed: SnoozeView[];
  /** At-risk deadlines of the next HANDOFF_AT_RISK_HOURS, soonest first (what comes next, first). */
  atRisk: UpcomingDeadline[];
  /** Newest first (by lostAt, then source id). */
  outages: HandoffOutage[];
}

const DURATION = /^(\d{1,6})([mhd])$/;
/** The longest duration back: a year (a longer look back names its start as a time). */
export const MAX_SINCE_DAYS = 366;
const MAX_SINCE = `${MAX_SINCE_DAYS}d, ${MAX_SINCE_DAYS * 24}h or ${MAX_SINCE_DAYS * 24 * 60}m`;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * Reads `since` (a duration back from `now`, or an RFC 3339 time) into the window's start. Throws an
 * Error saying what was wrong and what is allowed (the caller names its parameter): unreadable, a
 * duration of 0 or over a year, a time after `now` or outside the years 0000–9999.
 */
export function parseHandoffSince(text: string, now: Date): Date {
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  const duration = DURATION.exec(text.trim());
  if (duration) {
    const ms = Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
    if (ms === 0) throw new Error(`'${shown}' is an empty window: give ${SINCE_FORMS}`);
    if (ms > MAX_SINCE_DAYS * UNIT_MS.d)
      throw new Error(`'${shown}' is over a year back (at most ${MAX_SINCE}): for longer, give a time`);
    const start = now.getTime() - ms;
    if (!inTimeRange(start)) throw new Error(`'${shown}' back from now is before year 0000: give a time`);
    return new Date(start);
  }
  const at = RFC3339.test(text.trim()) ? parseISO(text.trim()) : null;
  if (at === null || Number.isNaN(at.getTime())) throw new Error(`'${shown}' is not ${SINCE_FORMS}`);
  if (!inTimeRange(at.getTime()))
    throw new Error(`'${shown}' is outside the times this app keeps (${TIME_RANGE})`);
  if (at.getTime() > now.getTime())
    throw new Error(`'${shown}' is in the future (now is ${now.toISOString()}): give ${SINCE_FORMS}`);
  return at;
}

/** "2 newly failed, 1 recovered, …": the counts in one line. */
export function handoffSummaryLine(summary: HandoffSummary): string {
  const parts: [number | null, string][] = [
    [summary.newlyFailed, 'newly failed'],
    [summary.recovered, 'recovered'],
    [summary.stillFailing, 'still failing'],
    [summary.missing, 'missing'],
    [summary.overdue, 'overdue (unverified)'],
    [summary.snoozed, 'snoozed'],
    [summary.atRisk, `at risk in the next ${HANDOFF_AT_RISK_HOURS} h`],
    [summary.outages, summary.outages === 1 ? 'sync outage' : 'sync outages'],
  ];
  return parts
    .map(([count, words]) =>
      count === null ? `${words} not known` : `${count.toLocaleString('en-US')} ${words}`,
    )
    .join(', ');
}

// --- Markdown ---------------------------------------------------------------------------------------

/**
 * Controls, line and paragraph separators, and format characters (bidi overrides and isolates, zero-width
 * ones): they would break a line, reorder it or hide text in it.
 */
const BREAKING = /[\p{Cc}\p{Zl}\p{Zp}\p{Cf}]+/gu;
/**
 * The characters CommonMark (and chat tools' dialects: `~` strike, `|` tables) may read as markup within
 * a line; `\` escapes each. Line-start markers (`#`, `-`, `1.`) cannot occur: text never begins a line.
 */
const SIGNIFICANT = /[\\`*[\]<>|~&]/g;
/** `_` inside a word never opens emphasis (CommonMark): E_AUTH_FAILED and New_York stay as written. */
const EDGE_UNDERSCORE = /(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;

/** One line of plain text: breaks become spaces, runs of space one. */
function oneLine(text: string): string {
  return text.replace(BREAKING, ' ').replace(/ {2,}/g, ' ').trim();
}

/** Text shown as text: on one line, every Markdown-significant character escaped. */
export function markdownText(text: string): string {
  return oneLine(text).replace(SIGNIFICANT, '\\$&').replace(EDGE_UNDERSCORE, '\\_');
}

/** Text as a code span, whatever backticks it holds (CommonMark: a longer fence, padded when needed). */
export function markdownCode(text: string): string {
  const line = oneLine(text);
  const longest = Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = line.startsWith('`') || line.endsWith('`') || line === '' ? ' ' : '';
  return `${fence}${pad}${line}${pad}${fence}`;
}

/** "2026-11-26 09:00 UTC". */
export function utcText(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return markdownText(iso);
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "09:00 Europe/Berlin" (the zone's wall clock), or "" for UTC. */
function zoneText(iso: string, timeZone: string): string {
  if (timeZone === 'UTC') return '';
  try {
    const parts = new Intl.DateTimeFormat('en-GB', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(new Date(iso));
    const part = (type: string) => parts.find((found) => found.type === type)?.value ?? '';
    return ` (${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')} ${markdownText(timeZone)})`;
  } catch {
    return '';
  }
}

function datasetText(dataset: HandoffDataset): string {
  const name = dataset.datasetName === null ? '' : `**${markdownText(dataset.datasetName)}** `;
  const supplier = dataset.supplierName ?? dataset.supplierId;
  return `${name}${markdownCode(dataset.datasetId)}${supplier === null ? '' : ` (${markdownText(supplier)})`}`;
}

/** Items a Markdown section lists at most: a chat message stays readable (the JSON and the view list all). */
export const MARKDOWN_SECTION_ITEMS = 30;

/**
 * A section: its title with the count ("not known" when `count` is null), then each item's lines — the
 * first MARKDOWN_SECTION_ITEMS, which are the newest (every list is newest first; at-risk deadlines
 * soonest first) — and a line saying how many it left out and where they are.
 */
function section<T>(
  title: string,
  count: number | null,
  items: readonly T[],
  lines: (item: T) => string | string[],
  empty = '- None.',
  older = 'older',
): string[] {
  const shown = items.slice(0, MARKDOWN_SECTION_ITEMS).flatMap(lines);
  const more = items.length - MARKDOWN_SECTION_ITEMS;
  return [
    `## ${title} (${count === null ? 'not known' : count.toLocaleString('en-US')})`,
    '',
    ...(items.length === 0 ? [empty] : shown),
    ...(more > 0
      ? [
          `- … and ${more.toLocaleString('en-US')} ${older} not listed here (all of them: the Handoff view, or \`handoff --format json\`)`,
        ]
      : []),
    '',
  ];
}

/** At-risk deadlines one line per dataset (an hourly dataset is not eight lines), soonest first. */
export function atRiskByDataset(
  deadlines: readonly UpcomingDeadline[],
): { first: UpcomingDeadline; more: number }[] {
  const byDataset = new Map<string, { first: UpcomingDeadline; more: number }>();
  for (const deadline of deadlines) {
    const seen = byDataset.get(deadline.datasetId);
    if (seen === undefined) byDataset.set(deadline.datasetId, { first: deadline, more: 0 });
    else seen.more += 1;
  }
  return [...byDataset.values()];
}

function acknowledgementText(ack: AcknowledgementView | null): string {
  if (ack === null) return 'not acknowledged';
  const note = ack.note === null || oneLine(ack.note) === '' ? '' : `: “${markdownText(ack.note)}”`;
  return `acknowledged by ${markdownText(ack.by)} at ${utcText(ack.at)}${note}`;
}

function troubleLines(trouble: HandoffTrouble, detailed: boolean): string[] {
  const since = `, since ${utcText(trouble.since)}`;
  const head = `- ${datasetText(trouble)} — ${markdownText(trouble.causeTitle)}${since}`;
  if (!detailed) return [`${head}; ${acknowledgementText(trouble.acknowledgement)}`];
  const lines = [head];
  if (trouble.message !== null && oneLine(trouble.message) !== '')
    lines.push(`  - Message: ${markdownText(trouble.message)}`);
  lines.push(`  - ${capitalized(acknowledgementText(trouble.acknowledgement))}`);
  for (const note of trouble.notes)
    lines.push(
      `  - Note${note.by === null ? '' : ` by ${markdownText(note.by)}`} at ${utcText(note.at)}: “${markdownText(note.text)}”`,
    );
  return lines;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function snoozeText(snooze: SnoozeView): string {
  const name = snooze.datasetName === null ? '' : `**${markdownText(snooze.datasetName)}** `;
  const until =
    snooze.until !== null
      ? `until ${utcText(snooze.until)}`
      : snooze.kind === 'next-delivery'
        ? 'until its next delivery'
        : 'until it is healthy again';
  return `- ${name}${markdownCode(snooze.datasetId)} — ${until} (set ${utcText(snooze.createdAt)})`;
}

function outageText(outage: HandoffOutage): string {
  const end =
    outage.regainedAt !== null
      ? `regained ${utcText(outage.regainedAt)}`
      : outage.imported
        ? 'still out when the snapshot was exported'
        : 'not regained yet';
  const last =
    outage.lastSuccessAt === null ? 'never synced before' : `last success ${utcText(outage.lastSuccessAt)}`;
  return `- ${markdownText(outage.sourceName)} ${markdownCode(outage.sourceId)} — lost ${utcText(outage.lostAt)}, ${end} (${last})`;
}

/**
 * The report as Markdown for chat tools: headings and bullet lists only (no HTML, no tables), times in
 * UTC (a deadline also in its dataset's zone), dataset ids in backticks, every name and note escaped and
 * kept on its line. The same report gives the same bytes.
 */
export function handoffMarkdown(report: HandoffReport): string {
  const lines: string[] = [
    `# Handoff: ${markdownText(report.orgName)} ${markdownCode(report.orgId)}`,
    '',
    `From ${utcText(report.since)} to ${utcText(report.generatedAt)}. All times are UTC.`,
    '',
    `**Summary:** ${handoffSummaryLine(report.summary)}.`,
    '',
    ...section('Newly failed', report.summary.newlyFailed, report.newlyFailed, (trouble) =>
      troubleLines(trouble, true),
    ),
    ...section(
      'Recovered',
      report.summary.recovered,
      report.recovered,
      (recovery) =>
        `- ${datasetText(recovery)} — was ${markdownText(recovery.was)}, ${markdownText(recovery.status)}` +
        ` since ${utcText(recovery.recoveredAt)}`,
    ),
    ...section('Still failing', report.summary.stillFailing, report.stillFailing, (trouble) =>
      troubleLines(trouble, false),
    ),
    ...section('Missing', report.summary.missing, report.missing, (trouble) => troubleLines(trouble, false)),
    ...section(
      'Overdue (unverified)',
      report.summary.overdue,
      report.overdue.datasets,
      (overdue) =>
        `- ${datasetText(overdue)} — ${overdue.deadlines.toLocaleString('en-US')} deadline${overdue.deadlines === 1 ? '' : 's'} passed since ${utcText(overdue.since)}`,
      !report.overdue.known
        ? '- Not known here: only a running instance that syncs this org can tell whether its data is stale.'
        : report.overdue.stale
          ? '- None.'
          : '- None: the data is fresh.',
    ),
    ...section('Snoozed', report.summary.snoozed, report.snoozed, snoozeText),
    ...section(
      `At risk in the next ${HANDOFF_AT_RISK_HOURS} h`,
      report.summary.atRisk,
      atRiskByDataset(report.atRisk),
      ({ first, more }) =>
        `- ${utcText(first.deadline)}${zoneText(first.deadline, first.timeZone)}` +
        (more === 0 ? '' : ` and ${more.toLocaleString('en-US')} later`) +
        `: ${datasetText(first)}` +
        (first.habits.riskReason === null ? '' : ` — ${markdownText(first.habits.riskReason)}`),
      '- None.',
      'later',
    ),
    ...section('Sync outages', report.summary.outages, report.outages, outageText),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}
