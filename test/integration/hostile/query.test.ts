/**
 * Hostile selections (issue 15 items 1, 2, 5), as tables in the manner of security regression tests: each
 * row is an input, the status and message it must get, through both doors that parse selections (the v2
 * list over HTTP, the window's RPC through dispatch), and a check that the stored data did not change.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError } from '../../../shared/rpc';
import type { Store } from '../../../electron/store/database';
import { createApiKey } from '../../../electron/store/tables/apiKeys';
import { writeDataset } from '../../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { HOST, NOW, type ApiFixture, apiFixture, walk } from '../../helpers/api';
import { fixtureRecords } from '../../helpers/fixtures';
import { ENGINE_ORG, type EngineClient, engineClient } from '../../helpers/engineClient';

let api: ApiFixture;
let engine: EngineClient;
beforeAll(async () => {
  api = await apiFixture({}, 40);
  engine = await engineClient({ datasets: 40 });
});
afterAll(async () => {
  await api.close();
  await engine.close();
});

/** Every stored row of the tables a query reads, hashed: equal hashes mean nothing changed. */
function storedData(store: Store): string {
  const hash = createHash('sha256');
  for (const table of ['datasets', 'events', 'orgs']) {
    hash.update(
      JSON.stringify(
        store
          .all(`SELECT * FROM ${table}`)
          .map((row) => JSON.stringify(row))
          .sort(),
      ),
    );
  }
  return hash.digest('hex');
}

/** `datasetId.in.(x,x,…)` with `count` items: 2,041 of them make 4,096 characters, the RPC's cap. */
const inList = (count: number): string => `datasetId.in.(${Array(count).fill('x').join(',')})`;
const inLists = (filters: number, items: number): string[] => Array(filters).fill(inList(items));

interface Row {
  name: string;
  filters?: string[];
  search?: string;
  /** 200, or 400 with a message matching `message`. */
  status: 200 | 400;
  message?: RegExp;
  /** The field the v2 error names (default filter). */
  field?: string;
}

const CONTROL = ['\u0000', '\u0001', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f'];
const controlText = (ch: string) =>
  `control character '\\${ch === '\t' ? 't' : ch === '\n' ? 'n' : ch === '\r' ? 'r' : `u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`}'`;

const SIZE_ROWS: Row[] = [
  { name: 'a few short in lists', filters: inLists(5, 100), status: 200 },
  { name: '5,000 in items in all (the limit)', filters: inLists(10, 500), status: 200 },
  {
    name: '5,001 in items in all',
    filters: [...inLists(10, 500), inList(1)],
    status: 400,
    message: /^filter: the 'in' lists may hold at most 5,000 items in all \(5,001 given\)$/,
  },
  {
    name: '51 filters',
    filters: Array.from({ length: 51 }, (_, i) => `datasetId.neq.x${i}`),
    status: 400,
    // The v2 schema caps repeated filters at 50 first; its message names the same limit.
    message: /50/,
  },
];

/** Rows too big for the v2 schema's 2,000 characters per filter: only the RPC door sees them. */
const RPC_SIZE_ROWS: Row[] = [
  {
    name: '17 filters of 2,041 in items (was 500: too many SQL variables)',
    filters: inLists(17, 2041),
    status: 400,
    message: /^filter: the filters may hold at most 65,536 characters in all \(\d{2},\d{3} given\)$/,
  },
  {
    name: '16 filters of 2,041 in items',
    filters: inLists(16, 2041),
    status: 400,
    message: /^filter: the 'in' lists may hold at most 5,000 items in all \(32,656 given\)$/,
  },
];

/** Rows within the v2 schema's per-filter length that add up beyond SQLite's variables. */
const V2_SIZE_ROWS: Row[] = [
  {
    name: '34 filters of 990 in items (was 500: too many SQL variables)',
    filters: inLists(34, 990),
    status: 400,
    message: /^filter: the filters may hold at most 65,536 characters in all \(\d{2},\d{3} given\)$/,
  },
  {
    name: '20 filters of 990 in items',
    filters: inLists(20, 990),
    status: 400,
    message: /^filter: the 'in' lists may hold at most 5,000 items in all \(19,800 given\)$/,
  },
];

/** Every operator with a control character in its value: refused, never silently cut at a NUL. */
const CONTROL_ROWS: Row[] = CONTROL.flatMap((ch) => [
  ...['eq', 'neq', 'like', 'ilike'].flatMap((op) => [
    `datasetName.${op}.*${ch}NOPE`,
    `datasetName.${op}.*Close${ch}`,
    `datasetId.${op}.${ch}`,
  ]),
  `datasetName.in.(a,b${ch})`,
  `datasetName.in.("${ch}")`,
  `deliveryId.eq.x${ch}`,
  `deliveryStatus.in.(FAILED,${ch})`,
  `legacyDatasetId.neq.${ch}`,
]).map((filter) => {
  const ch = CONTROL.find((c) => filter.includes(c))!;
  return {
    name: `filter ${JSON.stringify(filter)}`,
    filters: [filter],
    status: 400 as const,
    message: new RegExp(`^filter '.*': the value contains the ${escape(controlText(ch))} at position \\d+`),
  };
});

/** Search exists only in the window's RPC. */
const SEARCH_ROWS: Row[] = [
  ...CONTROL.flatMap((ch) => [ch, `Close${ch}`, `${ch}NOPE`]).map((search) => ({
    name: `search ${JSON.stringify(search)}`,
    search,
    status: 400 as const,
    field: 'search',
    message:
      /^search: the text contains the control character '.*' at position \d \(control characters U\+0000–U\+001F and U\+007F are not allowed\)$/,
  })),
  { name: 'search of plain text', search: 'close', status: 200 },
];

function escape(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|]/g, (c) => `\\${c}`);
}

