/**
 * Recovery notices (docs/architecture.md#notifications): opt-in (Settings → Notifications), one notice a
 * cycle naming the FAILED or MISSING datasets that delivered again; none for a snoozed dataset, none
 * while paused or in quiet hours, none on a first sync.
 */
import type { CycleEvent } from '../../shared/sync';
import { datasetName } from '../query/dataset';
import { type AlertsContext, paused, quiet } from './context';
import { recoveredText } from './text';
import type { Announcement } from './types';

const RECOVERED_FROM = new Set(['FAILED', 'MISSING']);
const RECOVERED_TO = new Set(['HEALTHY', 'DELIVERED_LATE']);

/** Recovery notices (opt-in): FAILED or MISSING datasets that delivered again, as one notice a cycle. */
export function recoveries(ctx: AlertsContext, event: CycleEvent, snoozed: Set<string>): Announcement | null {
  if (!ctx.settings.notifications.recoveryNotices || event.firstSync) return null;
  if (paused(ctx) || quiet(ctx)) return null;
  const recovered = event.transitions.filter(
    (t) =>
      t.from !== null &&
      t.to !== null &&
      RECOVERED_FROM.has(t.from) &&
      RECOVERED_TO.has(t.to) &&
      !snoozed.has(t.datasetId),
  );
  if (recovered.length === 0) return null;
  const datasets = recovered.map((t) => ({
    datasetId: t.datasetId,
    datasetName: datasetName(ctx.store, event.orgId, t.datasetId),
    from: t.from!,
    to: t.to!,
  }));
  const [only] = datasets;
  return {
    kind: 'recovered',
    orgId: event.orgId,
    datasets,
    ...recoveredText(datasets),
    target:
      datasets.length === 1 && only
        ? { view: 'dataset', orgId: event.orgId, datasetId: only.datasetId }
        : { view: 'datasets', orgId: event.orgId },
    at: ctx.now.toISOString(),
  };
}
