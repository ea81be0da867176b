/**
 * The engine process the benchmark measures from outside (bench/engineFigures.ts): a store on a real
 * data dir mirroring the remote simulator through the engine as `serve` composes it (bench/benchEngine.ts:
 * the sync, the on-call layer warmed after each cycle, the alerts, the local API). Being its own
 * process, its write counter (/proc/self/io) and peak RSS hold only what the engine did: the first sync
 * and what follows it, the checkpoint after it, steady-state polls, then the list traffic and the views'
 * calls the parent sends.
 *
 * Protocol: one JSON object per line on stdout (`EngineEvent`); the parent writes `stop` on stdin when
 * its traffic is done. Progress goes to stderr. Cycles after the first are run one by one, so each
 * poll's bytes can be told apart.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { SyncCounts } from '../shared/sync';
import { createApiKey } from '../electron/store/tables/apiKeys';
import { Store } from '../electron/store/database';
import { DATABASE_FILE } from '../electron/store/durability/files';
import { remoteHashesOf } from '../electron/store/tables/fingerprints';
import { saveSource } from '../electron/store/tables/sources';
import { REMOTE_KEY_ENV } from '../electron/sync/secrets';
import { startBenchEngine } from './benchEngine';
import { processWrites } from './proc';
import { ReceivedRecords } from './receivedRecords';
import { timed } from './stats';

export const ENGINE_ORG = 'bench-engine';
const SOURCE_ID = 'bench';

export interface PollCycle {
  /** The cycle until its commit was fsynced. */
  ms: number;
  /** Then what it set off (the on-call layer's reading of what changed, the alerts' decisions). */
  settleMs: number;
  /** From the previous poll's start (the settling one for the first). */
  sinceLastMs: number;
  written: number;
  /** Datasets whose stored fingerprint changed, and the JSON bytes of their records plus tasks received. */
  changed: number;
  jsonBytes: number;
  /**
   * The process's disk writes from the cycle's start until its commit, and what the cycle set off, were
   * fsynced; null without /proc.
   */
  writeBytes: number | null;
  /** Journal bytes the store appended meanwhile (its own count). */
  journalBytes: number;
}

export type EngineEvent =
  | {
      event: 'firstSync';
      /** From starting the sync to the end of its first cycle, and the longest stall meanwhile. */
      ms: number;
      stallMs: number;
      counts: SyncCounts;
      /** Journal the store appended, and what the process wrote to disk (null without /proc). */
      journalBytes: number;
      writeBytes: number | null;
      /** What the cycle set off (the on-call layer reads the org's history, the alerts decide), and its longest stall. */
      afterMs: number;
      afterStallMs: number;
      /** Peak RSS so far, as every event below. */
      peakRssBytes: number;
    }
  | {
      event: 'checkpoint';
      /** From the request (after the journal was fsynced) until the image is in place. */
      ms: number;
      /** The store's own timing of writing the image. */
      foldMs: number;
      stallMs: number;
      imageBytes: number;
      peakRssBytes: number;
    }
  | { event: 'poll'; cycle: PollCycle }
  | {
      event: 'polls';
      /** Longest event-loop stall over the polls and what they set off, the gaps between them included. */
      stallMs: number;
      peakRssBytes: number;
    }
  | { event: 'ready'; url: string; apiKey: string; peakRssBytes: number }
  | { event: 'memory'; maxRssBytes: number };

const emit = (event: EngineEvent): void => void process.stdout.write(`${JSON.stringify(event)}\n`);
const log = (line: string): void => void process.stderr.write(`${line}\n`);
const peakRss = (): number => process.resourceUsage().maxRSS * 1024;

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
  if (!dataDir || !remote || !process.env[REMOTE_KEY_ENV])
    throw new Error(`needs --data-dir, --remote and $${REMOTE_KEY_ENV}`);
  const now = (): Date => new Date();
  const store = await Store.open({ dataDir });
  const persistence = store.persistence!;
  saveSource(store, { id: SOURCE_ID, orgId: ENGINE_ORG, baseUrl: remote }, now());
  const received = new ReceivedRecords((ids) => remoteHashesOf(store, ENGINE_ORG, ids));
  const engine = await startBenchEngine({ store, dataDir, sourceId: SOURCE_ID, now, fetch: received.fetch });
  // Node loads undici on first use (~50 ms): not the sync's stall.
  await fetch(`${remote}/warm-up`).then((response) => response.arrayBuffer());

  log('first sync…');
  const writesBeforeSync = processWrites('self');
  const first = await timed(() => engine.firstCycle());
  const writesAfterSync = processWrites('self');
  if (first.result.outcome !== 'ok') throw new Error(`first sync failed: ${first.result.error}`);
  log('the on-call layer and the alerts after it…');
  const after = await timed(() => engine.settled());
  emit({
    event: 'firstSync',
    ms: first.ms,
    stallMs: first.stallMs,
    counts: first.result.counts,
    journalBytes: persistence.stats.journalBytes,
    writeBytes:
      writesBeforeSync === null || writesAfterSync === null ? null : writesAfterSync - writesBeforeSync,
    afterMs: after.ms,
    afterStallMs: after.stallMs,
    peakRssBytes: peakRss(),
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
    peakRssBytes: peakRss(),
  });

  const runner = engine.runner();
  const polls = Number(values.polls);
  const gapMs = Number(values['poll-gap-ms']);
  // Unmeasured: the simulated hours that passed during the first sync and the checkpoint (minutes at
  // 100k) come in here, so the measured polls see about a simulated minute each.
  log('settling poll…');
  let previousStart = performance.now();
  const settling = await runner.runCycle('poll');
  if (settling.outcome !== 'ok') throw new Error(`the settling poll failed: ${settling.error}`);
  await engine.settled();
  await store.flush();
  // A checkpoint it set off (past the threshold) must not write its image during a measured poll.
  await persistence.checkpoint();
  // Each poll is followed by what it sets off (the on-call layer's reading of what changed, the alerts'
  // decisions) before the next, as the engine has a poll interval for it; its bytes and time are the
  // cycle's. The simulator's clock runs on meanwhile: at 100k that work takes seconds, so the parent
  // runs the clock slower there (bench/engineFigures.ts). One monitor watches the event loop over all
  // of it, the gaps included.
  const measured = await timed(async () => {
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
      received.stop();
      await engine.settled();
      await store.flush();
      const settleMs = performance.now() - started - ms;
      const writesAfter = processWrites('self');
      if (poll.outcome !== 'ok') throw new Error(`poll ${i} failed: ${poll.error}`);
      const changed = received.changedBy(await remoteHashesOf(store, ENGINE_ORG, received.received()));
      emit({
        event: 'poll',
        cycle: {
          ms,
          settleMs,
          sinceLastMs,
          written: poll.counts.written,
          changed: changed.length,
          jsonBytes: received.bytesOf(changed),
          writeBytes: writesBefore === null || writesAfter === null ? null : writesAfter - writesBefore,
          journalBytes: persistence.stats.journalBytes - journalBefore,
        },
      });
    }
  });
  emit({ event: 'polls', stallMs: measured.stallMs, peakRssBytes: peakRss() });

  const key = createApiKey(store, ENGINE_ORG, 'bench', now()).key;
  emit({ event: 'ready', url: engine.api.url, apiKey: key, peakRssBytes: peakRss() });
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) if (line.trim() === 'stop') break;
  lines.close();
  // Read before closing: the peak of the work above, not of shutting down.
  emit({ event: 'memory', maxRssBytes: peakRss() });
  await engine.stop();
  await store.close();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    log(`engine: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
