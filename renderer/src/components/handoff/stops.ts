/**
 * The rows the keyboard moves over in the Handoff view (`j`/`k`, `Enter` opens the dataset): every
 * dataset of every section, top to bottom as drawn. A dataset can be in two sections (missing and
 * snoozed, say), so a row is its section and its dataset.
 */
import { type InjectionKey, type Ref, ref } from 'vue';
import { HANDOFF_FIRST_ROWS, type HandoffReport, atRiskByDataset } from '../../../../shared/handoff';

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
  if (section === 'atRisk') return atRiskByDataset(report.atRisk).map(({ first }) => first.datasetId);
  const list = section === 'overdue' ? report.overdue.datasets : report[section];
  return list.map((item) => item.datasetId);
}

/** Rows drawn per section at first; "Show all" draws the rest (at 10k a section may hold thousands). */
export const FIRST_ROWS = HANDOFF_FIRST_ROWS;

/**
 * Every drawn row, top to bottom (`limit`: how many of a section are drawn). The index keeps two rows of
 * one dataset in one section apart (two at-risk deadlines of the same dataset).
 */
export function handoffStops(
  report: HandoffReport,
  limit: (section: DatasetSection) => number,
): HandoffStop[] {
  return DATASET_SECTIONS.flatMap((section) =>
    sectionDatasets(report, section)
      .slice(0, limit(section))
      .map((datasetId, index) => ({ key: stopKeyOf(section, datasetId, index), section, datasetId })),
  );
}

/**
 * What every dataset link of the handoff's sections shares, given by HandoffSections to the links below
 * it (HandoffDataset): the org, the highlighted row's key, and telling the view a row took the focus.
 */
export interface HandoffRows {
  orgId: Readonly<Ref<string>>;
  highlighted: Readonly<Ref<string | null>>;
  highlight(key: string): void;
}
export const HANDOFF_ROWS: InjectionKey<HandoffRows> = Symbol('handoff rows');

/** The row the keyboard was on (its key), kept across a visit to a dataset: Esc comes back to it. */
export const keyboardRow = ref<string | null>(null);

/** The sections drawn whole ("Show all"), kept across a visit to a dataset like the keyboard's row. */
export const sectionsShownWhole = ref<DatasetSection[]>([]);

/** How many rows of a section are drawn. */
export const rowLimit = (section: DatasetSection): number =>
  sectionsShownWhole.value.includes(section) ? Number.POSITIVE_INFINITY : FIRST_ROWS;

let rememberedOrg: string | null = null;

/** What is kept across visits belongs to one org: another org (or a test) starts afresh. */
export function keepFor(orgId: string | null): void {
  if (orgId === rememberedOrg) return;
  rememberedOrg = orgId;
  keyboardRow.value = null;
  sectionsShownWhole.value = [];
}
