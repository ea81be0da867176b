/**
 * The Reliability view's pure parts as tables: how figures read (rates never 0%/100% unless exact,
 * lateness, names of groups without one), the URL state (defaults, a bad value said naming the allowed
 * ones), the search, and the trend chart's option (no bar for a week without any, no point for a week
 * without deliveries, the description for screen readers, colours per theme).
 */
import { describe, expect, it } from 'vitest';
import {
  groupName,
  latenessText,
  onTimeSentence,
  rateText,
  recoveryText,
  weekSentence,
} from '../../../../renderer/src/components/reliability/format';
import {
  reliabilityQuery,
  reliabilityStateFromQuery,
  searchGroups,
} from '../../../../renderer/src/components/reliability/query';
import { TREND_SERIES, trendOption } from '../../../../renderer/src/lib/charts';
import { TONE_TEXT } from '../../../../renderer/src/lib/status';
import type { WeekFigures } from '../../../../shared/reliability';

describe('rateText', () => {
  it.each([
    [null, '—'],
    [0, '0%'],
    [0.004, '1%'],
    [0.5, '50%'],
    [0.8349, '83%'],
    [0.996, '99%'],
    [1, '100%'],
  ])('%s → %s', (rate, text) => expect(rateText(rate)).toBe(text));
});

describe('latenessText and recoveryText', () => {
  it.each([
    [null, '—', '—'],
    [0, 'on time', '0 s'],
    [12 * 60_000, '+12 min', '12 min'],
    [(2 * 60 + 5) * 60_000, '+2 h 5 min', '2 h 5 min'],
    [(26 * 60 + 1) * 60_000, '+1 d 2 h', '1 d 2 h'],
  ])('%s ms → %s / %s', (ms, lateness, recovery) => {
    expect(latenessText(ms)).toBe(lateness);
    expect(recoveryText(ms)).toBe(recovery);
  });
});

describe('groupName and onTimeSentence', () => {
  it.each([
    [{ key: 'SUP-1', name: 'Bluefin' }, 'supplier', 'Bluefin'],
    [{ key: 'SUP-1', name: null }, 'supplier', 'SUP-1'],
    [{ key: '', name: null }, 'supplier', '(no supplier)'],
    [{ key: '', name: '' }, 'dataProduct', '(no data product)'],
  ] as const)('%o by %s → %s', (group, groupBy, name) => expect(groupName(group, groupBy)).toBe(name));

  it.each([
    [{ deliveries: 0, onTime: 0 }, 30, 'no deliveries in the last 30 days'],
    [{ deliveries: 1, onTime: 0 }, 7, 'on time 0 of 1 delivery in the last 7 days'],
    [{ deliveries: 1_200, onTime: 18 }, 90, 'on time 18 of 1,200 deliveries in the last 90 days'],
  ])('%o over %s days → %s', (figures, days, text) => expect(onTimeSentence(figures, days)).toBe(text));
});

describe('the URL state', () => {
  it.each([
    [{}, { groupBy: 'supplier', days: 30, search: '', problems: [] }],
    [
      { groupBy: 'dataset', days: '7', q: ' fx ' },
      { groupBy: 'dataset', days: 7, search: 'fx', problems: [] },
    ],
    [
      { groupBy: ['dataProduct', 'dataset'], days: '90' },
      { groupBy: 'dataProduct', days: 90, search: '', problems: [] },
    ],
    [
      { groupBy: 'team', days: '31' },
      {
        groupBy: 'supplier',
        days: 30,
        search: '',
        problems: [
          'groupBy "team" is not one of dataset, supplier, dataProduct',
          'days "31" is not one of 7, 30, 90',
        ],
      },
    ],
    [
      { groupBy: '', days: '' },
      { groupBy: 'supplier', days: 30, search: '', problems: [] },
    ],
  ])('%o → %o', (query, state) => expect(reliabilityStateFromQuery(query)).toEqual(state));

  it('writes the grouping and window always, the search when there is one', () => {
    expect(reliabilityQuery('supplier', 30)).toEqual({ groupBy: 'supplier', days: '30' });
    expect(reliabilityQuery('dataset', 7, 'fx prices')).toEqual({
      groupBy: 'dataset',
      days: '7',
      q: 'fx prices',
    });
  });
});

