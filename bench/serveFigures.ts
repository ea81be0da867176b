/**
 * Figures of the `serve` process: cold start to the first answer, the list page over HTTP against the
 * native baseline, and memory. Servers run in child processes on copies of the org's database. A phase
 * that fails is reported as such and the others still run.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE } from '../electron/store/durability/files';
import { SUM_FILE } from '../electron/store/durability/imageSum';
import { coldStartBudget, p99Budget, rssBudget, throughputBudget } from './budgets';
import { type ServerProcess, startTsServer } from './children';
import { processMemory } from './proc';
import { LIST_PATH, coldStart, startBundledServe, startServe } from './coldStart';
import { type Target, compare, pagesAcrossTheOrg } from './http';
import { type Report, megabytes, ms, ratio } from './report';
import type { BenchOrg } from './setup';
import { median } from './stats';
import { askViews, describeAnswers } from './viewCalls';

export interface ServeOptions {
  quick: boolean;
  /** The bundled CLI, to time a cold start without tsx; null to skip. */
  bundledCli: string | null;
  log: (line: string) => void;
}

interface Starts {
  times: number[];
  /** The last server started, still running. */
  server: ServerProcess;
}

/** Starts a server `count` times, timing each to its first answer; all but the last are stopped. */
async function coldStarts(
  label: string,
  count: number,
  start: () => Promise<ServerProcess>,
  org: BenchOrg,
  log: (line: string) => void,
): Promise<Starts> {
  const times: number[] = [];
  for (let i = 1; ; i++) {
    log(`  cold start ${i}/${count}, ${label}…`);
    const started = await coldStart(start, org.apiKey);
    times.push(started.firstAnswerMs);
    log(`    URL after ${ms(started.urlMs)}, first answer after ${ms(started.firstAnswerMs)}`);
    if (i === count) return { times, server: started.server };
    await started.server.stop();
  }
}

