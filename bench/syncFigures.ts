/**
 * Sync figures (docs/architecture.md#performance-budgets): a full sync of a reference org from the remote simulator on loopback
 * (the simulator in its own process, as a real remote would be), the longest event-loop stall while it
 * runs (perf_hooks.monitorEventLoopDelay), a steady-state crawl, and the fast poll cycle.
 */
import { Store } from '../electron/store/database';
import { saveSource } from '../electron/store/tables/sources';
import { SourceRunner } from '../electron/sync/runner';
import { REMOTE_KEY_ENV } from '../electron/sync/secrets';
import { BUDGET, fullSyncBudget, stallBudget } from './budgets';
import { startSimulator } from './children';
import { makeTempDir, removeTempDir } from './cleanup';
import type { Report } from './report';
import { bytes, ms } from './report';
import { summarize, timed } from './stats';

const KEY = 'bench-remote-key';
const ORG = 'bench-sync';

export async function syncFigures(size: number, report: Report, log: (line: string) => void): Promise<void> {
  log(`  starting the remote simulator (${size} datasets) in its own process…`);
  process.env[REMOTE_KEY_ENV] = KEY;
  const simulator = await startSimulator(size);
  const root = makeTempDir(`dataset-health-bench-sync-${size}-`);
  const store = await Store.open({ dataDir: root });
  try {
    const now = () => new Date();
    const source = saveSource(store, { id: 'bench', orgId: ORG, baseUrl: simulator.url }, now());
    const runner = new SourceRunner({
      store,
      source,
      apiKey: KEY,
      missingKeyHint: '',
      now,
      intervals: { pollMs: 60_000, crawlMs: 15 * 60_000 },
      deliveriesPerDataset: 100,
    });
    // Node loads its fetch implementation (undici) on first use, a one-off ~50 ms in any process: done
    // here, so the stall figures are about the sync.
    await fetch(`${simulator.url}/warm-up`).then((response) => response.arrayBuffer());
    log('  first full sync (empty mirror, deep history)…');
    const first = await timed(() => runner.runCycle('crawl'));
    if (first.result.outcome !== 'ok') throw new Error(`first sync failed: ${first.result.error}`);
    const c = first.result.counts;
    report.atMostSized(
      'full sync from the simulator, first (empty mirror)',
      size,
      first.ms,
      fullSyncBudget(size),
      ms,
      `${c.received} datasets, ${c.tasksFetched} tasks records; in the bench's process (the engine's own: "engine: first sync")`,
    );
    report.atMostSized('  longest event-loop stall during it', size, first.stallMs, stallBudget(size), ms);

    log('  persisting it…');
    const journalBytes = store.persistence!.stats.journalBytes;
    const persist = await timed(() => store.flush());
    report.atMostSized(
      '  longest stall while its journal is fsynced',
      size,
      persist.stallMs,
      stallBudget(size),
      ms,
      `flush took ${ms(persist.ms)} for ${bytes(journalBytes)} of journal appended by the sync (most of it written meanwhile)`,
    );

    log('  a steady-state crawl (nothing much changed)…');
    const again = await timed(() => runner.runCycle('crawl'));
    if (again.result.outcome !== 'ok') throw new Error(`second crawl failed: ${again.result.error}`);
    report.atMostSized(
      'full sync from the simulator, steady state',
      size,
      again.ms,
      fullSyncBudget(size),
      ms,
      `${again.result.counts.written} records changed`,
    );
    report.atMostSized('  longest event-loop stall during it', size, again.stallMs, stallBudget(size), ms);
    await store.flush();

    log('  fast poll cycles…');
    const polls: number[] = [];
    let pollStall = 0;
    for (let i = 0; i < 7; i++) {
      // Polls are a minute apart: the previous one's save is done before the next starts.
      await store.flush();
      const poll = await timed(() => runner.runCycle('poll'));
      if (poll.result.outcome !== 'ok') throw new Error(`poll failed: ${poll.result.error}`);
      polls.push(poll.ms);
      pollStall = Math.max(pollStall, poll.stallMs);
    }
    const summary = summarize(polls);
    report.atMost('fast poll cycle p50', size, summary.p50, BUDGET.pollMs, ms, {
      note: `max ${ms(summary.max)}; longest stall ${ms(pollStall)}`,
    });
    await runner.stop();
  } finally {
    await store.close();
    await simulator.stop();
    removeTempDir(root);
  }
}
