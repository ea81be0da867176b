/** The words of each announcement: short enough for a notification, specific enough to act on. */
import { formatDistanceStrict } from 'date-fns';
import { STAGE_LABELS } from '../../shared/status';
import { relativeTime } from '../../shared/time';
import type { CauseCount, CausedFailure, FailedDataset, FailureReason, SummaryCause } from './types';

type Named = { datasetName: string | null; datasetId: string };

const nameOf = (dataset: Named): string => dataset.datasetName ?? dataset.datasetId;

const plural = (count: number, one: string, many: string): string =>
  `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/** "a, b, c and 4 more" (`shown` named at most). */
export function listWords(items: readonly string[], shown = 3): string {
  const first = items.slice(0, shown);
  const rest = items.length - first.length;
  if (rest > 0) return `${first.join(', ')} and ${rest.toLocaleString('en-US')} more`;
  if (first.length <= 1) return first.join('');
  return `${first.slice(0, -1).join(', ')} and ${first.at(-1)}`;
}

const names = (datasets: readonly Named[]): string => listWords(datasets.map(nameOf));

export function failedText(
  dataset: FailedDataset,
  reason: FailureReason | null,
): { title: string; body: string } {
  const title = `FAILED: ${nameOf(dataset)}`;
  if (reason === null)
    return { title, body: 'Failure reasons are not synced yet: open the delivery to fetch them.' };
  const code = reason.shortCode ?? 'no error code';
  const body = `${STAGE_LABELS[reason.stage]} failed: ${code}${reason.message ? ` — ${reason.message}` : ''}`;
  return { title, body };
}

/** The suppliers of some failures, most failures first: "Bluefin Exchange Feeds and Acme Data and 2 more". */
export function suppliersOf(
  failures: readonly CausedFailure[],
): { id: string | null; name: string | null; count: number }[] {
  const bySupplier = new Map<string, { id: string | null; name: string | null; count: number }>();
  for (const failure of failures) {
    const key = failure.supplierId ?? '';
    const supplier = bySupplier.get(key) ?? { id: failure.supplierId, name: failure.supplierName, count: 0 };
    supplier.count += 1;
    bySupplier.set(key, supplier);
  }
  return [...bySupplier.values()].sort(
    (a, b) => b.count - a.count || (a.name ?? '').localeCompare(b.name ?? ''),
  );
}

function supplierWords(failures: readonly CausedFailure[]): string {
  const suppliers = suppliersOf(failures).map((s) => s.name ?? s.id ?? 'an unknown supplier');
  const first = suppliers.slice(0, 2);
  const rest = suppliers.length - first.length;
  return rest > 0 ? `${first.join(', ')} and ${rest} more` : first.join(' and ');
}

/** Two or more new failures of one cause: "Ingest failed: E_AUTH_FAILED", "9 datasets from Bluefin". */
export function causeText(failures: readonly CausedFailure[]): { title: string; body: string } {
  const [first] = failures;
  return {
    title: first?.causeTitle ?? 'Failed',
    body: `${plural(failures.length, 'dataset', 'datasets')} from ${supplierWords(failures)}`,
  };
}

/**
 * More failures of a cause notified before, released once its cool-down passed (coolDown.ts): "Ingest
 * failed: E_AUTH_FAILED", "6 more datasets from Bluefin Exchange Feeds (15 failing now)".
 */
export function moreOfCauseText(
  failures: readonly CausedFailure[],
  failingNow: number,
): { title: string; body: string } {
  const [first] = failures;
  const now = failingNow === 0 ? 'none failing now' : `${failingNow.toLocaleString('en-US')} failing now`;
  return {
    title: first?.causeTitle ?? 'Failed',
    body: `${plural(failures.length, 'more dataset', 'more datasets')} from ${supplierWords(failures)} (${now})`,
  };
}

/** The causes of some failures, most first (then by title). */
export function causeCounts(failures: readonly CausedFailure[]): CauseCount[] {
  const counts = new Map<string, CauseCount>();
  for (const failure of failures) {
    const cause = counts.get(failure.incidentId) ?? {
      incidentId: failure.incidentId,
      causeId: failure.causeId,
      title: failure.causeTitle,
      count: 0,
    };
    cause.count += 1;
    counts.set(failure.incidentId, cause);
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || a.title.localeCompare(b.title));
}

/** "Ingest failed: E_AUTH_FAILED (9), Normalize failed: E_SCHEMA (2) and 3 more causes". */
export function topCausesWords(causes: readonly CauseCount[], shown = 3): string {
  const first = causes
    .slice(0, shown)
    .map((cause) => `${cause.title} (${cause.count.toLocaleString('en-US')})`);
  const rest = causes.length - first.length;
  if (rest > 0) return `${first.join(', ')} and ${plural(rest, 'more cause', 'more causes')}`;
  return listWords(first, shown);
}

/** What a summary says of its failures: one cause names its datasets, several their top causes. */
function summaryDetail(datasets: readonly FailedDataset[], causes: readonly CauseCount[]): string {
  const [only] = causes;
  if (causes.length === 1 && only) return `${only.title}: ${names(datasets)}`;
  if (causes.length === 0) return names(datasets);
  return topCausesWords(causes);
}

export function summaryText(
  cause: SummaryCause,
  orgId: string,
  datasets: readonly FailedDataset[],
  causes: readonly CauseCount[],
): { title: string; body: string } {
  const count = datasets.length;
  const detail = summaryDetail(datasets, causes);
  switch (cause) {
    case 'first-sync':
      return {
        title: `${plural(count, 'dataset is', 'datasets are')} FAILED`,
        body: `First sync of ${orgId}: ${detail}.`,
      };
    case 'many':
      return {
        title: `${plural(count, 'dataset', 'datasets')} newly FAILED`,
        body: `${orgId}: ${detail}.`,
      };
    case 'quiet-hours':
      return {
        title: `${plural(count, 'dataset', 'datasets')} FAILED during quiet hours`,
        body: `${orgId}: ${detail}.`,
      };
  }
}

export const REMINDER_PREFIX = 'Still failing, nobody on it';

/**
 * A reminder: of one cause ("Still failing, nobody on it — Ingest failed: E_AUTH_FAILED", "9 datasets
 * from Bluefin · reminder 2 of 3"), or of several at once (their top causes).
 */
export function reminderText(
  failures: readonly CausedFailure[],
  causes: readonly CauseCount[],
  reminder: number,
  maxReminders: number,
): { title: string; body: string } {
  const [only] = causes;
  const [first] = failures;
  const nth = `reminder ${reminder} of ${maxReminders}`;
  if (causes.length === 1 && only && first) {
    const what =
      failures.length === 1
        ? nameOf(first)
        : `${plural(failures.length, 'dataset', 'datasets')} from ${supplierWords(failures)}`;
    return { title: `${REMINDER_PREFIX} — ${only.title}`, body: `${what} · ${nth}` };
  }
  return {
    title: `${REMINDER_PREFIX} — ${plural(failures.length, 'dataset', 'datasets')}`,
    body: `${topCausesWords(causes)} · ${nth}`,
  };
}

export function contactLostText(
  sourceName: string,
  lastSuccessAt: string | null,
  lastError: string | null,
  now: Date,
): { title: string; body: string } {
  const synced = lastSuccessAt === null ? 'never' : relativeTime(lastSuccessAt, now);
  return {
    title: `Lost contact with ${sourceName}`,
    body: `Last synced ${synced}${lastError ? ` — ${lastError}` : ''}. Its data is not current.`,
  };
}

export function contactRegainedText(
  sourceName: string,
  lostAt: string,
  regainedAt: string,
): { title: string; body: string } {
  const out = formatDistanceStrict(new Date(lostAt), new Date(regainedAt), { roundingMethod: 'floor' });
  return {
    title: `Contact regained with ${sourceName}`,
    body: `Synced again after ${out} out of contact; its data is current.`,
  };
}

export function recoveredText(
  datasets: readonly { datasetName: string | null; datasetId: string; from: string; to: string }[],
): { title: string; body: string } {
  const [only] = datasets;
  if (datasets.length === 1 && only)
    return { title: `Recovered: ${nameOf(only)}`, body: `Now ${only.to} (was ${only.from}).` };
  return {
    title: `${plural(datasets.length, 'dataset', 'datasets')} recovered`,
    body: `${names(datasets)}.`,
  };
}