describe('searchGroups', () => {
  const groups = [
    { key: 'SUP-1', name: 'Bluefin Exchange Feeds' },
    { key: 'SUP-2', name: 'Kestrel ESG Research' },
    { key: 'SUP-3', name: null },
  ];
  it.each([
    ['', ['SUP-1', 'SUP-2', 'SUP-3']],
    ['  ', ['SUP-1', 'SUP-2', 'SUP-3']],
    ['bluefin', ['SUP-1']],
    ['ESG kestrel', ['SUP-2']],
    ['sup-3', ['SUP-3']],
    ['feeds kestrel', []],
  ])('%j → %j, in the given order', (search, keys) =>
    expect(searchGroups(groups, search).map((group) => group.key)).toEqual(keys),
  );

  const datasets = [
    { key: 'ds-1', name: 'Japan FX Rates EOD', supplier: { id: 'SUP-1', name: 'Bluefin Exchange Feeds' } },
    { key: 'ds-2', name: 'Japan FX Rates EOD', supplier: { id: 'SUP-2', name: 'Kestrel ESG Research' } },
    { key: 'ds-3', name: 'Japan FX Rates EOD', supplier: { id: null, name: null } },
  ];
  it.each([
    ['japan fx', ['ds-1', 'ds-2', 'ds-3']],
    ['fx kestrel', ['ds-2']],
    ['sup-1', ['ds-1']],
    ['ds-3', ['ds-3']],
  ])('per dataset, the supplier is searched too: %j → %j', (search, keys) =>
    expect(searchGroups(datasets, search).map((group) => group.key)).toEqual(keys),
  );
});

const week = (start: string, counts: Partial<WeekFigures>): WeekFigures => {
  const figures = { deliveries: 0, onTime: 0, late: 0, missing: 0, failed: 0, ...counts };
  return {
    start,
    end: start,
    ...figures,
    onTimeRate: figures.deliveries === 0 ? null : figures.onTime / figures.deliveries,
  };
};

describe('trendOption', () => {
  const weeks = [
    week('2026-11-01T00:00:00.000Z', {}),
    week('2026-11-08T00:00:00.000Z', { deliveries: 4, onTime: 3, failed: 1 }),
    week('2026-11-15T00:00:00.000Z', { deliveries: 5, onTime: 2, late: 2, missing: 1 }),
  ];

  it('stacks late, missing and failed per week (no bar for none) and draws the on-time rate in %', () => {
    const option = trendOption(weeks, 'light', 'Weekly trend of X');
    const series = option.series as { name: string; type: string; data: (number | null)[] }[];
    expect(series.map((s) => [s.name, s.type])).toEqual(
      TREND_SERIES.map((s) => [s.label, s.key === 'onTimeRate' ? 'line' : 'bar']),
    );
    expect(series.map((s) => s.data)).toEqual([
      [null, null, 2],
      [null, null, 1],
      [null, 1, null],
      [null, 75, 40],
    ]);
    expect((option.xAxis as { data: string[] }).data).toEqual(['Nov 1', 'Nov 8', 'Nov 15']);
    expect(option.aria).toEqual({
      enabled: true,
      label: { enabled: true, description: 'Weekly trend of X' },
    });
    expect(option.animation).toBe(false);
  });

  it('writes its axes in the theme’s readable grey', () => {
    for (const scheme of ['light', 'dark'] as const) {
      const option = trendOption(weeks, scheme, '');
      expect((option.textStyle as { color: string }).color).toBe(TONE_TEXT[scheme].default);
    }
  });

  it('says a week in words for the tooltip and the screen readers’ table', () => {
    expect(weekSentence(weeks[0]!)).toBe('week of Nov 1: no deliveries');
    expect(weekSentence(weeks[2]!)).toBe(
      'week of Nov 15: 40% on time; 2 on time, 2 late, 1 missing, 0 failed',
    );
  });
});
