/**
 * The engine process the benchmark measures from outside (bench/engineFigures.ts): a store on a real
 * data dir mirroring the remote simulator through the real sync, and the local API on loopback. Being
 * its own process, its write counter (/proc/self/io) and peak RSS hold only what the engine did: the
 * first sync and the checkpoint after it, steady-state polls, then the list traffic the parent sends.
 *
 * Protocol: one JSON object per line on stdout (`EngineEvent`); the parent writes `stop` on stdin when
 * its traffic is done. Progress goes to stderr.
 *
 * Not the whole of `serve` (no alerts, no control channel): its sync and API, driven cycle by cycle,
 * so each poll's bytes can be told apart.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { SyncCounts } from '../shared/sync';
import { startApiServer } from '../electron/api/server';
import { createApiKey } from '../electron/store/tables/apiKeys';
import { Store } from '../electron/store/database';
import { DATABASE_FILE } from '../electron/store/durability/files';
import { type Fingerprints, remoteHashes } from '../electron/store/tables/fingerprints';
import { saveSource } from '../electron/store/tables/sources';
import { SourceRunner } from '../electron/sync/runner';
import { REMOTE_KEY_ENV } from '../electron/sync/secrets';
import { processWrites } from './proc';
import { ReceivedRecords } from './receivedRecords';
import { timed } from './stats';

export const ENGINE_ORG = 'bench-engine';
const DAY_MS = 24 * 3_600_000;

export interface PollCycle {
  ms: number;
  /** From the previous poll's start (the settling one for the first). */
  sinceLastMs: number;
  written: number;
  /** Datasets whose stored fingerprint changed, and the JSON bytes of their records plus tasks received. */
  changed: number;
  jsonBytes: number;
  /** The process's disk writes from the cycle's start until its commit was fsynced; null without /proc. */
  writeBytes: number | null;
  /** Journal bytes the store appended meanwhile (its own count). */
  journalBytes: number;
}

export type EngineEvent =
  | {
      event: 'firstSync';
      ms: number;
      stallMs: number;
      counts: SyncCounts;
      /** Journal the store appended, and what the process wrote to disk (null without /proc). */
      journalBytes: number;
      writeBytes: number | null;
    }
  | {
      event: 'checkpoint';
      /** From the request (after the journal was fsynced) until the image is in place. */
      ms: number;
      /** The store's own timing of writing the image. */
      foldMs: number;
      stallMs: number;
      imageBytes: number;
    }
  | { event: 'poll'; cycle: PollCycle }
  | { event: 'ready'; url: string; apiKey: string }
  | { event: 'memory'; maxRssBytes: number };

const emit = (event: EngineEvent): void => void process.stdout.write(`${JSON.stringify(event)}\n`);
const log = (line: string): void => void process.stderr.write(`${line}\n`);

