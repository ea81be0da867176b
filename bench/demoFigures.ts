/**
 * Disk writes of the live demo (`serve --demo`, the org a new user first sees, with its own intervals:
 * a poll every 10 s, a crawl every minute): the process's write counter over a window after its first
 * sync, extrapolated to an hour. No budget states it; docs/storage.md asks that persisting cost what
 * changed, and this is what the demo's changes cost.
 */
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_DATASETS, DEMO_INTERVALS, DEMO_LAG_MS, DEMO_SPEED } from '../electron/demo/remote/builtIn';
import { LOG_LEVEL_ENV } from '../electron/cli/logger';
import { startNodeServer } from './children';
import { makeTempDir, removeTempDir } from './cleanup';
import { NO_PROC, processMemory, processWrites } from './proc';
import { type Report, bytes, megabytes, ms } from './report';

const WINDOW_MS = 60_000;
/** The first sync's commit is fsynced within the debounce window (250 ms): past it before counting. */
const SETTLE_MS = 1_000;

interface Cycle {
  kind: string;
  written: number;
}

export async function demoFigures(
  report: Report,
  cli: string | null,
  quick: boolean,
  log: (line: string) => void,
): Promise<void> {
  const windowMs = quick ? WINDOW_MS / 2 : WINDOW_MS;
  const dataDir = makeTempDir('dataset-health-bench-demo-');
  const args = ['serve', '--demo', '--data-dir', dataDir, '--port', '0'];
  // Every cycle as a JSON line on stderr (the terminal shows only those that changed something).
  process.env[LOG_LEVEL_ENV] = 'info';
  const server = await startNodeServer(
    'serve --demo',
    cli ? [cli, ...args] : ['--import', 'tsx', 'electron/cli/main.ts', ...args],
  ).finally(() => delete process.env[LOG_LEVEL_ENV]);
  try {
    const cycles: Cycle[] = [];
    let firstSync: () => void = () => {};
    const synced = new Promise<void>((resolve) => (firstSync = resolve));
    createInterface({ input: server.child.stderr! }).on('line', (line) => {
      const cycle = readCycle(line);
      if (!cycle) return;
      cycles.push(cycle);
      firstSync();
    });
    log(`  live demo: waiting for its first sync…`);
    await Promise.race([
      synced,
      sleep(60_000).then(() => {
        throw new Error('serve --demo did not finish its first sync within 60 s');
      }),
    ]);
    await sleep(SETTLE_MS);
    const counted = cycles.length;
    const before = processWrites(server.pid);
    log(`  live demo: counting its disk writes for ${ms(windowMs)}…`);
    await sleep(windowMs);
    const after = processWrites(server.pid);
    const inWindow = cycles.slice(counted);
    const crawls = inWindow.filter((cycle) => cycle.kind === 'crawl').length;
    const written = inWindow.reduce((sum, cycle) => sum + cycle.written, 0);
    const described = `window ${ms(windowMs)} after the first sync: ${crawls} crawls, ${inWindow.length - crawls} polls, ${written} records written; the window falls in the demo's catch-up (its clock runs ${DEMO_SPEED}× until ${DEMO_LAG_MS / 3_600_000} h are replayed, about 2 min), later the org changes at real speed`;
    const what = `live demo (serve --demo, poll ${DEMO_INTERVALS.pollMs / 1000} s, crawl ${DEMO_INTERVALS.crawlMs / 60_000} min): disk writes per hour`;
    if (before === null || after === null)
      report.info(what, DEMO_DATASETS, 'n/a', `${NO_PROC}; ${described}`);
    else report.info(what, DEMO_DATASETS, bytes(((after - before) / windowMs) * 3_600_000), described);
    const memory = processMemory(server.pid);
    if (memory) report.info('live demo: peak RSS', DEMO_DATASETS, megabytes(memory.peak), 'VmHWM');
  } finally {
    await server.stop();
    removeTempDir(dataDir);
  }
}

/** A cycle from serve's JSON log line (`sync <kind> of <source> done`), else null. */
function readCycle(line: string): Cycle | null {
  if (!line.startsWith('{')) return null;
  try {
    const entry = JSON.parse(line) as { kind?: unknown; counts?: { written?: unknown }; msg?: unknown };
    if (typeof entry.msg !== 'string' || !entry.msg.startsWith('sync ')) return null;
    return { kind: String(entry.kind), written: Number(entry.counts?.written ?? 0) };
  } catch {
    return null;
  }
}
