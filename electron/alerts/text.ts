/** The words of each announcement: short enough for a notification, specific enough to act on. */
import { STAGE_LABELS } from '../../shared/status';
import type { FailedDataset, FailureReason, SummaryCause } from './types';

const nameOf = (dataset: { datasetName: string | null; datasetId: string }): string =>
  dataset.datasetName ?? dataset.datasetId;

const plural = (count: number, one: string, many: string): string =>
  `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/** "a, b, c and 4 more". */
function names(datasets: readonly { datasetName: string | null; datasetId: string }[], shown = 3): string {
  const first = datasets.slice(0, shown).map(nameOf);
  const rest = datasets.length - first.length;
  if (rest > 0) return `${first.join(', ')} and ${rest.toLocaleString('en-US')} more`;
  if (first.length <= 1) return first.join('');
  return `${first.slice(0, -1).join(', ')} and ${first.at(-1)}`;
}

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

export function summaryText(
  cause: SummaryCause,
  orgId: string,
  datasets: readonly FailedDataset[],
): { title: string; body: string } {
  const count = datasets.length;
  switch (cause) {
    case 'first-sync':
      return {
        title: `${plural(count, 'dataset is', 'datasets are')} FAILED`,
        body: `First sync of ${orgId}: ${names(datasets)}.`,
      };
    case 'many':
      return {
        title: `${plural(count, 'dataset', 'datasets')} newly FAILED`,
        body: `${orgId}: ${names(datasets)}.`,
      };
    case 'quiet-hours':
      return {
        title: `${plural(count, 'dataset', 'datasets')} FAILED during quiet hours`,
        body: `${orgId}: ${names(datasets)}.`,
      };
  }
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
