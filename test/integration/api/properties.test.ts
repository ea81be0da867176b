/** Property-based checks of the API (fast-check): no input answers 500; paging invariants hold. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { FILTER_FIELDS, type Filter, printFilter } from '../../../shared/filter';
import { ErrorBody } from '../../../shared/schemas';
import type { RowsPage } from '../../../shared/rows';
import { parseSort } from '../../../shared/sort';
import { createApiKey } from '../../../electron/store/tables/apiKeys';
import { writeDataset } from '../../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { HOST, NOW, type ApiFixture, apiFixture, walk } from '../../helpers/api';
import { type EngineClient, engineClient } from '../../helpers/engineClient';
import { fixtureRecords } from '../../helpers/fixtures';
import { expectedIds } from '../../helpers/reference';

let fixture: ApiFixture;
beforeAll(async () => {
  fixture = await apiFixture({}, 60);
});
afterAll(() => fixture.close());

const PARAMS = [
  'pageSize',
  'pageToken',
  'filter',
  'sort',
  'latestDeliveriesCount',
  'includeRunDetails',
  'other',
];
const nasty = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    '-1',
    '0',
    '1e3',
    '1.0',
    '99999999999999999999',
    'NaN',
    '%',
    '%zz',
    '%00',
    '..',
    '(',
    '"',
    '\\',
  ),
  fc
    .constantFrom(...Object.keys(FILTER_FIELDS))
    .chain((field) =>
      fc
        .tuple(fc.constantFrom('eq', 'neq', 'in', 'like', 'ilike', 'gt', ''), fc.string({ maxLength: 12 }))
        .map(([op, value]) => `${field}.${op}.${value}`),
    ),
);
const queryString = fc
  .array(fc.tuple(fc.constantFrom(...PARAMS), nasty), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&'));
const rawQueryString = fc.string({ unit: 'binary', maxLength: 60 }).map((s) => s.replace(/[#\s]/g, ''));

function checkAnswer(response: { statusCode: number; body: string; json(): unknown }): void {
  expect(response.statusCode).not.toBe(500);
  if (response.statusCode >= 400) expect(Value.Check(ErrorBody, response.json())).toBe(true);
  else expect(response.statusCode).toBe(200);
}

describe('no request answers 500', () => {
  it('random query strings on every endpoint', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/v2/ops/health/datasets/deliveries',
          '/v2/ops/health/datasets/ds-0001/deliveries',
          '/v2/ops/health/deliveries/ds-0000.X-dlv-0/tasks',
        ),
        fc.oneof(queryString, rawQueryString),
        async (path, query) => checkAnswer(await fixture.get(`${path}?${query}`)),
      ),
      { numRuns: 400, seed: 42 },
    );
  });

  it('random path ids', async () => {
    const id = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).map(encodeURIComponent),
      fc.string({ minLength: 1, maxLength: 30 }).map((s) => s.replace(/[/?#]/g, '')),
      fc.constantFrom('%zz', '%', '..', '.', '%2F', '%00', 'a%2Fb', '~'),
    );
    await fc.assert(
      fc.asyncProperty(id, fc.boolean(), async (value, dataset) => {
        const url = dataset
          ? `/v2/ops/health/datasets/${value}/deliveries`
          : `/v2/ops/health/deliveries/${value}/tasks`;
        checkAnswer(await fixture.get(url));
      }),
      { numRuns: 300, seed: 7 },
    );
  });
});

const valueFor = (field: keyof typeof FILTER_FIELDS): fc.Arbitrary<string> =>
  field === 'deliveryStatus'
    ? fc.constantFrom('FAILED', 'MISSING', 'DELIVERED_LATE', 'HEALTHY')
    : fc.oneof(
        fc.constantFrom('', 'ds-0001', 'EMEA Equity Prices EOD', 'sup-1', 'v1-3', 'Equity Prices'),
        fc.string({ maxLength: 5 }),
      );
const patternFor = fc
  .array(fc.constantFrom('*', 'a', 'E', 'e', 's', '-', '0', '1', ' ', 'ü', '?', '['), { maxLength: 6 })
  .map((parts) => parts.join(''));

const filterArb: fc.Arbitrary<Filter> = fc
  .constantFrom(...(Object.keys(FILTER_FIELDS) as (keyof typeof FILTER_FIELDS)[]))
  .chain((field) =>
    fc.constantFrom(...FILTER_FIELDS[field]).chain((op): fc.Arbitrary<Filter> => {
      if (op === 'in')
        return fc
          .array(valueFor(field), { minLength: 1, maxLength: 3 })
          .map((values) => ({ field, op, values }));
      if (op === 'like' || op === 'ilike') return patternFor.map((value) => ({ field, op, value }));
      return valueFor(field).map((value) => ({ field, op, value }));
    }),
  );

describe('paging invariants', () => {
  it('for random filters, sorts and page sizes: every match once each way, in the reference order', async () => {
    const sortArb = fc.constantFrom(
      [],
      [{ field: 'latestDeliveryStatus', direction: 'asc' }],
      [{ field: 'latestDeliveryTimestamp', direction: 'desc' }],
      [
        { field: 'latestDeliveryStatus', direction: 'desc' },
        { field: 'latestDeliveryTimestamp', direction: 'asc' },
      ],
    ) as fc.Arbitrary<
      { field: 'latestDeliveryStatus' | 'latestDeliveryTimestamp'; direction: 'asc' | 'desc' }[]
    >;
    await fc.assert(
      fc.asyncProperty(
        fc.array(filterArb, { maxLength: 2 }),
        sortArb,
        fc.integer({ min: 1, max: 25 }),
        async (filters, sort, size) => {
          const query = [
            ...filters.map((f) => `filter=${encodeURIComponent(printFilter(f))}`),
            ...(sort.length ? [`sort=${sort.map((k) => `${k.field}.${k.direction}`).join(',')}`] : []),
          ].join('&');
          const expected = expectedIds(fixture.records, filters, sort);
          const { forward, backward } = await walk(fixture, query, size);
          expect(forward).toEqual(expected);
          expect(backward).toEqual(expected);
        },
      ),
      { numRuns: 120, seed: 3 },
    );
  });
});

/**
 * Issue 15 item 5: page tokens stay valid for anything a dataset can hold. Ids and names up to 1,024
 * characters of any Unicode (astral characters, quotes, the filter grammar's and GLOB's specials) are
 * written straight to the store, below any import limit, and walked through both doors in every sort.
 */
