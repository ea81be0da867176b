/**
 * The bench's tally of what a poll received (bench/receivedRecords.ts), against a real HTTP server on
 * port 0: answers pass through untouched; each list item and dataset answer is sized as the JSON the
 * remote sent, compact or pretty-printed; a dataset's stored fingerprint when it first arrived tells
 * whether the cycle wrote it; tasks answers count whole; nothing is tallied while not recording.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReceivedRecords } from '../../../bench/receivedRecords';
import { REMOTE_PATHS } from '../../../electron/sync/remote';

const compact = {
  items: [
    { datasetId: 'a', n: 1 },
    { datasetId: 'b', name: 'é' },
  ],
  nextPageToken: '',
};
const PAGES: Record<string, string> = {
  [REMOTE_PATHS.list]: JSON.stringify(compact),
  [`${REMOTE_PATHS.list}?pretty`]: JSON.stringify(
    { items: [{ datasetId: 'c', deep: { x: [1, '"]'] } }] },
    null,
    2,
  ),
  [REMOTE_PATHS.dataset('d')]: JSON.stringify({ datasetId: 'd', status: 'FAILED' }),
  [REMOTE_PATHS.tasks('t-1')]: JSON.stringify({ ingest: { status: 'FAILED', tasks: [] } }),
};

/** What the sync client passes with each request. */
const ASK = { headers: {}, signal: new AbortController().signal };

let server: Server;
let base: string;
beforeEach(async () => {
  server = createServer((request, response) => {
    const body = PAGES[request.url ?? ''];
    response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json' });
    response.end(body ?? '{"error":"no such page"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the bench’s tally of received records', () => {
  it('sizes each record as the remote sent it and tells the written ones by their fingerprints', async () => {
    const stored = new Map<string, string>([
      ['a', 'hash-a'],
      ['c', 'hash-c'],
    ]);
    const asked: string[][] = [];
    const received = new ReceivedRecords(async (ids) => {
      asked.push([...ids]);
      return new Map(ids.filter((id) => stored.has(id)).map((id) => [id, stored.get(id)!]));
    });
    // Not recording: passed through, nothing tallied.
    expect(await (await received.fetch(`${base}${REMOTE_PATHS.list}`, ASK)).text()).toBe(
      PAGES[REMOTE_PATHS.list],
    );
    expect(received.received()).toEqual([]);

    received.start();
    for (const path of Object.keys(PAGES)) {
      const answer = await received.fetch(`${base}${path}`, ASK);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toBe(PAGES[path]);
    }
    expect((await received.fetch(`${base}/nowhere`, ASK)).status).toBe(404);
    expect(received.received().sort()).toEqual(['a', 'b', 'c', 'd']);
    expect(asked.flat().sort()).toEqual(['a', 'b', 'c', 'd']);

    // The cycle wrote "a" (a new fingerprint) and "b" (new); it left "c", and did not store "d".
    const after = new Map([
      ['a', 'hash-a2'],
      ['b', 'hash-b'],
      ['c', 'hash-c'],
    ]);
    expect(received.changedBy(after).sort()).toEqual(['a', 'b']);
    const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));
    const tasks = Buffer.byteLength(PAGES[REMOTE_PATHS.tasks('t-1')]!);
    expect(received.bytesOf(['a', 'b'])).toBe(tasks + bytes(compact.items[0]) + bytes(compact.items[1]));
    // Pretty-printed: its own bytes as sent, the whitespace around it in the array included (as the
    // sync counts an item).
    const pretty = PAGES[`${REMOTE_PATHS.list}?pretty`]!;
    const item = pretty.slice(pretty.indexOf('[') + 1, pretty.lastIndexOf(']'));
    expect(received.bytesOf(['c'])).toBe(tasks + Buffer.byteLength(item));
    received.stop();
  });
});
