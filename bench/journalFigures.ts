/**
 * A journal grown to its checkpoint threshold (docs/storage.md): the most a start ever replays. Built on
 * the org's data dir with checkpoints held off (large thresholds; closing then only fsyncs), then:
 * opening it (replay time, counted toward cold start), `serve` started on a copy of it (cold start to
 * the first answer), and the checkpoint that folds it (duration, longest event-loop stall).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Store } from '../electron/store/database';
import { DATABASE_FILE } from '../electron/store/durability/files';
import { checkpointThreshold } from '../electron/store/durability/writer';
import { coldStartBudget, stallBudget } from './budgets';
import type { ServerProcess } from './children';
import { type ColdStart, coldStart, startBundledServe, startServe } from './coldStart';
import { type Report, bytes, ms } from './report';
import type { ServeOptions } from './serveFigures';
import type { BenchOrg } from './setup';
import { median, timed } from './stats';

/** Checkpoints held off, at quit and at idle too (setTimeout's longest delay). */
const HELD = {
  checkpointBytes: Number.MAX_SAFE_INTEGER,
  quitCheckpointBytes: Number.MAX_SAFE_INTEGER,
  idleCheckpointMs: 2 ** 31 - 1,
};
/** Datasets rewritten per transaction, as a sync's chunk of changed records would be. */
const BATCH = 500;

export async function journalFigures(org: BenchOrg, report: Report, options: ServeOptions): Promise<void> {
  const { size, dataDir } = org;
  const { log } = options;
  await org.store.close();
  const imageBytes = statSync(join(dataDir, DATABASE_FILE)).size;
  const threshold = checkpointThreshold(imageBytes);

  log(`  growing the journal to its threshold (${bytes(threshold)})…`);
  const built = await buildJournal(org, threshold);
  report.info(
    'journal at its checkpoint threshold',
    size,
    bytes(built.journalBytes),
    `${built.commits} commits of ${BATCH} datasets, written in ${ms(built.ms)}; image ${bytes(imageBytes)}`,
  );

  const runs = options.quick ? 1 : 3;
  const opens: number[] = [];
  let replayedBytes = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const store = await Store.open({ dataDir, checkpoint: HELD });
    opens.push(performance.now() - started);
    replayedBytes = store.persistence!.replayedBytes;
    await store.close();
  }
  report.info(
    'open replaying that journal (in-process)',
    size,
    ms(median(opens)),
    `${bytes(replayedBytes)} replayed; ${opens.map(ms).join(', ')}; files in the page cache`,
  );

  // serve would fold the journal a few seconds after it opens, or when it stops: it gets a copy, and
  // is killed once it has answered. The copy is flushed to disk first, as a start after a kill finds
  // its files (a gigabyte being written back meanwhile slowed the start it measured by seconds).
  const copy = join(org.root, 'replay-serve');
  cpSync(dataDir, copy, { recursive: true });
  spawnSync('sync');
  const cli = options.bundledCli;
  const starts: ColdStart[] = [];
  for (let i = 0; i < runs; i++) {
    log(`  cold start on it ${i + 1}/${runs} (${cli ? 'bundled JS' : 'tsx'})…`);
    const started = await coldStart(
      () => (cli ? startBundledServe(cli, copy) : startServe(copy)),
      org.apiKey,
    );
    await kill(started.server);
    starts.push(started);
  }
  const budget = coldStartBudget(size);
  report.atMostSized(
    `cold start to first answer replaying it, ${cli ? 'bundled JS' : 'tsx'}`,
    size,
    median(starts.map((start) => start.firstAnswerMs)),
    cli ? budget : { ...budget, judged: false },
    ms,
    `replays ${bytes(replayedBytes)}; ${starts.map((start) => ms(start.firstAnswerMs)).join(', ')}; URL after ${ms(median(starts.map((start) => start.urlMs)))}`,
  );

  log('  checkpoint of it…');
  const store = await Store.open({ dataDir, checkpoint: HELD });
  try {
    const checkpoint = await timed(() => store.persistence!.checkpoint());
    const newImage = statSync(join(dataDir, DATABASE_FILE)).size;
    report.info(
      'checkpoint of that journal',
      size,
      ms(checkpoint.ms),
      `image ${bytes(newImage)} written from memory; write ${ms(store.persistence!.lastCheckpointMs)}`,
    );
    report.atMostSized(
      '  longest event-loop stall during it',
      size,
      checkpoint.stallMs,
      stallBudget(size),
      ms,
    );
  } finally {
    await store.close();
  }
}

/**
 * Rewrites datasets' fingerprints (random, as a changed record's hash is), a batch per commit, until
 * the journal passes `threshold`: a journal of small changes, each record the bytes that changed.
 */
async function buildJournal(
  org: BenchOrg,
  threshold: number,
): Promise<{ journalBytes: number; commits: number; ms: number }> {
  const store = await Store.open({ dataDir: org.dataDir, checkpoint: HELD });
  try {
    const persistence = store.persistence!;
    const pks = store.column<number>('SELECT pk FROM datasets WHERE org_id = ? ORDER BY pk', [org.orgId]);
    if (pks.length === 0) throw new Error('the org has no datasets');
    const started = performance.now();
    let commits = 0;
    for (let at = 0; persistence.journalBytes < threshold; at = (at + BATCH) % pks.length) {
      const batch = pks.slice(at, at + BATCH);
      store.transaction(() => {
        for (const pk of batch) {
          store.run('UPDATE datasets SET remote_hash = ? WHERE pk = ?', [
            randomBytes(16).toString('hex'),
            pk,
          ]);
        }
      });
      commits += 1;
      // Group commits as the debounce window would make them; bounds what waits in memory.
      if (commits % 20 === 0) await store.flush();
    }
    await store.flush();
    return { journalBytes: persistence.journalBytes, commits, ms: performance.now() - started };
  } finally {
    await store.close();
  }
}

/** The copy is thrown away: no need to wait for `serve` to fold its journal on the way out. */
async function kill(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGKILL');
  await exited;
}
