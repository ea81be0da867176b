/** Contract of GET /v2/ops/health/datasets/deliveries (docs/api.md#list), checked against a reference model. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILTER_FIELDS, type Filter, parseFilter } from '../../../shared/filter';
import { parseSort } from '../../../shared/sort';
import { type ApiFixture, apiFixture, type Page, walk } from '../../helpers/api';
import { expectedIds } from '../../helpers/reference';

let fixture: ApiFixture;
beforeAll(async () => {
  fixture = await apiFixture();
});
afterAll(() => fixture.close());

const q = (filters: string[]): string => filters.map((f) => `filter=${encodeURIComponent(f)}`).join('&');

/** Values worth trying per field: present, other case, empty, absent, and wildcard patterns. */
const VALUES: Record<keyof typeof FILTER_FIELDS, { exact: string[]; patterns: string[] }> = {
  legacyDatasetId: { exact: ['v1-3', 'V1-3', '', 'v1-99'], patterns: [] },
  datasetId: {
    exact: ['ds-0007', 'DS-0007', 'ds-0011.X', '', 'nope'],
    patterns: ['*', 'ds-00*', '*.X', '*.x', 'DS-001*', '*0?', 'ds-*-*', ''],
  },
  datasetName: {
    exact: [
      'EMEA Equity Prices EOD',
      'emea equity prices eod',
      '',
      'Rates [v2]?',
      'comma, (paren) "quote"',
      'zzz',
    ],
    patterns: [
      '*',
      'EMEA*',
      '*eod',
      '*EOD',
      '*equity*',
      'stra*',
      'STRASSE*',
      '*[v2]?',
      '100%*',
      '*_ratio',
      'back\\*',
      'a.b.c',
      '*🙂*',
      '',
      '*"quote"',
      'i̇*',
      'İ*',
      'ÉQUITÉ*',
      '*a*a*a*a*a*a*a*a*a*a*b',
      '*****',
    ],
  },
  deliveryStatus: { exact: ['FAILED', 'MISSING', 'DELIVERED_LATE', 'HEALTHY'], patterns: [] },
  dataProduct: {
    exact: ['Equity Prices', 'équité', 'ÉQUITÉ', ''],
    patterns: ['*Prices', '*PRICES', 'é*', ''],
  },
  supplierId: { exact: ['sup-1', 'SUP-1', 'sup-2*', ''], patterns: ['sup-*', 'SUP-*', 'sup-2\\*', '*2[*]'] },
  deliveryId: { exact: ['ds-0002-dlv-0', 'ds-0002-dlv-1', ''], patterns: [] },
};

