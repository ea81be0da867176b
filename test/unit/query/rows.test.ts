/**
 * The datasets window's rows with their triage columns and filters (docs/architecture.md#incidents, issue 13 part 2),
 * against a real store: each row's cause and acknowledgement, the "cause" and "unacknowledged only"
 * filters as a table, the chips' counts under them, and keyset paging with page tokens bound to them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MirroredRow } from '../../../shared/rows';
import type { DatasetRecord } from '../../../shared/schemas';
import type { Stage } from '../../../shared/status';
import { listIncidents } from '../../../electron/query/incidents';
import { InvalidArgument } from '../../../electron/query/errors';
import { listRows, statusCounts } from '../../../electron/query/rows';
import { type SelectionText, parseSelection } from '../../../electron/query/selection';
import { acknowledge } from '../../../electron/store/tables/acknowledgements';
import { Store } from '../../../electron/store/database';
import { writeDataset, writeTasks } from '../../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { fixtureRecords, tasksFailingAt } from '../../helpers/fixtures';
import { regroup } from '../../helpers/incidents';

const ORG = 'acme';

type Tasks = { stage: Stage; code: string | null } | 'not-stored' | 'none-failed';

interface Spec {
  id: string;
  status: 'FAILED' | 'MISSING' | 'HEALTHY';
  supplier: string | null;
  tasks: Tasks;
  /** Acknowledged by sam: of its current failure, or of an earlier delivery (which no longer holds). */
  ack?: 'current' | 'stale';
}

function put(store: Store, spec: Spec): void {
  const base = fixtureRecords(1, 3, spec.id)[0]!;
  const deliveryId = `${spec.id}-d1`;
  const record: DatasetRecord = {
    ...base,
    datasetId: spec.id,
    datasetName: `Dataset ${spec.id}`,
    supplier:
      spec.supplier === null
        ? { id: null, name: null }
        : { id: spec.supplier, name: `Supplier ${spec.supplier}` },
    deliveryId,
    latestDeliveryStatus: spec.status,
    deliveryEventList: [
      {
        ...base.deliveryEventList[0]!,
        status: spec.status,
        deliveryId,
        deliveryDeadline: '2026-11-21T06:00:00.000Z',
        deliveredAt: spec.status === 'MISSING' ? null : '2026-11-21T06:10:00.000Z',
      },
    ],
  };
  store.transaction(() => {
    ensureOrg(store, ORG, new Date('2026-11-21T00:00:00.000Z'));
    writeDataset(store, ORG, record, { events: 'merge', deliveriesPerDataset: 100 });
    if (spec.tasks !== 'not-stored') {
      const tasks =
        spec.tasks === 'none-failed'
          ? tasksFailingAt(deliveryId, spec.id, null, null)
          : tasksFailingAt(deliveryId, spec.id, spec.tasks.stage, spec.tasks.code);
      writeTasks(store, ORG, deliveryId, tasks);
    }
    regroup(store, ORG, new Date('2026-11-21T09:00:00.000Z'));
    if (spec.ack)
      acknowledge(store, {
        orgId: ORG,
        datasetId: spec.id,
        deliveryId: spec.ack === 'current' ? deliveryId : `${spec.id}-older`,
        status: spec.status,
        causeId: null,
        note: `looking into ${spec.id}`,
        by: 'sam',
        at: '2026-11-21T07:00:00.000Z',
      });
  });
}

const DATASETS: Spec[] = [
  { id: 'auth-1', status: 'FAILED', supplier: 'sup-a', tasks: { stage: 'ingest', code: 'E_AUTH_FAILED' } },
  {
    id: 'auth-2',
    status: 'FAILED',
    supplier: 'sup-b',
    tasks: { stage: 'ingest', code: 'E_AUTH_FAILED' },
    ack: 'current',
  },
  {
    id: 'auth-3',
    status: 'FAILED',
    supplier: 'sup-b',
    tasks: { stage: 'ingest', code: 'E_AUTH_FAILED' },
    ack: 'stale',
  },
  { id: 'norm-1', status: 'FAILED', supplier: 'sup-a', tasks: { stage: 'normalize', code: 'E_SCHEMA' } },
  { id: 'nocode', status: 'FAILED', supplier: 'sup-a', tasks: { stage: 'process', code: null } },
  { id: 'unk-1', status: 'FAILED', supplier: 'sup-a', tasks: 'not-stored' },
  { id: 'unk-2', status: 'FAILED', supplier: 'sup-c', tasks: 'none-failed', ack: 'current' },
  { id: 'miss-1', status: 'MISSING', supplier: 'sup-a', tasks: 'not-stored' },
  { id: 'miss-2', status: 'MISSING', supplier: 'sup-a', tasks: 'not-stored', ack: 'current' },
  { id: 'miss-3', status: 'MISSING', supplier: null, tasks: 'not-stored' },
  { id: 'ok-1', status: 'HEALTHY', supplier: 'sup-a', tasks: 'not-stored' },
  { id: 'ok-2', status: 'HEALTHY', supplier: 'sup-b', tasks: { stage: 'ingest', code: 'E_AUTH_FAILED' } },
];

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  for (const spec of DATASETS) put(store, spec);
});
afterEach(() => store.close());

