/**
 * The handoff cut to its first rows (shared/handoff.ts handoffFirstRows), as the window asks for it: each
 * list of datasets cut, the summary still counting all, and the Markdown unchanged by the cut.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { OnCallKnowledge } from '../../../electron/knowledge/service';
import { Store } from '../../../electron/store/database';
import {
  type HandoffReport,
  atRiskByDataset,
  handoffFirstRows,
  isWholeHandoff,
} from '../../../shared/handoff';
import { MARKDOWN_SECTION_ITEMS, handoffMarkdown } from '../../../shared/handoffMarkdown';
import { SHIFT_END, SHIFT_ORG, SHIFT_START, playShift } from '../../helpers/handoffShift';
import { sourceState } from '../../helpers/alerts';

let shift: HandoffReport;

beforeAll(async () => {
  const store = await Store.open({ dataDir: null });
  await playShift(store);
  const knowledge = new OnCallKnowledge({
    store,
    now: () => SHIFT_END,
    sources: () => [sourceState({ orgId: SHIFT_ORG, lastSuccessAt: '2026-11-26T05:00:00.000Z' })],
  });
  shift = await knowledge.handoff(SHIFT_ORG, SHIFT_START);
  await store.close();
});
/** The shift's report with each list `times` as long (copies of its rows under other dataset ids). */
function grown(report: HandoffReport, times: Record<string, number>): HandoffReport {
  const copies = <T extends { datasetId: string }>(list: T[], n: number): T[] =>
    Array.from({ length: n }, (_, copy) =>
      list.map((item) => ({ ...item, datasetId: `${item.datasetId}-${copy}` })),
    ).flat();
  const out: HandoffReport = {
    ...report,
    newlyFailed: copies(report.newlyFailed, times.newlyFailed!),
    recovered: copies(report.recovered, times.recovered!),
    stillFailing: copies(report.stillFailing, times.stillFailing!),
    missing: copies(report.missing, times.missing!),
    overdue: { ...report.overdue, datasets: copies(report.overdue.datasets, times.overdue!) },
    snoozed: copies(report.snoozed, times.snoozed!),
    atRisk: copies(report.atRisk, times.atRisk!),
  };
  out.summary = {
    ...report.summary,
    newlyFailed: out.newlyFailed.length,
    recovered: out.recovered.length,
    stillFailing: out.stillFailing.length,
    missing: out.missing.length,
    overdue: report.overdue.known ? out.overdue.datasets.length : null,
    snoozed: out.snoozed.length,
    atRisk: atRiskByDataset(out.atRisk).length,
  };
  return out;
}

const times = fc.record({
  newlyFailed: fc.integer({ min: 0, max: 80 }),
  recovered: fc.integer({ min: 0, max: 150 }),
  stillFailing: fc.integer({ min: 0, max: 150 }),
  missing: fc.integer({ min: 0, max: 150 }),
  overdue: fc.integer({ min: 0, max: 150 }),
  snoozed: fc.integer({ min: 0, max: 150 }),
  atRisk: fc.integer({ min: 0, max: 150 }),
});

describe('the handoff cut to its first rows', () => {
  it('has every section of the shift to cut', () => {
    for (const list of [shift.newlyFailed, shift.recovered, shift.stillFailing, shift.missing, shift.atRisk])
      expect(list.length).toBeGreaterThan(0);
    expect(isWholeHandoff(shift)).toBe(true);
  });

  it('keeps the first rows of each list and every count, and its Markdown is the whole report’s', () => {
    fc.assert(
      fc.property(times, fc.integer({ min: MARKDOWN_SECTION_ITEMS, max: 250 }), (n, rows) => {
        const whole = grown(shift, n);
        const cut = handoffFirstRows(whole, rows);
        expect(cut.summary).toEqual(whole.summary);
        expect(cut.newlyFailed).toEqual(whole.newlyFailed.slice(0, rows));
        expect(cut.stillFailing).toEqual(whole.stillFailing.slice(0, rows));
        expect(cut.missing).toEqual(whole.missing.slice(0, rows));
        expect(cut.recovered).toEqual(whole.recovered.slice(0, rows));
        expect(cut.overdue.datasets).toEqual(whole.overdue.datasets.slice(0, rows));
        expect(cut.snoozed).toEqual(whole.snoozed.slice(0, rows));
        // At risk: the first datasets, each with every deadline it has (its "and n later").
        expect(atRiskByDataset(cut.atRisk)).toEqual(atRiskByDataset(whole.atRisk).slice(0, rows));
        expect(cut.outages).toEqual(whole.outages);
        expect(handoffMarkdown(cut)).toBe(handoffMarkdown(whole));
        const lists = [whole.newlyFailed, whole.recovered, whole.stillFailing, whole.missing];
        const longer = lists.some((list) => list.length > rows) || whole.overdue.datasets.length > rows;
        expect(isWholeHandoff(cut)).toBe(
          !longer && whole.snoozed.length <= rows && whole.summary.atRisk <= rows,
        );
      }),
      { numRuns: 60, seed: 0x25_1129 },
    );
  });
});