describe('paging over long and unusual ids and names', () => {
  const unusual = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom('"', "'", ',', '.', '(', ')', '*', '%', '_', '\\', '?', '[', ' ', 'a', 'Z'),
    },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
    { weight: 1, arbitrary: fc.constantFrom('🙂', '𝔸', '\u{10FFFF}', '\uFFFF', 'é', 'İ') },
  );
  /** Mostly short, sometimes up to 1,024 UTF-16 code units (a long run of one character, then more). */
  const text = fc
    .oneof(
      fc.string({ unit: unusual, minLength: 1, maxLength: 8 }),
      fc
        .tuple(unusual, fc.integer({ min: 100, max: 1000 }), fc.string({ unit: unusual, maxLength: 4 }))
        .map(([ch, n, tail]) => `${ch.repeat(Math.ceil(n / ch.length))}${tail}`),
    )
    .map((t) => t.slice(0, 1024).replace(/[\uD800-\uDBFF]$/, 'x'));
  const datasets = fc.uniqueArray(fc.tuple(text, fc.option(text, { nil: null })), {
    minLength: 1,
    maxLength: 14,
    selector: ([id]) => id,
  });
  const SORTS = [
    '',
    'latestDeliveryStatus.asc',
    'latestDeliveryStatus.desc',
    'latestDeliveryTimestamp.asc',
    'latestDeliveryTimestamp.desc',
  ];

  let api: ApiFixture;
  let engine: EngineClient;
  beforeAll(async () => {
    api = await apiFixture({}, 1);
    engine = await engineClient({ datasets: 1 });
  });
  afterAll(async () => {
    await api.close();
    await engine.close();
  });

  let run = 0;
  it('walking next to the end and previous back visits each dataset once each way, no token refused', async () => {
    await fc.assert(
      fc.asyncProperty(datasets, fc.integer({ min: 1, max: 4 }), async (pairs, size) => {
        // A fresh org per run, in both stores: runs do not see each other's datasets.
        const orgId = `paging-${run++}`;
        const base = fixtureRecords(pairs.length, run, 'p');
        const records = pairs.map(([datasetId, datasetName], i) => ({ ...base[i]!, datasetId, datasetName }));
        for (const store of [api.store, engine.store]) {
          ensureOrg(store, orgId, NOW);
          store.transaction(() => {
            for (const record of records) {
              writeDataset(store, orgId, record, { events: 'replace', deliveriesPerDataset: 100 });
            }
          });
        }
        const key = createApiKey(api.store, orgId, 'paging', NOW).key;
        const door = {
          ...api,
          get: async (url: string) => {
            const response = await api.app.inject({
              method: 'GET',
              url,
              headers: { host: HOST, authorization: `Bearer ${key}` },
            });
            // No token is refused: a 400 here fails with its message, not as a short walk.
            expect(response.statusCode, response.body.slice(0, 300)).toBe(200);
            return response;
          },
        };
        for (const sort of SORTS) {
          const expected = expectedIds(records, [], parseSort(sort));
          const { forward, backward } = await walk(door, sort ? `sort=${sort}` : '', size);
          expect(forward).toEqual(expected);
          expect(backward).toEqual(expected);

          const seen: string[] = [];
          let pageToken: string | null = null;
          do {
            const page: RowsPage = await engine.client.call('datasets.rows', {
              orgId,
              filters: [],
              search: '',
              sort,
              pageSize: size,
              pageToken,
            });
            seen.push(...page.rows.map((row) => row.datasetId));
            pageToken = page.nextPageToken || null;
          } while (pageToken !== null && seen.length <= records.length);
          expect(seen).toEqual(expected);
        }
      }),
      { numRuns: 25, seed: 15 },
    );
  }, 120_000);
});