describe('hostile selections through the v2 list', () => {
  const q = (filters: string[]) => filters.map((f) => `filter=${encodeURIComponent(f)}`).join('&');
  it.each([...SIZE_ROWS, ...V2_SIZE_ROWS, ...CONTROL_ROWS].map((row) => [row.name, row] as const))(
    '%s',
    async (_name, row) => {
      const before = storedData(api.store);
      const response = await api.get(`/v2/ops/health/datasets/deliveries?${q(row.filters ?? [])}`);
      expect(response.statusCode).toBe(row.status);
      if (row.status === 400) {
        const body = response.json() as { status: number; code: string; message: string; field: string };
        expect(body).toMatchObject({ status: 400, code: 'INVALID_ARGUMENT', field: row.field ?? 'filter' });
        expect(body.message).toMatch(row.message!);
      }
      expect(storedData(api.store)).toBe(before);
    },
  );
});

describe('hostile selections through the RPC', () => {
  const rows = [...SIZE_ROWS, ...RPC_SIZE_ROWS, ...CONTROL_ROWS, ...SEARCH_ROWS];
  it.each(
    rows.flatMap((row) =>
      (['datasets.rows', 'datasets.counts'] as const).map((call) => [call, row.name, row] as const),
    ),
  )('%s: %s', async (call, _name, row) => {
    const before = storedData(engine.store);
    const request = { orgId: ENGINE_ORG, filters: row.filters ?? [], search: row.search ?? '', sort: '' };
    const answer = engine.client.call(
      call,
      call === 'datasets.rows' ? { ...request, pageSize: 10, pageToken: null } : request,
    );
    if (row.status === 200) await expect(answer).resolves.toBeTruthy();
    else {
      const error = await answer.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RpcError);
      expect((error as RpcError).code).toBe('invalid-argument');
      expect((error as RpcError).message).toMatch(row.message!);
    }
    expect(storedData(engine.store)).toBe(before);
  });
});

/**
 * Item 5: a 10,000-character datasetId once made a 13,480-character token the server refused, and paging
 * stopped at row 60 of 65. Long values are written below any import limit, in an org of their own.
 */
describe('page tokens over long stored values', () => {
  const ORG = 'long-values';
  let key: string;
  const write = (record: ReturnType<typeof fixtureRecords>[number]) =>
    writeDataset(api.store, ORG, record, { events: 'replace', deliveriesPerDataset: 100 });
  const records = fixtureRecords(65, 5, 'lv').map((record, i) => ({
    ...record,
    datasetId: i === 60 ? 'L'.repeat(10_000) : record.datasetId,
    datasetName: i === 61 ? `"${'🙂'.repeat(511)}` : record.datasetName,
  }));
  const get = async (url: string) =>
    api.app.inject({ method: 'GET', url, headers: { host: HOST, authorization: `Bearer ${key}` } });
  beforeAll(() => {
    ensureOrg(api.store, ORG, NOW);
    api.store.transaction(() => records.forEach(write));
    key = createApiKey(api.store, ORG, 'long', NOW).key;
  });

  it.each([
    '',
    'latestDeliveryStatus',
    'latestDeliveryStatus.desc',
    'latestDeliveryTimestamp',
    'latestDeliveryTimestamp.desc',
  ])('sort=%s: every page answers, all 65 datasets each way', async (sort) => {
    const before = storedData(api.store);
    const door = {
      ...api,
      get: async (url: string) => {
        const response = await get(url);
        expect(response.statusCode, response.body.slice(0, 200)).toBe(200);
        const page = response.json() as { nextPageToken: string; previousPageToken: string };
        expect(page.nextPageToken.length).toBeLessThanOrEqual(512);
        expect(page.previousPageToken.length).toBeLessThanOrEqual(512);
        return response;
      },
    };
    const { forward, backward } = await walk(door, sort ? `sort=${sort}` : '', 1);
    expect(new Set(forward).size).toBe(65);
    expect(backward).toEqual(forward);
    expect(storedData(api.store)).toBe(before);
  });

  it('a token that starts at a long-valued dataset since renamed is a 400 saying to start again', async () => {
    // Walk one dataset a page to the long one; a token from its page starts at it.
    const base = '/v2/ops/health/datasets/deliveries?pageSize=1&latestDeliveriesCount=0';
    let token = '';
    for (let page = 0; page < 65; page++) {
      const body = (await get(`${base}&pageToken=${token}`)).json() as {
        items: { datasetId: string }[];
        nextPageToken: string;
        previousPageToken: string;
      };
      if (body.items[0]!.datasetId === records[60]!.datasetId) {
        token = body.nextPageToken || body.previousPageToken;
        break;
      }
      token = body.nextPageToken;
    }
    expect(token.length).toBeGreaterThan(0);
    write({ ...records[60]!, datasetName: 'renamed' });
    const before = storedData(api.store);
    const response = await get(`${base}&pageToken=${token}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      status: 400,
      code: 'INVALID_ARGUMENT',
      field: 'pageToken',
      message:
        'pageToken starts at a dataset that has since changed or been removed: start again from the first page',
    });
    expect(storedData(api.store)).toBe(before);
  });
});