type Query = Omit<SelectionText, 'orgId' | 'filters' | 'sort'> & { filters?: string[]; sort?: string };

function selection(query: Query) {
  return parseSelection({ orgId: ORG, filters: [], sort: '', ...query });
}

/** Every row of the query, walking pages of `pageSize` with their tokens. */
function allRows(query: Query, pageSize = 1000): MirroredRow[] {
  const rows: MirroredRow[] = [];
  let pageToken: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const page = listRows(store, { ...selection(query), pageSize, pageToken });
    rows.push(...page.rows);
    if (page.nextPageToken === '') return rows;
    pageToken = page.nextPageToken;
  }
  throw new Error('paging did not end');
}

const ids = (query: Query, pageSize?: number) =>
  allRows(query, pageSize)
    .map((row) => row.datasetId)
    .sort();

describe('rows: cause and acknowledgement columns', () => {
  const byId = () => new Map(allRows({}).map((row) => [row.datasetId, row]));

  it.each([
    ['auth-1', 'ingest:E_AUTH_FAILED', 'Ingest failed: E_AUTH_FAILED'],
    ['norm-1', 'normalize:E_SCHEMA', 'Normalize failed: E_SCHEMA'],
    ['nocode', 'process:', 'Process failed: no code'],
    ['unk-1', 'unknown', 'Failed, cause not known yet'],
    ['unk-2', 'unknown', 'Failed, cause not known yet'],
    ['miss-1', 'missing:sup-a', 'MISSING from Supplier sup-a'],
    ['miss-3', 'missing:', 'MISSING from an unknown supplier'],
    ['ok-1', null, null],
    ['ok-2', null, null],
  ])('%s → %s (%s)', (id, causeId, causeTitle) => {
    expect(byId().get(id)).toMatchObject({ causeId, causeTitle });
  });

  it('carries the acknowledgement that holds, with who, when and the note; none for another delivery', () => {
    const rows = byId();
    expect(rows.get('auth-2')!.acknowledgement).toEqual({
      orgId: ORG,
      datasetId: 'auth-2',
      deliveryId: 'auth-2-d1',
      status: 'FAILED',
      causeId: null,
      note: 'looking into auth-2',
      by: 'sam',
      at: '2026-11-21T07:00:00.000Z',
      endedAt: null,
      endReason: null,
    });
    expect(rows.get('miss-2')!.acknowledgement?.by).toBe('sam');
    expect(rows.get('auth-3')!.acknowledgement).toBeNull();
    expect(rows.get('auth-1')!.acknowledgement).toBeNull();
    expect(rows.get('ok-1')!.acknowledgement).toBeNull();
  });

  it('agrees with the causes the Triage view lists, dataset by dataset', () => {
    const rows = byId();
    for (const cause of listIncidents(store, ORG))
      for (const dataset of cause.datasets) {
        expect(rows.get(dataset.datasetId)!.causeId).toBe(cause.causeId);
        expect(rows.get(dataset.datasetId)!.acknowledgement).toEqual(dataset.acknowledgement);
      }
  });
});

