/**
 * The handoff as Markdown, shared so the window's "Copy as Markdown", the CLI and
 * `/local/v1/handoff?format=md` give the same bytes for the same report (shared/handoff.ts).
 */
import type { AcknowledgementView } from './causes';
import type { SnoozeView } from './views';
import {
  type HandoffDataset,
  type HandoffOutage,
  type HandoffReport,
  type HandoffSummary,
  type HandoffTrouble,
  HANDOFF_AT_RISK_HOURS,
  atRiskByDataset,
} from './handoff';
import { wallClock } from './time';

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
    return ` (${wallClock(new Date(iso), timeZone)} ${markdownText(timeZone)})`;
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
 * soonest first) — and a line saying how many it left out (of the count: a report cut to its first rows,
 * shared/handoff.ts handoffFirstRows, reads the same) and where they are.
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
  const more = (count ?? items.length) - Math.min(items.length, MARKDOWN_SECTION_ITEMS);
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
