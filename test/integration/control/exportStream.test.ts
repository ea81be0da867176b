/**
 * `export -` through a running instance (control/server.ts, docs/decisions.md "Export in slices"): the
 * instance writes the answer no faster than its CLI reads it, so a CLI that stops reading leaves at most
 * a slice or so queued in the instance, never the file; it reads on and gets every byte, with progress
 * lines on stderr once the export runs long; a CLI that goes away ends the export, and the writers it
 * held go on.
 */
import { type IncomingMessage, type ServerResponse, request } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { CONTROL_HEADER, CONTROL_PATH, type ControlLine } from '../../../electron/control/protocol';
import { registerControl } from '../../../electron/control/server';
import { loadDemo } from '../../../electron/demo/load';
import { SLICE_CHARS, exportSnapshot } from '../../../electron/query/exportSnapshot';
import { Store } from '../../../electron/store/database';
import { deleteDataset } from '../../../electron/store/tables/datasetWriter';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { until } from '../../helpers/process';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const ORG = 'big';
const SECRET = 'control-secret-for-tests';

let store: Store;
let app: FastifyInstance;
let url: string;
/** The instance's side of each control answer, to look at what it has queued. */
let answers: ServerResponse[];
/** The instance's clock: each look moves it on by `step` ms (0: it stands still). */
let step: number;

beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  // About 20 MB of snapshot: far more than a slice, and more than the sockets hold between the two.
  loadDemo(store, { orgId: ORG, datasets: 1000, seed: 7, now: NOW });
  answers = [];
  step = 0;
  let clock = NOW.getTime();
  app = Fastify();
  app.addHook('onRequest', async (_request, reply) => void answers.push(reply.raw));
  const dataDir = tempDir();
  await registerControl(app, {
    secret: SECRET,
    context: () => ({
      store,
      dataDir,
      now: () => new Date((clock += step)),
      settings: async () => DEFAULT_SETTINGS,
    }),
  });
  url = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(async () => {
  await app.close();
  await store.close();
  removeTempDirs();
});

/** Posts `export --org ORG -` to the control channel; the answer arrives paused (nothing read yet). */
function exportToStdout(): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ command: 'export', args: { org: ORG, path: '-' } });
    const sent = request(
      `${url}${CONTROL_PATH}`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          [CONTROL_HEADER]: SECRET,
        },
      },
      (response) => {
        response.pause();
        resolve(response);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** The answer's lines, read from here on. */
async function linesOf(response: IncomingMessage): Promise<ControlLine[]> {
  response.setEncoding('utf8');
  let text = '';
  for await (const chunk of response as AsyncIterable<string>) text += chunk;
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ControlLine);
}

const stdoutOf = (lines: ControlLine[]) =>
  lines.map((line) => ('stdout' in line ? line.stdout : '')).join('');
const stderrOf = (lines: ControlLine[]) =>
  lines.map((line) => ('stderr' in line ? line.stderr : '')).join('');

/** Samples how many bytes the instance holds for the answer, until stopped; returns the most seen. */
function sampleQueued(answer: () => ServerResponse | undefined): { stop(): number } {
  let most = 0;
  const look = () => (most = Math.max(most, answer()?.writableLength ?? 0));
  const timer = setInterval(look, 1);
  return {
    stop() {
      clearInterval(timer);
      look();
      return most;
    },
  };
}

describe('export - through the control channel', () => {
  it('a CLI that stops reading leaves about a slice queued in the instance; read on, it gets every byte', async () => {
    const whole = (() => {
      let text = '';
      exportSnapshot(store, ORG, (chunk) => (text += chunk));
      return text;
    })();
    expect(whole.length).toBeGreaterThan(15 * SLICE_CHARS);
    const answer = () => answers[0];
    const queued = sampleQueued(answer);
    const response = await exportToStdout();
    // The export waits for the CLI to read (it listens for the answer's 'drain'), or it wrote it all.
    await until(
      () => (answer()?.listenerCount('drain') ?? 0) > 0 || answer()?.writableEnded === true,
      'the export waits for the CLI, or is written',
    );
    const most = queued.stop();
    // A slice JSON-escaped (about a fifth longer) and a line being cut, not the file.
    expect(most).toBeLessThan(3 * SLICE_CHARS);
    expect(answer()!.writableEnded).toBe(false);

    const lines = await linesOf(response);
    expect(lines.at(-1)).toEqual({ exit: 0, result: null });
    expect(stdoutOf(lines)).toBe(whole);
    // Lines of at most about 64 KiB: the CLI never gathers a long one.
    const longest = Math.max(...lines.map((line) => ('stdout' in line ? line.stdout.length : 0)));
    expect(longest).toBeLessThanOrEqual(64 * 1024);
    // The instance's clock stood still: a short export, no progress.
    expect(stderrOf(lines)).toBe('');
  }, 60_000);

  it('progress lines on stderr once it has run two seconds, then about every two', async () => {
    step = 700;
    const lines = await linesOf(await exportToStdout());
    expect(lines.at(-1)).toEqual({ exit: 0, result: null });
    const progress = stderrOf(lines).split('\n').filter(Boolean);
    expect(progress.length).toBeGreaterThan(2);
    for (const line of progress)
      expect(line).toMatch(
        /^Exporting org big: [\d,]+ of [\d,]+ records, \d+\.\d MiB, \d+\.\d MiB\/s, about (\d+ s|\d+ min \d+ s) left$/,
      );
  }, 60_000);

  it('a CLI that goes away ends the export, and a commit it held goes through', async () => {
    const answer = () => answers[0];
    const response = await exportToStdout();
    await until(() => (answer()?.listenerCount('drain') ?? 0) > 0, 'the export waits for the CLI');
    const commit = store.transactionInChunks(async (slice) => {
      await slice(() => deleteDataset(store, ORG, 'nothing-such'));
    });
    response.destroy();
    await commit;
    await until(() => answer()!.destroyed, 'the answer is closed');
  }, 60_000);
});
