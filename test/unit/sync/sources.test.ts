/** Where remote keys come from, which base URLs a source accepts, and pages the remote may send. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SourceError, normalizeBaseUrl, type Source } from '../../../electron/store/tables/sources';
import { RemoteClient } from '../../../electron/sync/client';
import { walkList } from '../../../electron/sync/remote';
import { envSecretKeeper } from '../../../electron/sync/secrets';

const source = (id: string): Source => ({
  id,
  orgId: id,
  name: id,
  baseUrl: 'https://health.example.com',
  enabled: true,
  apiKeySealed: null,
  createdAt: '2026-11-21T04:41:00.000Z',
});

describe('remote keys from the environment', () => {
  const env = { DATASET_HEALTH_REMOTE_KEY: 'shared', DATASET_HEALTH_REMOTE_KEY_ACME_EU: 'own' };

  it('a source-specific variable wins; the shared one serves a single source', () => {
    const secrets = envSecretKeeper(env);
    expect(secrets.apiKeyFor(source('acme-eu'))).toBe('own');
    expect(secrets.apiKeyFor(source('globex'))).toBe('shared');
  });

  it('with several sources the shared key is never sent: each needs its own', () => {
    const secrets = envSecretKeeper(env, { shared: false });
    expect(secrets.apiKeyFor(source('acme-eu'))).toBe('own');
    expect(secrets.apiKeyFor(source('globex'))).toBeNull();
    expect(secrets.hint).toMatch(/DATASET_HEALTH_REMOTE_KEY_<SOURCE ID> for each/);
  });
});

describe('base URLs', () => {
  it.each([
    ['https://health.example.com/', 'https://health.example.com'],
    ['https://health.example.com/api/', 'https://health.example.com/api'],
    ['http://127.0.0.1:47900', 'http://127.0.0.1:47900'],
    ['http://localhost:47900/', 'http://localhost:47900'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeBaseUrl(input)).toBe(expected);
  });

  it.each([
    ['http://health.example.com', /use https/],
    ['ftp://health.example.com', /only http and https/],
    ['https://user:secret@health.example.com', /without credentials/],
    ['not a url', /is not a URL/],
  ])('%s is refused', (input, message) => {
    expect(() => normalizeBaseUrl(input)).toThrow(SourceError);
    expect(() => normalizeBaseUrl(input)).toThrow(message);
  });
});

describe('list pages a remote may send', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  /** A remote that refuses pageSize over 50 and latestDeliveriesCount over 10, and leaves out empty lists. */
  async function strictRemote(seen: string[]): Promise<string> {
    server = createServer((request, response) => {
      const query = new URL(request.url!, 'http://x').searchParams;
      seen.push(`${query.get('pageSize')}/${query.get('latestDeliveriesCount')}`);
      if (Number(query.get('pageSize')) > 50 || Number(query.get('latestDeliveriesCount')) > 10) {
        response.writeHead(400).end(JSON.stringify({ message: 'too\nmany' }));
        return;
      }
      response.end(JSON.stringify({ kind: 'ops#datasetHealthList' }));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
  }

  it('falls back to pages of 50, then to 10 deliveries; a page without items is empty', async () => {
    const seen: string[] = [];
    const client = new RemoteClient({
      baseUrl: await strictRemote(seen),
      apiKey: 'k',
      sleep: async () => {},
    });
    const pages: number[] = [];
    await walkList(
      client,
      { latestDeliveriesCount: 100 },
      async ({ items }) => void pages.push(items.length),
    );
    expect(seen).toEqual(['1000/100', '50/100', '50/10']);
    expect(pages).toEqual([0]);
  });

  it('every page is visited whole, though pages share memory and differ in size', async () => {
    // Pages of 3, 1 and 2 items, the first the largest, each item naming its page and place.
    const sizes = [3, 1, 2];
    server = createServer((request, response) => {
      const page = Number(new URL(request.url!, 'http://x').searchParams.get('pageToken') ?? 0);
      const items = Array.from({ length: sizes[page]! }, (_, i) => ({
        at: `${page}.${i}`,
        pad: 'é'.repeat(50_000 >> page),
      }));
      response.end(JSON.stringify({ items, nextPageToken: page + 1 < sizes.length ? String(page + 1) : '' }));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
    const client = new RemoteClient({ baseUrl, apiKey: 'k', sleep: async () => {} });
    const visited: string[][] = [];
    await walkList(client, { latestDeliveriesCount: 10 }, async ({ items }) => {
      // The next page arrives meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 20));
      visited.push(items.map((item) => (JSON.parse(Buffer.from(item).toString()) as { at: string }).at));
    });
    expect(visited).toEqual([['0.0', '0.1', '0.2'], ['1.0'], ['2.0', '2.1']]);
  });

  it('a refusal says what the remote said, on one line', async () => {
    const client = new RemoteClient({ baseUrl: await strictRemote([]), apiKey: 'k', sleep: async () => {} });
    const refused = await client
      .getJson('/v2/ops/health/datasets/deliveries', [['pageSize', '1000']])
      .catch((e: unknown) => e as Error);
    expect((refused as Error).message).toMatch(/refused the request \(HTTP 400\): too many$/);
  });
});
