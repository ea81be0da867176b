/**
 * A dataset's current failure as its dataset page and its delivery page both show it: the link to its
 * cause in the Triage view, and the acknowledge buttons' props (AckActions.vue) for the dataset.
 */
import { type ComputedRef, computed } from 'vue';
import { targetPath } from '../../../../shared/routes';
import type { DatasetTriage } from '../../../../shared/views';
import type { AcknowledgementView } from '../../../../shared/causes';

export interface FailedDataset {
  orgId: string;
  datasetId: string;
  /** The dataset in words: it names the acknowledge buttons and dialog. */
  subject: string;
}

export interface CurrentFailure {
  causeLink: ComputedRef<string>;
  ack: ComputedRef<FailedDataset & { acknowledgement: AcknowledgementView | null }>;
}

export function useCurrentFailure(
  dataset: FailedDataset,
  failure: () => DatasetTriage | null,
): CurrentFailure {
  const causeLink = computed(() => {
    const current = failure();
    return current
      ? targetPath({ view: 'triage', orgId: dataset.orgId, incidentId: current.incidentId })
      : '/';
  });
  const ack = computed(() => ({
    orgId: dataset.orgId,
    datasetId: dataset.datasetId,
    subject: dataset.subject,
    acknowledgement: failure()?.acknowledgement ?? null,
  }));
  return { causeLink, ack };
}