function cases(): string[] {
  const out: string[] = [];
  for (const [field, operators] of Object.entries(FILTER_FIELDS)) {
    const values = VALUES[field as keyof typeof VALUES];
    for (const op of operators) {
      if (op === 'like' || op === 'ilike') for (const p of values.patterns) out.push(`${field}.${op}.${p}`);
      else if (op === 'in') {
        const quoted = values.exact.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`);
        out.push(`${field}.in.(${quoted.join(',')})`, `${field}.in.(${quoted[0]})`);
      } else for (const v of values.exact) out.push(`${field}.${op}.${v}`);
    }
  }
  return out;
}

describe('filters: every field × operator agrees with the reference model', () => {
  it.each(cases())('%s', async (text) => {
    const filter: Filter = parseFilter(text);
    const expected = expectedIds(fixture.records, [filter], []);
    const { forward, backward } = await walk(fixture, q([text]), 13);
    expect(forward).toEqual(expected);
    expect(backward).toEqual(expected);
  });

  it('the cases are not vacuous: most match something and most exclude something', () => {
    const counts = cases().map((t) => expectedIds(fixture.records, [parseFilter(t)], []).length);
    expect(counts.filter((n) => n > 0).length).toBeGreaterThan(counts.length * 0.6);
    expect(counts.filter((n) => n < fixture.records.length).length).toBeGreaterThan(counts.length * 0.6);
  });

  it('repeated filters are ANDed', async () => {
    const texts = [
      'deliveryStatus.in.(FAILED,MISSING,HEALTHY)',
      'datasetName.ilike.*e*',
      'supplierId.neq.sup-1',
    ];
    const expected = expectedIds(fixture.records, texts.map(parseFilter), []);
    expect(expected.length).toBeGreaterThan(0);
    expect((await walk(fixture, q(texts), 5)).forward).toEqual(expected);
  });

  it('another org never shows', async () => {
    const { forward } = await walk(fixture, '', 50);
    expect(forward).toHaveLength(fixture.records.length);
    expect(forward.some((id) => id.startsWith('other-'))).toBe(false);
  });
});

describe('sort', () => {
  const sorts = [
    '',
    'latestDeliveryStatus',
    'latestDeliveryStatus.asc',
    'latestDeliveryStatus.desc',
    'latestDeliveryTimestamp',
    'latestDeliveryTimestamp.desc',
    'latestDeliveryStatus,latestDeliveryTimestamp.desc',
    'latestDeliveryStatus.desc,latestDeliveryTimestamp',
    'latestDeliveryTimestamp.desc,latestDeliveryStatus',
    'latestDeliveryTimestamp,latestDeliveryStatus.desc',
  ];
  it.each(sorts)('sort=%s orders like the reference, with name/id tie-breaks, both ways', async (sort) => {
    const expected = expectedIds(fixture.records, [], parseSort(sort));
    const { forward, backward } = await walk(fixture, sort ? `sort=${sort}` : '', 9);
    expect(forward).toEqual(expected);
    expect(backward).toEqual(expected);
  });

  it('status ascending puts FAILED first, other statuses after HEALTHY and empty ones last', async () => {
    const page = (
      await fixture.get('/v2/ops/health/datasets/deliveries?sort=latestDeliveryStatus&pageSize=1000')
    ).json() as Page;
    const statuses = page.items.map((r) => r.latestDeliveryStatus);
    expect(statuses[0]).toBe('FAILED');
    const lastHealthy = statuses.lastIndexOf('HEALTHY');
    expect(statuses.indexOf('IN_PROGRESS')).toBeGreaterThan(lastHealthy);
    expect(statuses.indexOf('failed')).toBeGreaterThan(lastHealthy);
    const firstEmpty = statuses.findIndex((s) => s === null || s === '');
    expect(statuses.slice(firstEmpty).every((s) => s === null || s === '')).toBe(true);
  });
});

describe('paging', () => {
  it.each([1, 2, 7, 50, 1000])('pageSize %i visits every dataset exactly once each way', async (size) => {
    const { forward, backward, pages } = await walk(fixture, 'sort=latestDeliveryTimestamp.desc', size);
    expect(new Set(forward).size).toBe(fixture.records.length);
    expect(backward).toEqual(forward);
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(fixture.records.length / size));
  });

  it('pageSize may change between pages', async () => {
    const base = '/v2/ops/health/datasets/deliveries?latestDeliveriesCount=0';
    const first = (await fixture.get(`${base}&pageSize=3`)).json() as Page;
    const second = (await fixture.get(`${base}&pageSize=10&pageToken=${first.nextPageToken}`)).json() as Page;
    const all = (await fixture.get(`${base}&pageSize=13`)).json() as Page;
    expect([...first.items, ...second.items].map((r) => r.datasetId)).toEqual(
      all.items.map((r) => r.datasetId),
    );
  });

  it('pageSize defaults to 50, 0 means the default, above 1000 counts as 1000', async () => {
    const sizes = [];
    for (const query of ['', 'pageSize=0', 'pageSize=5000']) {
      const page = (
        await fixture.get(`/v2/ops/health/datasets/deliveries?latestDeliveriesCount=0&${query}`)
      ).json() as Page;
      sizes.push(page.items.length);
    }
    expect(sizes).toEqual([50, 50, fixture.records.length]);
  });

  it('a page walk stays exact while other datasets are written between pages', async () => {
    const extra = await apiFixture({}, 60);
    try {
      const base =
        '/v2/ops/health/datasets/deliveries?latestDeliveriesCount=0&pageSize=10&sort=latestDeliveryStatus';
      const seen: string[] = [];
      let page = (await extra.get(base)).json() as Page;
      seen.push(...page.items.map((r) => r.datasetId));
      const { importSnapshot } = await import('../../../electron/store/snapshot/importSnapshot');
      const { fixtureRecords } = await import('../../helpers/fixtures');
      let round = 0;
      while (page.nextPageToken) {
        // A sync adds new datasets between pages; the datasets that existed must each appear once.
        const added = fixtureRecords(3, 1000 + round, `new${round++}`);
        importSnapshot(extra.store, 'acme', { datasets: added, tasks: new Map() }, { now: new Date() });
        page = (
          await extra.get(`${base}&pageToken=${encodeURIComponent(page.nextPageToken)}`)
        ).json() as Page;
        seen.push(...page.items.map((r) => r.datasetId));
      }
      const original = extra.records.map((r) => r.datasetId);
      for (const id of original) expect(seen.filter((s) => s === id)).toHaveLength(1);
    } finally {
      await extra.close();
    }
  });

  it('events: latestDeliveriesCount limits each record, newest first; above 100 counts as 100', async () => {
    for (const [query, limit] of [
      ['', 10],
      ['latestDeliveriesCount=0', 0],
      ['latestDeliveriesCount=2', 2],
      ['latestDeliveriesCount=500', 100],
    ] as const) {
      const page = (
        await fixture.get(`/v2/ops/health/datasets/deliveries?pageSize=1000&${query}`)
      ).json() as Page;
      for (const record of page.items) {
        const stored = fixture.records.find((r) => r.datasetId === record.datasetId)!;
        expect(record.deliveryEventList).toEqual(stored.deliveryEventList.slice(0, limit));
      }
    }
  });
});
