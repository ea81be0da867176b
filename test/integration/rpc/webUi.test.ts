/**
 * The HTTP transport of `serve --ui` on a real port: the one-time token becomes an HttpOnly SameSite
 * cookie, every RPC request without it is 401, requests are checked against the contract, foreign
 * origins are refused, and engine events arrive as server-sent events.
 */
import { openHeadlessSettings } from '../../../electron/store/tables/settings';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { type RunningEngine, runEngine } from '../../../electron/engine/runEngine';
import { envSecretKeeper } from '../../../electron/sync/secrets';
import { removeTempDirs, tempDir } from '../../helpers/cli';

let engine: RunningEngine;
let store: Store;
let base: string;
let cookie: string;

beforeAll(async () => {
  store = await Store.open({ dataDir: null });
  const dataDir = tempDir('dh-webui-');
  engine = await runEngine({
    purpose: 'serve',
    store,
    dataDir,
    settings: openHeadlessSettings(dataDir, store, () => new Date()),
    port: 0,
    now: () => new Date(),
    secrets: envSecretKeeper({}),
    logger: false,
    demoWhenNoSources: true,
    ui: true,
  });
  base = engine.api.url;
});

afterAll(async () => {
  await engine.stop();
  await store.close();
  removeTempDirs();
});

const rpc = (name: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/rpc/${name}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('web UI transport', () => {
  it('prints a link with a one-time token; without the cookie every RPC request is 401', async () => {
    expect(engine.uiUrl).toMatch(new RegExp(`^${base}/\\?token=[A-Za-z0-9_-]{43}$`));
    const call = await rpc('orgs.list', null);
    expect(call.status).toBe(401);
    expect(await call.json()).toEqual({
      error: { code: 'unauthenticated', message: expect.stringMatching(/not signed in/) },
    });
    expect((await fetch(`${base}/rpc/events`)).status).toBe(401);
    // The page itself loads (it then explains that it is not signed in).
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="app"></div>');
  });

  it('exchanges the token once for an HttpOnly SameSite=Strict cookie, and drops it from the URL', async () => {
    const exchange = await fetch(engine.uiUrl!, { redirect: 'manual' });
    expect(exchange.status).toBe(303);
    expect(exchange.headers.get('location')).toBe('/');
    const setCookie = exchange.headers.get('set-cookie')!;
    expect(setCookie).toMatch(
      new RegExp(`^dh_session_${engine.api.port}=[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict$`),
    );
    cookie = setCookie.split(';')[0]!;

    const again = await fetch(engine.uiUrl!, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(await again.text()).toMatch(/already used/);
    // A signed-in browser reopening the link just lands on the UI.
    const reopened = await fetch(engine.uiUrl!, { redirect: 'manual', headers: { cookie } });
    expect(reopened.status).toBe(303);
    const forged = await rpc('orgs.list', null, { cookie: `dh_session_${engine.api.port}=forged` });
    expect(forged.status).toBe(401);
    // Another port's session (another serve --ui on this machine) is not this server's.
    const otherPort = await rpc('orgs.list', null, {
      cookie: cookie.replace(/^dh_session_\d+/, 'dh_session_1'),
    });
    expect(otherPort.status).toBe(401);
  });

  it('answers calls with the cookie, and checks every request against the contract', async () => {
    const orgs = await rpc('orgs.list', null, { cookie });
    expect(orgs.status).toBe(200);
    expect(((await orgs.json()) as { result: unknown[] }).result).toEqual(expect.any(Array));

    const unknownCall = await rpc('orgs.drop', null, { cookie });
    expect(unknownCall.status).toBe(404);
    expect(await unknownCall.json()).toEqual({
      error: { code: 'not-found', message: "no such call 'orgs.drop'" },
    });

    const extra = await rpc('keys.revoke', { id: 'k', sneaky: true }, { cookie });
    expect(extra.status).toBe(400);
    expect(((await extra.json()) as { error: { message: string } }).error.message).toBe(
      "keys.revoke: unknown field 'sneaky' in the request",
    );
    const badFilter = await rpc(
      'datasets.counts',
      { orgId: 'live-demo', filters: ['deliveryStatus.eq.BROKEN'], search: '', sort: '' },
      { cookie },
    );
    expect(badFilter.status).toBe(400);
    expect(((await badFilter.json()) as { error: { message: string } }).error.message).toMatch(
      /'BROKEN' is not a delivery status/,
    );
  });

  it('refuses requests from another origin, even with the cookie', async () => {
    const foreign = await rpc('orgs.list', null, { cookie, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    // The same machine on another port is another site's page too.
    const samehost = await rpc('orgs.list', null, { cookie, origin: 'http://127.0.0.1:1' });
    expect(samehost.status).toBe(403);
  });

  it("answers HEAD /rpc/events at once: the stream's headers, no body (401 without the cookie)", async () => {
    const head = await fetch(`${base}/rpc/events`, {
      method: 'HEAD',
      headers: { cookie },
      signal: AbortSignal.timeout(2000),
    });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await head.text()).toBe('');
    const anonymous = await fetch(`${base}/rpc/events`, {
      method: 'HEAD',
      signal: AbortSignal.timeout(2000),
    });
    expect(anonymous.status).toBe(401);
  });

  it('streams the engine events as server-sent events', async () => {
    const controller = new AbortController();
    const response = await fetch(`${base}/rpc/events`, { headers: { cookie }, signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    void engine.rpc.handlers['sync.now']({ sourceId: null });
    let text = '';
    while (!/event: source\.state\ndata: \{.*"phase":"syncing"/.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    controller.abort();
    const data = /event: source\.state\ndata: (\{.*\})/.exec(text)![1]!;
    expect(JSON.parse(data)).toMatchObject({ sourceId: 'demo', orgId: 'live-demo' });
  });
});
