/**
 * A team server that listens beyond loopback (`team serve --listen ADDRESS --host-name NAME`): it listens
 * on that address, answers there, and serves the Host names given and the address itself, still refusing
 * any other (the DNS-rebinding defence holds). 127.0.0.2 is a loopback address that is not 127.0.0.1.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, startApiServer } from '../../../electron/api/server';
import { Store } from '../../../electron/store/database';

let store: Store;
let server: ApiServer;

beforeAll(async () => {
  store = await Store.open({ dataDir: null });
  server = await startApiServer({
    store,
    port: 0,
    logger: false,
    host: '127.0.0.2',
    extraHosts: { names: ['team.example'] },
  });
});
afterAll(async () => {
  await server?.close();
  await store?.close();
});

/** GET `path` on the server's address with `host` as the Host header: the status and error code. */
function get(path: string, host: string): Promise<{ status: number; code: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.2', port: server.port, path, headers: { host } }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, code: (JSON.parse(body) as { code: string }).code }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('listening beyond loopback', () => {
  it('says where it listens', () => {
    expect(server.url).toBe(`http://127.0.0.2:${server.port}`);
  });

  it('serves the names it was given and its address, and no other', async () => {
    const path = '/v2/ops/health/datasets/deliveries';
    expect(await get(path, `team.example:${server.port}`)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await get(path, `127.0.0.2:${server.port}`)).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await get(path, `evil.example:${server.port}`)).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(await get(path, `team.example:1`)).toEqual({ status: 403, code: 'FORBIDDEN' });
    // Behind a TLS proxy: the name alone.
    expect(await get(path, 'team.example')).toEqual({ status: 401, code: 'UNAUTHENTICATED' });
    expect(await get(path, '127.0.0.2')).toEqual({ status: 403, code: 'FORBIDDEN' });
    expect(await get(path, `undefined:${server.port}`)).toEqual({ status: 403, code: 'FORBIDDEN' });
  });
});
