/**
 * The datasets view's state in the URL: whatever the user sets (status chips, filters, search, sort)
 * comes back the same from the link, defaults stay out of it, and the engine's query is built from it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LocationQuery, parseQuery, stringifyQuery } from 'vue-router';
import {
  DEFAULT_SORT,
  type DatasetsViewState,
  toDatasetQuery,
  viewStateFromQuery,
  viewStateToQuery,
} from '../../../../renderer/src/lib/viewState';
import { parseFilter } from '../../../../shared/filter';
import { DELIVERY_STATUSES } from '../../../../shared/status';

const DEFAULTS: DatasetsViewState = {
  statuses: [],
  filters: [],
  search: '',
  sort: DEFAULT_SORT,
  cause: null,
  unacknowledged: false,
};

const state = (overrides: Partial<DatasetsViewState>): DatasetsViewState => ({ ...DEFAULTS, ...overrides });

/** The query of a URL as the router parses it (`?` excluded). */
const fromUrl = (search: string): LocationQuery => parseQuery(search);

/** Through the address bar: state → query → URL text → query → state. */
const throughUrl = (s: DatasetsViewState): DatasetsViewState =>
  viewStateFromQuery(parseQuery(stringifyQuery(viewStateToQuery(s))));

/** Text a user may type, with the characters that mean something in a URL or in the filter grammar. */
const text = (minLength: number) =>
  fc.string({
    minLength,
    maxLength: 30,
    unit: fc.oneof(
      fc.constantFrom(...'&=+#%?;/ .,()"\\*'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    ),
  });

const filterText = fc.oneof(
  // Canonical filters as the filter bar writes them…
  fc
    .tuple(
      fc.constantFrom('datasetName', 'datasetId', 'dataProduct', 'supplierId'),
      fc.constantFrom('eq', 'neq', 'like', 'ilike'),
      text(0),
    )
    .map(([field, op, value]) => `${field}.${op}.${value}`),
  fc
    .subarray([...DELIVERY_STATUSES], { minLength: 1 })
    .map((statuses) => `deliveryStatus.in.(${statuses.join(',')})`),
  // …and anything else a hand-edited link holds.
  text(1),
);

const viewStates: fc.Arbitrary<DatasetsViewState> = fc.record({
  // In contract order, as the status chips write them.
  statuses: fc.subarray([...DELIVERY_STATUSES]),
  filters: fc.array(filterText, { maxLength: 4 }),
  search: fc.oneof(fc.constant(''), text(1)),
  sort: fc.oneof(
    fc.constant(DEFAULT_SORT),
    fc.constant(''),
    fc
      .tuple(
        fc.constantFrom('latestDeliveryStatus', 'latestDeliveryTimestamp', 'datasetName'),
        fc.constantFrom('asc', 'desc'),
      )
      .map(([field, direction]) => `${field}.${direction}`),
    text(1),
  ),
  cause: fc.oneof(
    fc.constant(null),
    fc.constantFrom('ingest:E_AUTH_FAILED', 'missing:SUP-1', 'missing:', 'unknown'),
    text(1),
  ),
  unacknowledged: fc.boolean(),
});

describe('the datasets view state in the URL', () => {
  it('comes back unchanged from its query, for any chips, filters, search and sort', () => {
    fc.assert(
      fc.property(viewStates, (s) => {
        expect(viewStateFromQuery(viewStateToQuery(s) as LocationQuery)).toEqual(s);
      }),
      { numRuns: 500 },
    );
  });

  it('comes back unchanged from the link text, whatever characters the search and filters hold', () => {
    fc.assert(
      fc.property(viewStates, (s) => {
        expect(throughUrl(s)).toEqual(s);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps defaults out of the URL: an untouched view has a bare link', () => {
    expect(viewStateToQuery(DEFAULTS)).toEqual({});
    expect(stringifyQuery(viewStateToQuery(DEFAULTS))).toBe('');
    expect(viewStateFromQuery({})).toEqual(DEFAULTS);
  });

  it('writes a parameter exactly for each part that differs from its default', () => {
    fc.assert(
      fc.property(viewStates, (s) => {
        const query = viewStateToQuery(s);
        expect('status' in query).toBe(s.statuses.length > 0);
        expect('f' in query).toBe(s.filters.length > 0);
        expect('q' in query).toBe(s.search !== '');
        expect('sort' in query).toBe(s.sort !== DEFAULT_SORT);
        expect('cause' in query).toBe(s.cause !== null);
        expect('unack' in query).toBe(s.unacknowledged);
      }),
    );
  });

  it('writes the chips as one comma-separated status parameter and each filter as its own f', () => {
    const s = state({
      statuses: ['FAILED', 'MISSING'],
      filters: ['datasetName.ilike.*fx*', 'supplierId.eq.acme'],
      search: 'rates',
      sort: 'latestDeliveryTimestamp.desc',
    });
    expect(stringifyQuery(viewStateToQuery(s))).toBe(
      'status=FAILED,MISSING&f=datasetName.ilike.*fx*&f=supplierId.eq.acme&q=rates&sort=latestDeliveryTimestamp.desc',
    );
  });

  it('writes the triage filters as cause=ID and unack=1, and reads them back', () => {
    const s = state({ cause: 'ingest:E_AUTH_FAILED', unacknowledged: true });
    expect(stringifyQuery(viewStateToQuery(s))).toBe('cause=ingest:E_AUTH_FAILED&unack=1');
    expect(viewStateFromQuery(fromUrl('cause=missing:SUP-1&unack=1'))).toEqual(
      state({ cause: 'missing:SUP-1', unacknowledged: true }),
    );
    // An empty cause is none; unack is on only as 1.
    expect(viewStateFromQuery(fromUrl('cause=&unack=yes'))).toEqual(DEFAULTS);
  });

  it('keeps the "Name" sort (an empty sort text) apart from the default sort', () => {
    const byName = state({ sort: '' });
    expect(stringifyQuery(viewStateToQuery(byName))).toBe('sort=');
    expect(throughUrl(byName).sort).toBe('');
  });

  it('reads every repeated f parameter, in order, skipping empty ones', () => {
    expect(viewStateFromQuery(fromUrl('f=supplierId.eq.acme&f=&f=datasetName.ilike.*fx*')).filters).toEqual([
      'supplierId.eq.acme',
      'datasetName.ilike.*fx*',
    ]);
    expect(viewStateFromQuery(fromUrl('f=supplierId.eq.acme')).filters).toEqual(['supplierId.eq.acme']);
    expect(viewStateFromQuery(fromUrl('f')).filters).toEqual([]);
  });

  it('drops statuses it does not know (wrong case included) and repeated ones', () => {
    expect(viewStateFromQuery(fromUrl('status=FAILED,BROKEN,healthy,,HEALTHY,FAILED')).statuses).toEqual([
      'FAILED',
      'HEALTHY',
    ]);
    expect(viewStateFromQuery(fromUrl('status=nothing')).statuses).toEqual([]);
  });

  it('reads statuses from repeated status parameters too, in contract order', () => {
    expect(viewStateFromQuery(fromUrl('status=MISSING&status=FAILED,DELIVERED_LATE')).statuses).toEqual([
      'FAILED',
      'MISSING',
      'DELIVERED_LATE',
    ]);
  });

  it('takes the first search and sort when a link repeats them', () => {
    const s = viewStateFromQuery(fromUrl('q=first&q=second&sort=datasetName.desc&sort=datasetName.asc'));
    expect(s.search).toBe('first');
    expect(s.sort).toBe('datasetName.desc');
  });

  it('falls back to the default sort and no search when the parameters carry no value', () => {
    expect(viewStateFromQuery(fromUrl('q&sort'))).toEqual(DEFAULTS);
  });
});

describe("the engine's query for the view", () => {
  it('turns the pressed chips into one deliveryStatus.in filter, in status order, before the other filters', () => {
    const query = toDatasetQuery(
      'org-1',
      state({
        statuses: ['FAILED', 'DELIVERED_LATE', 'HEALTHY'],
        filters: ['datasetName.ilike.*fx*', 'supplierId.eq.acme'],
        search: 'rates',
        sort: 'datasetName.asc',
      }),
    );
    expect(query).toEqual({
      orgId: 'org-1',
      filters: [
        'deliveryStatus.in.(FAILED,DELIVERED_LATE,HEALTHY)',
        'datasetName.ilike.*fx*',
        'supplierId.eq.acme',
      ],
      search: 'rates',
      sort: 'datasetName.asc',
    });
  });

  it('passes the triage filters only when set', () => {
    expect(toDatasetQuery('org-1', state({ cause: 'unknown', unacknowledged: true }))).toEqual({
      orgId: 'org-1',
      filters: [],
      search: '',
      sort: DEFAULT_SORT,
      cause: 'unknown',
      unacknowledged: true,
    });
    const plain = toDatasetQuery('org-1', DEFAULTS);
    expect('cause' in plain || 'unacknowledged' in plain).toBe(false);
  });

  it('adds no status filter when no chip is pressed', () => {
    expect(toDatasetQuery('org-1', state({ filters: ['supplierId.eq.acme'] }))).toEqual({
      orgId: 'org-1',
      filters: ['supplierId.eq.acme'],
      search: '',
      sort: DEFAULT_SORT,
    });
  });

  it('has exactly one status filter plus the view filters, unchanged and in order, for any state', () => {
    fc.assert(
      fc.property(viewStates, (s) => {
        const { filters } = toDatasetQuery('org-1', s);
        const chips = s.statuses.length > 0 ? 1 : 0;
        expect(filters.length).toBe(chips + s.filters.length);
        expect(filters.slice(chips)).toEqual(s.filters);
        if (chips) expect(filters[0]).toBe(`deliveryStatus.in.(${s.statuses.join(',')})`);
        if (chips)
          expect(parseFilter(filters[0]!)).toEqual({ field: 'deliveryStatus', op: 'in', values: s.statuses });
      }),
    );
  });

  // BUG (renderer/src/lib/viewState.ts): a link listing statuses out of contract order (hand-edited or
  // from another tool) keeps that order in the engine's filter, so the same rows are asked for with a
  // different filter text. `it.fails` keeps the suite green until toDatasetQuery (or viewStateFromQuery)
  // puts the statuses in contract order; then drop `.fails`.
  it('asks for the same status filter whatever order a link lists the statuses in', () => {
    const a = toDatasetQuery('org-1', viewStateFromQuery(fromUrl('status=HEALTHY,FAILED')));
    const b = toDatasetQuery('org-1', viewStateFromQuery(fromUrl('status=FAILED,HEALTHY')));
    expect(a.filters).toEqual(['deliveryStatus.in.(FAILED,HEALTHY)']);
    expect(b.filters).toEqual(a.filters);
  });
});
