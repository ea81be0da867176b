/**
 * The team server's exchange of operations over HTTP (electron/api/teamRoutes.ts), on a server on port
 * 0 over PGlite: a member pushes and pulls its org's operations with its token; a retried push stores
 * nothing; what a member may not push (another org's, as someone else, anything as a viewer, a rewrite)
 * is refused whole with the reason; no token, no answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TeamOperation } from '../../../shared/team';
import { TEAM_EVENTS_PATH, TEAM_OPERATIONS_PATH, registerTeamRoutes } from '../../../electron/api/teamRoutes';
import { type ApiServer, startApiServer } from '../../../electron/api/server';
import { Store } from '../../../electron/store/database';
import { type TeamDatabase, openPglite } from '../../../electron/store/teamDb/driver';
import { migrateTeamDatabase } from '../../../electron/store/teamDb/migrations';
import { createTeamToken, revokeTeamToken } from '../../../electron/store/teamDb/tokens';

const NOW = new Date('2026-11-29T12:00:00.000Z');
let db: TeamDatabase;
let store: Store;
let server: ApiServer;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  db = await openPglite(null);
  await migrateTeamDatabase(db);
  for (const [name, orgId, member, role] of [
    ['alice', 'acme', 'Alice', 'member'],
    ['bob', 'acme', 'Bob', 'member'],
    ['vic', 'acme', 'Vic', 'viewer'],
    ['olga', 'other', 'Olga', 'member'],
    ['rita', 'acme', 'Rita', 'member'],
  ] as const)
    tokens[name] = (await createTeamToken(db, { orgId, member, role }, NOW)).token;
  store = await Store.open({ dataDir: null });
  server = await startApiServer({
    store,
    port: 0,
    now: () => NOW,
    logger: false,
    // Heartbeats (and the token's check with each) every 100 ms: a revoked token's stream ends soon.
    extend: (app) => registerTeamRoutes(app, { db, now: () => NOW, heartbeatMs: 100 }),
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  await store?.close();
  await db?.close();
});

let made = 0;
function ack(orgId: string, author: string, datasetId = 'ds-a'): TeamOperation {
  made += 1;
  return {
    opId: `0190a000-0000-7000-8000-${String(made).padStart(12, '0')}`,
    orgId,
    author,
    at: `2026-11-29T12:00:00.000Z#${String(made).padStart(4, '0')}`,
    kind: 'acknowledge',
    payload: {
      datasetId,
      deliveryId: `${datasetId}-1`,
      status: 'FAILED',
      note: 'vendor ticket 4711',
      causeId: null,
    },
  };
}

const push = (token: string | null, body: unknown) =>
  fetch(`${server.url}${TEAM_OPERATIONS_PATH}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
const pull = (token: string, query = '') =>
  fetch(`${server.url}${TEAM_OPERATIONS_PATH}${query}`, { headers: { authorization: `Bearer ${token}` } });

describe('the team server’s operations over HTTP', () => {
  it('takes a member’s push once, and gives it back to every member of the org by cursor', async () => {
    const ops = [ack('acme', 'Alice', 'ds-1'), ack('acme', 'Alice', 'ds-2')];
    const first = await push(tokens.alice!, { operations: ops });
    expect(first.status).toBe(200);
    const { stored } = (await first.json()) as { stored: { opId: string; seq: number }[] };
    expect(stored.map((s) => s.opId)).toEqual(ops.map((op) => op.opId));
    // Retried after a lost answer: nothing new.
    expect(await (await push(tokens.alice!, { operations: ops })).json()).toEqual({ stored: [] });

    const page = await pull(tokens.bob!, '?limit=1');
    const body = (await page.json()) as { orgId: string; operations: TeamOperation[]; cursor: number };
    expect(body.orgId).toBe('acme');
    expect(body.operations.map((op) => op.opId)).toEqual([ops[0]!.opId]);
    const rest = (await (await pull(tokens.vic!, `?after=${body.cursor}`)).json()) as {
      operations: TeamOperation[];
    };
    expect(rest.operations.map(({ opId, payload }) => ({ opId, payload }))).toEqual([
      { opId: ops[1]!.opId, payload: ops[1]!.payload },
    ]);
    // Another org's member sees none of it.
    expect(((await (await pull(tokens.olga!)).json()) as { operations: unknown[] }).operations).toEqual([]);
  });

  it.each([
    [
      'another org’s operation',
      () => [ack('acme', 'Alice'), ack('other', 'Alice')],
      'alice',
      403,
      'this token is for "acme" only',
    ],
    ['an operation as someone else', () => [ack('acme', 'Bob')], 'alice', 403, 'this token is "Alice"\'s'],
    ['anything from a viewer', () => [ack('acme', 'Vic')], 'vic', 403, 'Vic is a viewer'],
  ])('refuses %s, storing nothing of the push', async (_, make, who, status, message) => {
    const ops = make();
    const answer = await push(tokens[who]!, { operations: ops });
    expect(answer.status).toBe(status);
    expect(((await answer.json()) as { message: string }).message).toContain(message);
    const all = (await (await pull(tokens.bob!)).json()) as { operations: TeamOperation[] };
    for (const op of ops) expect(all.operations.map((o) => o.opId)).not.toContain(op.opId);
  });

  it('refuses a rewrite of a stored operation, and a push that is not one', async () => {
    const op = ack('acme', 'Alice');
    await push(tokens.alice!, { operations: [op] });
    const rewrite = { ...op, payload: { ...op.payload, note: 'something else' } };
    const conflict = await push(tokens.alice!, { operations: [ack('acme', 'Alice'), rewrite] });
    expect(conflict.status).toBe(409);
    expect(((await conflict.json()) as { message: string }).message).toContain('operations never change');
    for (const bad of [{}, { operations: [{ ...op, kind: 'delete' }] }, { operations: 'all' }]) {
      const answer = await push(tokens.alice!, bad);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { field: string; message: string }).message).toContain(
        'not a push of team operations',
      );
    }
  });

  it('refuses a time that is not one, or over an hour ahead of its clock (it would win every later word)', async () => {
    const ahead = { ...ack('acme', 'Alice'), at: '2027-11-29T12:00:00.000Z#0000' };
    const answer = await push(tokens.alice!, { operations: [ack('acme', 'Alice'), ahead] });
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as { field: string; message: string };
    expect(body).toMatchObject({ field: 'at' });
    expect(body.message).toContain("over an hour after the team server's clock");
    const impossible = { ...ack('acme', 'Alice'), at: '2026-02-30T12:00:00.000Z#0000' };
    expect((await push(tokens.alice!, { operations: [impossible] })).status).toBe(400);
    // Within the hour: taken.
    const soon = { ...ack('acme', 'Alice'), at: '2026-11-29T12:59:00.000Z#0000' };
    expect((await push(tokens.alice!, { operations: [soon] })).status).toBe(200);
  });

  it('answers 400, not a server error, for text PostgreSQL cannot hold', async () => {
    for (const note of ['a\u0000b', 'x\uD83D']) {
      const op = ack('acme', 'Alice');
      const answer = await push(tokens.alice!, { operations: [{ ...op, payload: { ...op.payload, note } }] });
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { message: string }).message).toContain(
        '/payload/note holds a NUL or a broken',
      );
    }
  });

  it('answers no one without a valid token, and refuses a bad cursor', async () => {
    expect((await push(null, { operations: [] })).status).toBe(401);
    expect((await push('dht_nope', { operations: [] })).status).toBe(401);
    const unknown = await pull(`dht_${'A'.repeat(43)}`);
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { message: string }).message).toBe(
      'this team token is unknown or was revoked',
    );
    for (const query of ['?after=-1', '?after=x', '?limit=5000'])
      expect((await pull(tokens.bob!, query)).status).toBe(400);
  });

  it('wakes a member’s event stream when its org has new operations, and only then', async () => {
    const abort = new AbortController();
    const stream = await fetch(`${server.url}${TEAM_EVENTS_PATH}`, {
      headers: { authorization: `Bearer ${tokens.bob!}` },
      signal: abort.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (wanted: string) => {
      while (!text.includes(wanted)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${wanted}: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    try {
      await readUntil(': connected');
      // Another org's push: nothing for Bob.
      await push(tokens.olga!, { operations: [ack('other', 'Olga')] });
      await push(tokens.alice!, { operations: [ack('acme', 'Alice')] });
      await readUntil('event: operations');
      expect(text).toContain('event: operations\ndata: {"orgId":"acme"}\n\n');
      expect(text).not.toContain('other');
    } finally {
      abort.abort();
    }
    expect((await fetch(`${server.url}${TEAM_EVENTS_PATH}`)).status).toBe(401);
  });

  it('ends a stream once its token is revoked, and holds at most four streams per token', async () => {
    const open = () =>
      fetch(`${server.url}${TEAM_EVENTS_PATH}`, { headers: { authorization: `Bearer ${tokens.rita!}` } });
    const streams = [await open(), await open(), await open(), await open()];
    expect(streams.map((stream) => stream.status)).toEqual([200, 200, 200, 200]);
    const fifth = await open();
    expect(fifth.status).toBe(429);
    expect(((await fifth.json()) as { message: string }).message).toContain('at most 4');
    const [{ id }] = (await db.query<{ id: string }>("SELECT id FROM team_tokens WHERE member = 'Rita'")) as [
      { id: string },
    ];
    await revokeTeamToken(db, id, NOW);
    // Each stream ends (its body is done) within a heartbeat or two.
    await Promise.all(streams.map((stream) => stream.text()));
  });
});
