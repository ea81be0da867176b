/**
 * The rows the keyboard moves over in the Handoff view (`j`/`k`, `Enter` opens the dataset): every
 * dataset of every section, top to bottom as drawn. A dataset can be in two sections (newly failed and
 * still failing), so a row is its section and its dataset.
 */
import { ref } from 'vue';
import type { HandoffReport } from '../../../../shared/handoff';

/** The report's sections that list datasets, in the order the view (and the Markdown) shows them. */
export const DATASET_SECTIONS = [
  'newlyFailed',
  'recovered',
  'stillFailing',
  'missing',
  'overdue',
  'snoozed',
  'atRisk',
] as const;
export type DatasetSection = (typeof DATASET_SECTIONS)[number];

export interface HandoffStop {
  key: string;
  section: DatasetSection;
  datasetId: string;
}

export const stopKeyOf = (section: DatasetSection, datasetId: string, index = 0): string =>
  `${section}:${index}:${datasetId}`;

/** The dataset ids of a section, in the report's order. */
export function sectionDatasets(report: HandoffReport, section: DatasetSection): string[] {
  const list = section === 'overdue' ? report.overdue.datasets : report[section];
  return list.map((item) => item.datasetId);
}

/**
 * Every row, top to bottom. The index keeps two rows of one dataset in one section apart (two at-risk
 * deadlines of the same dataset).
 */
export function handoffStops(report: HandoffReport): HandoffStop[] {
  return DATASET_SECTIONS.flatMap((section) =>
    sectionDatasets(report, section).map((datasetId, index) => ({
      key: stopKeyOf(section, datasetId, index),
      section,
      datasetId,
    })),
  );
}

/** The row the keyboard was on (its key), kept across a visit to a dataset: Esc comes back to it. */
export const keyboardRow = ref<string | null>(null);