describe('rows: triage filters', () => {
  it.each<[string, Query, string[]]>([
    ['a failed cause', { cause: 'ingest:E_AUTH_FAILED' }, ['auth-1', 'auth-2', 'auth-3']],
    ['its stage in any case', { cause: 'INGEST:E_AUTH_FAILED' }, ['auth-1', 'auth-2', 'auth-3']],
    ['no shortCode', { cause: 'process:' }, ['nocode']],
    ['unknown (not stored, none failed)', { cause: 'unknown' }, ['unk-1', 'unk-2']],
    ['missing by supplier', { cause: 'missing:sup-a' }, ['miss-1', 'miss-2']],
    ['missing, unknown supplier', { cause: 'missing:' }, ['miss-3']],
    ['a cause nothing has now', { cause: 'dispatch:E_NOPE' }, []],
    [
      'unacknowledged only',
      { unacknowledged: true },
      ['auth-1', 'auth-3', 'miss-1', 'miss-3', 'nocode', 'norm-1', 'unk-1'],
    ],
    [
      'a cause, unacknowledged',
      { cause: 'ingest:E_AUTH_FAILED', unacknowledged: true },
      ['auth-1', 'auth-3'],
    ],
    ['unacknowledged with a search', { unacknowledged: true, search: 'miss' }, ['miss-1', 'miss-3']],
    [
      'a cause with a filter',
      { cause: 'ingest:E_AUTH_FAILED', filters: ['supplierId.eq.sup-b'] },
      ['auth-2', 'auth-3'],
    ],
    ['a cause and another status', { cause: 'missing:sup-a', filters: ['deliveryStatus.eq.FAILED'] }, []],
    ['null and false: no narrowing', { cause: null, unacknowledged: false }, DATASETS.map((d) => d.id)],
  ])('%s', (_name, query, expected) => {
    expect(ids(query)).toEqual([...expected].sort());
  });

  it('pages through a filtered query with its tokens, every match once, whatever the page size', () => {
    for (const query of [{ unacknowledged: true }, { cause: 'ingest:E_AUTH_FAILED' }] as Query[])
      for (const pageSize of [1, 2, 3]) expect(ids(query, pageSize)).toEqual(ids(query));
    const sorted = allRows({ unacknowledged: true, sort: 'latestDeliveryStatus.asc' }, 2).map(
      (r) => r.status,
    );
    expect(sorted.indexOf('MISSING')).toBeGreaterThan(sorted.lastIndexOf('FAILED'));
  });

  it('binds page tokens to the triage filters: one query’s token is refused by another', () => {
    const first = listRows(store, { ...selection({ cause: 'unknown' }), pageSize: 1, pageToken: null });
    expect(first.nextPageToken).not.toBe('');
    for (const other of [
      { cause: 'missing:sup-a' },
      {},
      { cause: 'unknown', unacknowledged: true },
    ] as Query[])
      expect(() =>
        listRows(store, { ...selection(other), pageSize: 1, pageToken: first.nextPageToken }),
      ).toThrow(InvalidArgument);
    // The same cause spelled another way is the same query.
    const again = listRows(store, {
      ...selection({ cause: 'UNKNOWN' }),
      pageSize: 1,
      pageToken: first.nextPageToken,
    });
    expect(again.rows).toHaveLength(1);
  });

  it('counts under the triage filters: the chips and the total', () => {
    const counts = (query: Query) => statusCounts(store, selection(query));
    expect(counts({ unacknowledged: true })).toMatchObject({
      byStatus: { FAILED: 5, MISSING: 2, HEALTHY: 0 },
      total: 7,
    });
    expect(counts({ cause: 'ingest:E_AUTH_FAILED', filters: ['deliveryStatus.eq.MISSING'] })).toMatchObject({
      byStatus: { FAILED: 3, MISSING: 0 },
      total: 0,
    });
    expect(counts({ cause: 'missing:sup-a', unacknowledged: true }).total).toBe(1);
  });

  it.each([
    ['nope', /cause: cause 'nope' is not STAGE:SHORTCODE/],
    ['stage:E_X', /unknown stage 'stage' \(allowed: ingest, normalize, process, dispatch, missing\)/],
    ['', /cause: a cause must be 1 to 300 characters/],
    ['x'.repeat(301), /cause: a cause must be 1 to 300 characters/],
  ])('refuses the cause %j naming the parameter', (cause, message) => {
    const parse = () => selection({ cause });
    expect(parse).toThrow(InvalidArgument);
    expect(parse).toThrow(expect.objectContaining({ field: 'cause' }));
    expect(parse).toThrow(message);
  });

  it('keeps the rows of a query without triage filters as they were', () => {
    expect(parseSelection({ orgId: ORG, filters: [], sort: '' })).toEqual({
      orgId: ORG,
      filters: [],
      sort: [],
      search: '',
    });
  });
});
