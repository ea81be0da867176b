/** The Upcoming view's words and URL state, as tables: what a link says, and what a row says. */
import { describe, expect, it } from 'vitest';
import {
  type UpcomingViewState,
  filterDeadlines,
  filterOptions,
  onTimeText,
  riskTooltip,
  typicalDelivery,
  upcomingStateFromQuery,
  upcomingStateToQuery,
} from '../../../../renderer/src/components/upcoming/upcoming';
import { AT_RISK_RULE, type DeliveryHabits, type UpcomingDeadline } from '../../../../shared/upcoming';

const HABITS: DeliveryHabits = {
  settled: 0,
  onTime: 0,
  onTimeRate: null,
  typicalDeliveryMs: null,
  latestStatus: null,
  atRisk: false,
  riskReason: null,
};
const DEFAULT: UpcomingViewState = { hours: 6, supplier: null, product: null, atRisk: false, search: '' };

describe('upcomingStateFromQuery', () => {
  it.each([
    [{}, DEFAULT, []],
    [{ hours: '1' }, { ...DEFAULT, hours: 1 }, []],
    [{ hours: '24', risk: '1' }, { ...DEFAULT, hours: 24, atRisk: true }, []],
    [
      { supplier: 'sup-1', product: 'Prices', q: '  fx ' },
      { ...DEFAULT, supplier: 'sup-1', product: 'Prices', search: 'fx' },
      [],
    ],
    [{ risk: '0', supplier: '' }, DEFAULT, []],
    [{ hours: '12' }, DEFAULT, ['hours=12 is not offered: choose 1, 6, 24 (showing the next 6 hours).']],
    [{ hours: 'soon' }, DEFAULT, ['hours=soon is not offered: choose 1, 6, 24 (showing the next 6 hours).']],
    [{ risk: 'yes' }, DEFAULT, ['risk=yes is not understood: risk=1 shows only the deadlines at risk.']],
    [{ hours: ['24', '1'] }, { ...DEFAULT, hours: 24 }, []],
  ])('%j → %j, problems %j', (query, state, problems) => {
    expect(upcomingStateFromQuery(query)).toEqual({ state, problems });
  });

  it('writes a state back to the URL it came from, defaults left out', () => {
    const states: UpcomingViewState[] = [
      DEFAULT,
      { hours: 1, supplier: 'sup-1', product: 'Rates', atRisk: true, search: 'fx' },
      { ...DEFAULT, hours: 24 },
    ];
    for (const state of states) {
      const query = upcomingStateToQuery(state);
      const written = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
      expect(upcomingStateFromQuery(written as Record<string, string>).state).toEqual(state);
    }
    expect(Object.values(upcomingStateToQuery(DEFAULT)).every((value) => value === undefined)).toBe(true);
  });
});

describe("a row's words", () => {
  it.each([
    [null, '—'],
    [-12 * 60_000, 'usually 12 min early'],
    [25 * 60_000, '+25 min late'],
    [-20_000, 'usually on time'],
    [29_000, 'usually on time'],
    [(2 * 60 + 5) * 60_000, '+2 h 5 min late'],
  ])('typical delivery of %s ms: %s', (typicalDeliveryMs, text) => {
    expect(typicalDelivery({ ...HABITS, typicalDeliveryMs })).toBe(text);
  });

  it.each([
    [{ settled: 0, onTime: 0, onTimeRate: null }, '—'],
    [{ settled: 2, onTime: 1, onTimeRate: null }, '1/2'],
    [{ settled: 20, onTime: 18, onTimeRate: 0.9 }, '18/20 · 90%'],
    [{ settled: 6, onTime: 5, onTimeRate: 5 / 6 }, '5/6 · 83%'],
  ])('on time %j: %s', (counts, text) => {
    expect(onTimeText({ ...HABITS, ...counts })).toBe(text);
  });

  it('says the rule, then the reason, in the at-risk tooltip', () => {
    const habits = { ...HABITS, atRisk: true, riskReason: 'its latest delivery was FAILED' };
    expect(riskTooltip(habits)).toBe(`${AT_RISK_RULE} This dataset: its latest delivery was FAILED.`);
  });
});

describe('filterDeadlines and filterOptions', () => {
  const row = (
    datasetId: string,
    supplierId: string | null,
    product: string | null,
    atRisk = false,
  ): UpcomingDeadline => ({
    datasetId,
    datasetName: `Name of ${datasetId}`,
    supplierId,
    supplierName: supplierId === null ? 'Unnamed supplier' : `Supplier ${supplierId}`,
    dataProductName: product,
    deadline: '2026-11-21T05:00:00.000Z',
    timeZone: 'UTC',
    status: 'HEALTHY',
    habits: { ...HABITS, atRisk },
  });
  const rows = [
    row('a', 's1', 'Prices'),
    row('b', 's2', 'Rates', true),
    row('c', null, null),
    row('d', 's1', 'Rates', true),
  ];
  const ids = (state: Partial<UpcomingViewState>) =>
    filterDeadlines(rows, { ...DEFAULT, ...state }).map((r) => r.datasetId);

  it('keeps the rows every filter lets through, in order', () => {
    expect(ids({})).toEqual(['a', 'b', 'c', 'd']);
    expect(ids({ supplier: 's1' })).toEqual(['a', 'd']);
    expect(ids({ supplier: 'Unnamed supplier' })).toEqual(['c']);
    expect(ids({ product: 'Rates' })).toEqual(['b', 'd']);
    expect(ids({ atRisk: true })).toEqual(['b', 'd']);
    expect(ids({ atRisk: true, supplier: 's1' })).toEqual(['d']);
    expect(ids({ search: 'NAME OF C' })).toEqual(['c']);
    expect(ids({ search: 'supplier s2' })).toEqual(['b']);
    expect(ids({ supplier: 'nobody' })).toEqual([]);
  });

  it('offers the suppliers and products present, by name, and keeps a chosen one that is not', () => {
    expect(filterOptions(rows, DEFAULT)).toEqual({
      suppliers: [
        { label: 'Supplier s1', value: 's1' },
        { label: 'Supplier s2', value: 's2' },
        { label: 'Unnamed supplier', value: 'Unnamed supplier' },
      ],
      products: [
        { label: 'Prices', value: 'Prices' },
        { label: 'Rates', value: 'Rates' },
      ],
    });
    const kept = filterOptions([], { ...DEFAULT, supplier: 'gone', product: 'Old' });
    expect(kept).toEqual({
      suppliers: [{ label: 'gone', value: 'gone' }],
      products: [{ label: 'Old', value: 'Old' }],
    });
  });
});