export async function serveFigures(org: BenchOrg, report: Report, options: ServeOptions): Promise<void> {
  const { size } = org;
  const { log } = options;
  const count = options.quick ? 1 : 3;
  const phase = async <T>(name: string, work: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await work();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`  ${name} failed: ${message}`);
      report.failed(name, size, message.split('\n')[0]!);
      return undefined;
    }
  };

  // The org is in the image (setup checkpointed it; later commits touched no dataset): `serve` gets
  // its own copy of it, the native baseline the same bytes as a plain file.
  const serveDir = join(org.root, 'serve');
  mkdirSync(serveDir, { recursive: true });
  const image = join(org.dataDir, DATABASE_FILE);
  copyFileSync(image, join(serveDir, DATABASE_FILE));
  // With its checksum, as a checkpoint leaves it: opening checks the CRC instead of quick_check.
  if (existsSync(join(org.dataDir, SUM_FILE)))
    copyFileSync(join(org.dataDir, SUM_FILE), join(serveDir, SUM_FILE));
  const nativeFile = join(org.root, 'native.sqlite');
  copyFileSync(image, nativeFile);

  const servers: ServerProcess[] = [];
  try {
    // Informational, first: users run the built CLI (the bundled row below is the one the budget
    // judges); from source, tsx compiles TypeScript in the process first.
    const tsx = await phase('cold start, tsx', async () => {
      const { times, server } = await coldStarts('tsx', count, () => startServe(serveDir), org, log);
      servers.push(server);
      const memory = processMemory(server.pid);
      report.info(
        'cold start to first answer, tsx (dev)',
        size,
        ms(median(times)),
        `${times.map(ms).join(', ')} (includes compiling TypeScript)${memory ? `; peak RSS by then ${megabytes(memory.peak)}` : ''}`,
      );
      return server;
    });

    // The HTTP runs and the memory figure are of the bundled CLI when there is one: the budgets are
    // for the process users run. Without a bundle the tsx server stands in, its memory not judged.
    const cli = options.bundledCli;
    let bundled: ServerProcess | undefined;
    if (cli !== null) {
      // One process per data directory: the tsx server gives it up first.
      if (tsx) {
        await tsx.stop();
        servers.splice(servers.indexOf(tsx), 1);
      }
      bundled = await phase('cold start, bundled JS', async () => {
        const { times, server } = await coldStarts(
          'bundled CLI',
          count,
          () => startBundledServe(cli, serveDir),
          org,
          log,
        );
        servers.push(server);
        const memory = processMemory(server.pid);
        report.atMostSized(
          'cold start to first answer, bundled JS',
          size,
          median(times),
          coldStartBudget(size),
          ms,
          `${times.map(ms).join(', ')}${memory ? `; peak RSS by then ${megabytes(memory.peak)}` : ''}`,
        );
        return server;
      });
    }
    const server = cli === null ? tsx : bundled;
    if (!server) return;

    const ours: Target = {
      name: 'ours',
      url: `${server.url}${LIST_PATH}`,
      headers: { authorization: `Bearer ${org.apiKey}` },
    };
    const seconds = options.quick ? 2 : 5;
    await phase('HTTP against native', async () => {
      log(`  HTTP, ${seconds} s per run: starting the native baseline…`);
      const native = await startTsServer('bench/nativeServer.ts', [nativeFile, org.orgId]);
      servers.push(native);
      const nativeTarget: Target = { name: 'native', url: `${native.url}${LIST_PATH}`, headers: {} };
      await checkSamePage(ours, nativeTarget);
      const perSecond = (rps: number): string => `${rps.toFixed(0)} req/s`;
      const judge = async (label: string, a: Target, b: Target): Promise<void> => {
        log(`  ${label}:`);
        const result = await compare(a, b, { seconds, rounds: 2, log });
        report.info(`HTTP ${label}, ours`, size, perSecond(result.oursRps), `p99 ${ms(result.oursP99)}`);
        report.info(
          `HTTP ${label}, native SQLite`,
          size,
          perSecond(result.nativeRps),
          `p99 ${ms(result.nativeP99)}`,
        );
        const throughput = result.oursRps / result.nativeRps;
        report.atLeastSized(
          `HTTP ${label} throughput ours/native`,
          size,
          throughput,
          throughputBudget(size),
          ratio,
        );
        report.atMostSized(
          `HTTP ${label} p99 ours/native`,
          size,
          result.oursP99 / result.nativeP99,
          p99Budget(size),
          ratio,
        );
      };
      // The same page again and again (a polling script; our page cache answers), then every page of
      // the org in turn (each request builds a page: the cost of the query itself).
      await judge('same page', ours, nativeTarget);
      const spread = await pagesAcrossTheOrg(ours);
      log(`  walked ${spread.ours.length} pages for the spread run`);
      await judge(
        'pages across the org',
        { ...ours, paths: spread.ours },
        { ...nativeTarget, paths: spread.native },
      );
    });

    // The on-call views' first answers (the history read, every schedule, the default statistics, the
    // handoff): work serve's memory holds too. Timed here for the note; judged on the engine process,
    // whose history a sync has warmed as the running engine's is.
    const views = await phase("serve: the views' first answers", async () => {
      log("  the views' first answers (Triage, Upcoming, Reliability, Handoff)…");
      return askViews(server.url, org.apiKey);
    });
    const memory = processMemory(server.pid);
    const through = `cold start, the HTTP runs${views ? ` and the views' first answers (${describeAnswers(views)})` : ''}`;
    if (!memory) {
      report.info('serve memory', size, 'n/a', '/proc not available');
    } else if (server === bundled) {
      report.atMostSized(
        'serve memory, peak RSS (bundled JS)',
        size,
        memory.peak,
        rssBudget(size),
        megabytes,
        `VmHWM over ${through}; RSS after them ${megabytes(memory.rss)}`,
      );
    } else {
      report.info(
        'serve memory, peak RSS (tsx, no bundle)',
        size,
        megabytes(memory.peak),
        `VmHWM over ${through}; not judged: tsx compiles TypeScript in the process; RSS after them ${megabytes(memory.rss)}`,
      );
    }
  } finally {
    for (const server of servers) await server.stop();
  }
}

/** The baseline must serve the very items our list does, or the comparison means nothing. */
async function checkSamePage(ours: Target, native: Target): Promise<void> {
  const items = async (target: Target): Promise<string> => {
    const response = await fetch(target.url, { headers: target.headers });
    if (response.status !== 200) throw new Error(`${target.name}: HTTP ${response.status}`);
    return JSON.stringify(((await response.json()) as { items: unknown[] }).items);
  };
  const [a, b] = await Promise.all([items(ours), items(native)]);
  if (a !== b) throw new Error('the native baseline serves other items than our list: its SQL drifted');
}
