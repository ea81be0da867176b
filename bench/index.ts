/**
 * `npm run bench [-- --sizes 1000,10000,100000] [--quick] [--only cli-start|team]`: the docs/architecture.md#performance-budgets
 * performance figures at each reference org size, and the CLI's start-up, printed beside their budgets
 * (`--only cli-start`: that figure alone, in seconds; `--only team`: the team's, in minutes). Progress goes to stderr, the table to stdout.
 * Missing a budget does not fail the run (benchmarks inform, they do not gate CI); a measurement that
 * could not be taken does (exit 1).
 */
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { type Bundles, bundle } from './bundle';
import { judgedAt } from './budgets';
import { installCleanup } from './cleanup';
import { cliStartFigures } from './cliStart';
import { demoFigures } from './demoFigures';
import { engineFigures } from './engineFigures';
import { type ListP50s, measureSize } from './measureSize';
import { Report, megabytes, sizeLabel } from './report';
import { statsOrgFigures } from './statsOrg';
import { syncFigures } from './syncFigures';
import { teamFigures } from './teamFigures';
import { ruleFigures } from './ruleFigures';
import { DEMO_DATASETS } from '../electron/demo/remote/builtIn';

const USAGE = 'usage: npm run bench -- [--sizes 1000,10000,100000] [--quick] [--only cli-start|team|rules]';
/** The figures `--only` can select. */
const ONLY = ['cli-start', 'team', 'rules'] as const;

function options(): { sizes: number[]; quick: boolean; only: (typeof ONLY)[number] | undefined } {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1000,10000,100000' },
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
    },
  });
  const only = ONLY.find((name) => name === values.only);
  if (values.only !== undefined && only === undefined)
    throw new Error(`--only: expected one of ${ONLY.join(', ')}, got '${values.only}'\n${USAGE}`);
  const sizes = values.sizes.split(',').map((text) => Number(text.trim()));
  if (sizes.some((n) => !Number.isSafeInteger(n) || n < 1)) {
    throw new Error(`--sizes: expected comma-separated positive integers, got '${values.sizes}'\n${USAGE}`);
  }
  return { sizes: [...new Set(sizes)].sort((a, b) => a - b), quick: values.quick, only };
}

async function main(): Promise<number> {
  installCleanup();
  const { sizes, quick, only } = options();
  const log = (line: string): void => void process.stderr.write(`${line}\n`);
  const report = new Report();
  // Timings are only as good as the machine is quiet: the table says how busy it was.
  const loadAtStart = loadavg()[0]!;
  const failed = (what: string, size: number, error: unknown): void => {
    const message = error instanceof Error ? error.message : String(error);
    log(`  failed: ${message}`);
    report.failed(what, size, message.split('\n')[0]!);
  };
  if (only === 'team') {
    await team(report, log, failed);
    return finish(report, quick, loadAtStart);
  }
  if (only === 'rules') {
    await rules(report, log, failed, quick);
    return finish(report, quick, loadAtStart);
  }
  // First, while the bench itself has started nothing else.
  log("── the CLI's start");
  try {
    cliStartFigures(report, quick, log);
  } catch (error) {
    failed('CLI start', 0, error);
  }
  if (only === 'cli-start') return finish(report, quick, loadAtStart);
  let at10k: ListP50s | undefined;
  let bundles: Bundles | null = null;
  try {
    log('bundling the CLI and the engine process (measured without tsx)…');
    bundles = await bundle();
  } catch (error) {
    log(`  could not bundle, running them under tsx: ${(error as Error).message}`);
  }
  const bundledCli = bundles?.cli ?? null;
  for (const size of sizes) {
    log(`── ${sizeLabel(size)} datasets`);
    try {
      const listP50s = await measureSize(size, report, { quick, bundledCli, log }, at10k);
      if (size === 10_000) at10k = listP50s;
    } catch (error) {
      failed('benchmark', size, error);
    }
    // In the bench's own process: the first sync beside its journal's fsync, a steady-state crawl and the
    // fast poll, stated at 10k. The first sync at every size is the engine process's (below).
    if (judgedAt(size))
      await syncFigures(size, report, log).catch((error) => failed('sync benchmark', size, error));
    // The statistics' org (100 deliveries per dataset) is stated at 10k; 100k would hold 10 million
    // (above 10k the Reliability view is measured on the bench org instead: bench/measureSize.ts).
    if (judgedAt(size))
      await statsOrgFigures(size, report, log).catch((error) =>
        failed('statistics (100 deliveries per dataset)', size, error),
      );
    // The engine in its own process: its first sync and stalls, disk writes per poll and memory through
    // the views, judged at 100k too.
    await engineFigures(size, report, { quick, bundledEngine: bundles?.engine ?? null, log }).catch((error) =>
      failed('engine process', size, error),
    );
    // Not an engine's memory (it generated the org and ran the in-process figures): for reference.
    report.info(
      'bench process peak RSS so far',
      size,
      megabytes(process.resourceUsage().maxRSS * 1024),
      'generating the orgs (the statistics org too, up to 10k), in-process figures and syncs included',
    );
  }
  log('── the live demo');
  await demoFigures(report, bundledCli, quick, log).catch((error) =>
    failed('live demo', DEMO_DATASETS, error),
  );
  // Stated at 10k: measured when 10k is among the sizes.
  if (sizes.includes(10_000)) await team(report, log, failed);
  if (sizes.includes(10_000)) await rules(report, log, failed, quick);
  return finish(report, quick, loadAtStart);
}

/** The notification rules' figures: a week of a 10k org, live and replayed. */
async function rules(
  report: Report,
  log: (line: string) => void,
  failed: (what: string, size: number, error: unknown) => void,
  quick: boolean,
): Promise<void> {
  log('── notification rules (10k datasets, a week live, then replayed)');
  await ruleFigures(report, log, quick).catch((error) => failed('rules', 10_000, error));
}

/** The team's figures: 50 members of a team server over a 10k org. */
async function team(
  report: Report,
  log: (line: string) => void,
  failed: (what: string, size: number, error: unknown) => void,
): Promise<void> {
  log('── on call as a team (50 members, 10k datasets)');
  await teamFigures(report, log).catch((error) => failed('team', 10_000, error));
}

/** Prints the table; exit code 1 when a measurement could not be taken. */
function finish(report: Report, quick: boolean, loadAtStart: number): number {
  const load = `load average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end`;
  process.stdout.write(
    `\nDataset Health benchmarks (docs/architecture.md#performance-budgets)${quick ? ', --quick' : ''}: ${availableParallelism()} cores, ${load}\n\n`,
  );
  process.stdout.write(report.format());
  return report.rows.some((row) => row.verdict === 'FAILED') ? 1 : 0;
}

process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});
