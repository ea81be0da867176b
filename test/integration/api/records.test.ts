/** The single-dataset and tasks endpoints, record shapes, import round-trip, ETag, X-Synced-At, OpenAPI. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { markOrgSynced } from '../../../electron/store/tables/orgs';
import { importSnapshot, parseSnapshot } from '../../../electron/store/snapshot/importSnapshot';
import { DatasetRecord, ListPage, TasksRecord } from '../../../shared/schemas';
import { type ApiFixture, apiFixture, type Page } from '../../helpers/api';
import { fixtureTasks } from '../../helpers/fixtures';

let fixture: ApiFixture;
beforeAll(async () => {
  fixture = await apiFixture();
});
afterAll(() => fixture.close());

const ONE = (id: string, query = ''): string =>
  `/v2/ops/health/datasets/${encodeURIComponent(id)}/deliveries${query}`;
const TASKS = (id: string, query = ''): string =>
  `/v2/ops/health/deliveries/${encodeURIComponent(id)}/tasks${query}`;

describe('GET one dataset', () => {
  it('returns the imported record exactly (every field present, nulls kept)', async () => {
    for (const record of fixture.records.slice(0, 30)) {
      const response = await fixture.get(ONE(record.datasetId, '?latestDeliveriesCount=100'));
      expect(response.statusCode).toBe(200);
      const body = response.json() as DatasetRecord;
      expect(Value.Check(DatasetRecord, body)).toBe(true);
      expect(body).toEqual(record);
    }
  });

  it('falls back to legacyDatasetId when no dataset has that id', async () => {
    const legacy = fixture.records.find((r) => r.legacyDatasetId !== null)!;
    const body = (await fixture.get(ONE(legacy.legacyDatasetId!))).json() as DatasetRecord;
    expect(body.legacyDatasetId).toBe(legacy.legacyDatasetId);
  });

  it('includeRunDetails adds runDetails to every event (from stored tasks when known), in any case', async () => {
    const failed = fixture.records[0]!;
    for (const flag of ['true', 'TRUE', '1']) {
      const body = (
        await fixture.get(ONE(failed.datasetId, `?includeRunDetails=${flag}`))
      ).json() as DatasetRecord;
      expect(body.deliveryEventList.every((e) => Array.isArray(e.runDetails))).toBe(true);
      expect(body.deliveryEventList[0]!.runDetails).toEqual([
        {
          stage: 'ingest',
          runId: 'run-ingest',
          status: 'SUCCEEDED',
          startedAt: '2026-11-20T05:00:00.000Z',
          endedAt: '2026-11-20T05:10:00.000Z',
        },
        {
          stage: 'normalize',
          runId: 'run-normalize',
          status: 'FAILED',
          startedAt: '2026-11-20T05:00:00.000Z',
          endedAt: '2026-11-20T05:10:00.000Z',
        },
        {
          stage: 'dispatch',
          runId: 'run-dispatch',
          status: 'PENDING',
          startedAt: '2026-11-20T05:00:00.000Z',
          endedAt: '2026-11-20T05:10:00.000Z',
        },
      ]);
    }
    for (const flag of ['', '?includeRunDetails=false', '?includeRunDetails=0', '?includeRunDetails=False']) {
      const body = (await fixture.get(ONE(failed.datasetId, flag))).json() as DatasetRecord;
      expect(body.deliveryEventList.some((e) => 'runDetails' in e)).toBe(false);
    }
  });

  it('ids with dots, slashes and Unicode round-trip through the path', async () => {
    const store = fixture.store;
    const record = {
      ...fixture.records[1]!,
      datasetId: 'a/b.c ü?#%',
      deliveryEventList: [],
      deliveryId: null,
    };
    importSnapshot(store, 'acme', { datasets: [record], tasks: new Map() }, { now: new Date() });
    const response = await fixture.get(ONE(record.datasetId));
    expect(response.statusCode).toBe(200);
    expect((response.json() as DatasetRecord).datasetId).toBe(record.datasetId);
  });
});

describe('GET delivery tasks', () => {
  const failed = (): DatasetRecord => fixture.records[0]!;

  it('always has the four groups, tasks ordered by scheduledAt then taskId, runId only when asked', async () => {
    const plain = (await fixture.get(TASKS(failed().deliveryId!))).json() as TasksRecord;
    expect(Value.Check(TasksRecord, plain)).toBe(true);
    expect(Object.keys(plain)).toEqual(['ingest', 'normalize', 'process', 'dispatch']);
    expect(plain.ingest.tasks.map((t) => t.taskId)).toEqual(['t-1', 't-2']);
    expect(plain.process).toEqual({ status: 'PENDING', timestamp: null, tasks: [] });
    expect(plain.normalize.tasks[0]).toMatchObject({ shortCode: 'E_SCHEMA_MISMATCH', status: 'FAILED' });
    expect(plain.dispatch.tasks[0]!.details).toEqual({
      deliveryId: failed().deliveryId,
      destinationId: 'dest-1',
      destinationName: 'Research bucket',
      destinationType: 'S3',
      subscriberOrgId: 'org-sub',
    });
    expect(JSON.stringify(plain)).not.toContain('runId');
    const withRuns = (
      await fixture.get(TASKS(failed().deliveryId!, '?includeRunDetails=true'))
    ).json() as TasksRecord;
    expect(withRuns.ingest.tasks[0]!.details.runId).toBe('run-ingest');
    const expected = fixtureTasks(failed().deliveryId!, failed().datasetId);
    expect(withRuns.dispatch).toEqual(expected.dispatch);
  });
});

describe('list page shape', () => {
  it('matches the ListPage schema and the kind', async () => {
    const body = (await fixture.get('/v2/ops/health/datasets/deliveries?pageSize=20')).json() as Page;
    expect(Value.Check(ListPage, body)).toBe(true);
    expect(body.kind).toBe('ops#datasetHealthList');
    expect(body.previousPageToken).toBe('');
  });
});

describe('import → API round trip', () => {
  it('timestamps in other RFC 3339 forms come back normalized to UTC with milliseconds', async () => {
    const record = {
      ...fixture.records[2]!,
      datasetId: 'tz-test',
      // A delivery belongs to one dataset: the copy gets its own.
      deliveryId: 'tz-test-dlv',
      latestDeliveryTimestamp: '2026-11-21T05:41:00+01:00',
      nextExpectedDeliveryTimestamp: '2026-11-22T06:30:00',
      deliveryEventList: [
        {
          ...fixture.records[2]!.deliveryEventList[0]!,
          deliveryId: 'tz-test-dlv',
          deliveredAt: '2026-11-20T06:01:02.5-05:30',
          deliveryDeadline: '2026-11-20 06:30:00Z',
        },
      ],
    };
    const parsed = parseSnapshot(JSON.stringify({ datasets: [record] }));
    importSnapshot(fixture.store, 'acme', parsed, { now: new Date() });
    const body = (await fixture.get(ONE('tz-test'))).json() as DatasetRecord;
    expect(body.latestDeliveryTimestamp).toBe('2026-11-21T04:41:00.000Z');
    expect(body.nextExpectedDeliveryTimestamp).toBe('2026-11-22T06:30:00.000Z');
    expect(body.deliveryEventList[0]!.deliveredAt).toBe('2026-11-20T11:31:02.500Z');
    expect(body.deliveryEventList[0]!.deliveryDeadline).toBe('2026-11-20T06:30:00.000Z');
  });
});

describe('caching headers', () => {
  it('ETag answers 304 until the data changes; X-Synced-At is never until a sync', async () => {
    const url = '/v2/ops/health/datasets/deliveries?pageSize=3';
    const first = await fixture.get(url);
    expect(first.headers['x-synced-at']).toBe('never');
    const etag = String(first.headers.etag);
    const again = await fixture.get(url, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers['x-synced-at']).toBe('never');
    expect(
      (await fixture.get(`${url}&sort=latestDeliveryStatus`, { 'if-none-match': etag })).statusCode,
    ).toBe(200);
    markOrgSynced(fixture.store, 'acme', new Date('2026-11-21T04:00:00.000Z'));
    const changed = await fixture.get(url, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers['x-synced-at']).toBe('2026-11-21T04:00:00.000Z');
    expect(changed.headers['cache-control']).toBe('no-store');
  });

  it('HEAD answers like GET without a body', async () => {
    const response = await fixture.app.inject({
      method: 'HEAD',
      url: ONE(fixture.records[3]!.datasetId),
      headers: { host: '127.0.0.1:47800', authorization: `Bearer ${fixture.key}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('');
    expect(response.headers.etag).toBeTruthy();
  });
});

describe('OpenAPI', () => {
  it('documents exactly the three v2 endpoints, unauthenticated, from the request schemas', async () => {
    const response = await fixture.app.inject({
      url: '/v2/openapi.json',
      headers: { host: '127.0.0.1:47800' },
    });
    expect(response.statusCode).toBe(200);
    const doc = response.json() as {
      openapi: string;
      paths: Record<
        string,
        { get: { parameters: { name: string; in: string }[]; responses: Record<string, unknown> } }
      >;
    };
    expect(doc.openapi).toMatch(/^3\./);
    // The /local/v1 endpoints have their own test (local*.test.ts).
    const v2 = Object.keys(doc.paths).filter((path) => path.startsWith('/v2/'));
    expect(v2.sort()).toEqual([
      '/v2/ops/health/datasets/deliveries',
      '/v2/ops/health/datasets/{datasetId}/deliveries',
      '/v2/ops/health/deliveries/{deliveryId}/tasks',
    ]);
    for (const path of v2) expect(Object.keys(doc.paths[path]!)).toEqual(['get']);
    const list = doc.paths['/v2/ops/health/datasets/deliveries']!.get;
    expect(list.parameters.map((p) => p.name).sort()).toEqual(
      ['filter', 'latestDeliveriesCount', 'pageSize', 'pageToken', 'sort'].sort(),
    );
    expect(Object.keys(list.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '404', '429']));
  });
});

describe('export → import keeps run details as the source gave them', () => {
  it('events without stored run details derive them from tasks that arrive later', async () => {
    const { exportSnapshot } = await import('../../../electron/query/exportSnapshot');
    const { writeTasks } = await import('../../../electron/store/tables/datasetWriter');
    const record = fixture.records[5]!;
    let text = '';
    exportSnapshot(fixture.store, 'acme', (chunk) => (text += chunk));
    const exported = parseSnapshot(text);
    const again = exported.datasets.find((r) => r.datasetId === record.datasetId)!;
    expect(again.deliveryEventList.every((e) => e.runDetails === undefined)).toBe(true);
    importSnapshot(fixture.store, 'acme', { datasets: [again], tasks: new Map() }, { now: new Date() });
    const deliveryId = record.deliveryEventList[0]!.deliveryId!;
    writeTasks(fixture.store, 'acme', deliveryId, fixtureTasks(deliveryId, record.datasetId));
    const body = (
      await fixture.get(ONE(record.datasetId, '?includeRunDetails=true'))
    ).json() as DatasetRecord;
    expect(body.deliveryEventList[0]!.runDetails!.map((r) => r.stage)).toEqual([
      'ingest',
      'normalize',
      'dispatch',
    ]);
  });
});