function changedSince(before: Fingerprints, after: Fingerprints): string[] {
  return [...after].filter(([id, hash]) => before.get(id) !== hash).map(([id]) => id);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      remote: { type: 'string' },
      polls: { type: 'string', default: '10' },
      'poll-gap-ms': { type: 'string', default: '1000' },
    },
  });
  const dataDir = values['data-dir'];
  const remote = values.remote;
  const apiKey = process.env[REMOTE_KEY_ENV];
  if (!dataDir || !remote || !apiKey) throw new Error(`needs --data-dir, --remote and $${REMOTE_KEY_ENV}`);
  const now = (): Date => new Date();
  const store = await Store.open({ dataDir });
  const persistence = store.persistence!;
  const source = saveSource(store, { id: 'bench', orgId: ENGINE_ORG, baseUrl: remote }, now());
  const received = new ReceivedRecords();
  const runner = new SourceRunner({
    store,
    source,
    apiKey,
    missingKeyHint: '',
    now,
    // Cycles are run one by one below: the runner's own timer must not start one meanwhile (at 100k a
    // checkpoint after the first sync outlasts the default minute, and a poll then would land in it).
    intervals: { pollMs: DAY_MS, crawlMs: DAY_MS },
    deliveriesPerDataset: 100,
    fetch: received.fetch,
  });
  // Node loads undici on first use (~50 ms): not the sync's stall.
  await fetch(`${remote}/warm-up`).then((response) => response.arrayBuffer());

  log('first sync…');
  const writesBeforeSync = processWrites('self');
  const first = await timed(() => runner.runCycle('crawl'));
  const writesAfterSync = processWrites('self');
  if (first.result.outcome !== 'ok') throw new Error(`first sync failed: ${first.result.error}`);
  emit({
    event: 'firstSync',
    ms: first.ms,
    stallMs: first.stallMs,
    counts: first.result.counts,
    journalBytes: persistence.stats.journalBytes,
    writeBytes:
      writesBeforeSync === null || writesAfterSync === null ? null : writesAfterSync - writesBeforeSync,
  });

  // The first sync's journal is the whole mirror: past the threshold (16 MiB) the store starts a
  // checkpoint by itself at the sync's commit, else the app's would come at idle or quit. Asked for
  // here (joining one already running), so the steady state starts from an image.
  log('checkpoint…');
  const flushed = await timed(() => store.flush());
  const checkpoint = await timed(() => persistence.checkpoint());
  if (persistence.stats.checkpoints === 0) throw new Error('the checkpoint did not run');
  emit({
    event: 'checkpoint',
    ms: checkpoint.ms,
    foldMs: persistence.lastCheckpointMs,
    stallMs: Math.max(flushed.stallMs, checkpoint.stallMs),
    imageBytes: statSync(join(dataDir, DATABASE_FILE)).size,
  });

  const polls = Number(values.polls);
  const gapMs = Number(values['poll-gap-ms']);
  // Unmeasured: the simulated hours that passed during the first sync and the checkpoint (minutes at
  // 100k) come in here, so the measured polls see about a simulated minute each.
  log('settling poll…');
  let previousStart = performance.now();
  const settling = await runner.runCycle('poll');
  if (settling.outcome !== 'ok') throw new Error(`the settling poll failed: ${settling.error}`);
  await store.flush();
  // A checkpoint it set off (past the threshold) must not write its image during a measured poll.
  await persistence.checkpoint();
  // Each poll's fingerprints after are the next one's before (reading 100k of them takes a while).
  let before = await remoteHashes(store, ENGINE_ORG);
  for (let i = 1; i <= polls; i++) {
    // The simulator's clock runs fast: this gap between starts stands for the real poll interval (a
    // poll that takes longer spaces them more; `sinceLastMs` says by how much).
    await sleep(Math.max(0, previousStart + gapMs - performance.now()));
    received.start();
    const journalBefore = persistence.stats.journalBytes;
    const writesBefore = processWrites('self');
    const started = performance.now();
    const sinceLastMs = started - previousStart;
    previousStart = started;
    const poll = await runner.runCycle('poll');
    await store.flush();
    const ms = performance.now() - started;
    const writesAfter = processWrites('self');
    received.stop();
    if (poll.outcome !== 'ok') throw new Error(`poll ${i} failed: ${poll.error}`);
    const after = await remoteHashes(store, ENGINE_ORG);
    const changed = changedSince(before, after);
    before = after;
    emit({
      event: 'poll',
      cycle: {
        ms,
        sinceLastMs,
        written: poll.counts.written,
        changed: changed.length,
        jsonBytes: received.bytesOf(changed),
        writeBytes: writesBefore === null || writesAfter === null ? null : writesAfter - writesBefore,
        journalBytes: persistence.stats.journalBytes - journalBefore,
      },
    });
  }

  const api = await startApiServer({
    store,
    port: 0,
    now,
    logger: false,
    rateLimit: { perSecond: 1_000_000, burst: 2_000_000 },
  });
  const key = createApiKey(store, ENGINE_ORG, 'bench', now()).key;
  emit({ event: 'ready', url: api.url, apiKey: key });
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) if (line.trim() === 'stop') break;
  lines.close();
  // Read before closing: the peak of the work above, not of shutting down.
  emit({ event: 'memory', maxRssBytes: process.resourceUsage().maxRSS * 1024 });
  await api.close();
  await runner.stop();
  await store.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`engine: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
