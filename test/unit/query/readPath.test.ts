/**
 * The one read path both doors share (docs/architecture.md#one-list-request-through-both-doors): a selection parsed once, with the query layer's
 * InvalidArgument naming the bad parameter, and the tasks read that asks the remote only for tasks never
 * synced.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidArgument } from '../../../electron/query/errors';
import { canonicalSelection, parseSelection } from '../../../electron/query/selection';
import { readDeliveryTasks, type TasksResult } from '../../../electron/query/tasks';
import { Store } from '../../../electron/store/database';
import { writeDataset, writeTasks } from '../../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { fixtureRecords, fixtureTasks } from '../../helpers/fixtures';

describe('parseSelection', () => {
  it.each([
    { filters: ['datasetName.gt.x'], sort: '', field: 'filter' },
    { filters: ['deliveryStatus.eq.failed'], sort: '', field: 'filter' },
    { filters: ['nope'], sort: '', field: 'filter' },
    { filters: [], sort: 'latestDeliveryStatus.ASC', field: 'sort' },
    { filters: [], sort: 'datasetName', field: 'sort' },
  ])('refuses $filters / "$sort" naming $field', ({ filters, sort, field }) => {
    const parse = () => parseSelection({ orgId: 'acme', filters, sort });
    expect(parse).toThrow(InvalidArgument);
    expect(parse).toThrow(expect.objectContaining({ field }));
  });

  it('parses filters and sort into their typed form, with no search by default', () => {
    const selection = parseSelection({
      orgId: 'acme',
      filters: ['datasetName.like.a.b*'],
      sort: 'latestDeliveryTimestamp.desc',
    });
    expect(selection).toEqual({
      orgId: 'acme',
      filters: [{ field: 'datasetName', op: 'like', value: 'a.b*' }],
      sort: [{ field: 'latestDeliveryTimestamp', direction: 'desc' }],
      search: '',
    });
  });

  it('gives the same canonical texts whatever the filters’ order, and binds a search', () => {
    const a = parseSelection({ orgId: 'o', filters: ['datasetId.eq.x', 'supplierId.eq.y'], sort: '' });
    const b = parseSelection({ orgId: 'o', filters: ['supplierId.eq.y', 'datasetId.eq.x'], sort: '' });
    expect(canonicalSelection(a)).toEqual(canonicalSelection(b));
    const searched = parseSelection({ orgId: 'o', filters: [], sort: '', search: '  acme ' });
    expect(canonicalSelection(searched).filters).toEqual(['search:acme']);
  });
});

describe('readDeliveryTasks', () => {
  let store: Store;
  const [record] = fixtureRecords(1);
  const deliveryId = record!.deliveryId!;
  const request = { orgId: 'acme', deliveryId, includeRunDetails: false };
  const found = (result: TasksResult) => (result.found ? 'found' : result.reason);

  beforeEach(async () => {
    store = await Store.open({ dataDir: null });
    ensureOrg(store, 'acme', new Date('2026-01-01T00:00:00Z'));
    writeDataset(store, 'acme', record!, { events: 'merge', deliveriesPerDataset: 100 });
  });
  afterEach(() => store.close());

  it('answers stored tasks without asking the remote', async () => {
    writeTasks(store, 'acme', deliveryId, fixtureTasks(deliveryId, record!.datasetId));
    const asked: string[] = [];
    const readThrough = async (_org: string, id: string) => (asked.push(id), true);
    expect(await readDeliveryTasks(store, request, readThrough, found)).toBe('found');
    expect(asked).toEqual([]);
  });

  it('asks the remote for tasks never synced, then answers from the store', async () => {
    const readThrough = async (orgId: string, id: string) => {
      writeTasks(store, orgId, id, fixtureTasks(id, record!.datasetId));
      return true;
    };
    expect(await readDeliveryTasks(store, request, readThrough, found)).toBe('found');
  });

  it.each([
    { name: 'the remote cannot be reached', readThrough: async () => false },
    { name: 'there is no remote', readThrough: undefined },
  ])('says the tasks were never synced when $name', async ({ readThrough }) => {
    expect(await readDeliveryTasks(store, request, readThrough, found)).toBe('tasks-not-synced');
  });

  it('never asks the remote about a delivery the store does not know', async () => {
    const asked: string[] = [];
    const readThrough = async (_org: string, id: string) => (asked.push(id), true);
    const unknown = { ...request, deliveryId: 'no-such-delivery' };
    expect(await readDeliveryTasks(store, unknown, readThrough, found)).toBe('unknown-delivery');
    expect(asked).toEqual([]);
  });
});
