/**
 * How fast the `dataset-health` command starts (docs/decisions.md, "A CLI that starts at once"): the
 * built command (`bin/dataset-health.js`) printing `--help`, and `keys list` on an empty data
 * directory, each the median of several runs against a bare `node -e 0` in the same rounds, taken in
 * turn, so the figure is a ratio the machine's speed (and a busy moment) mostly cancels out of.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BUDGET } from './budgets';
import { builtBefore, ensureBuilt } from './build';
import { PROJECT_ROOT } from './children';
import { makeTempDir, removeTempDir } from './cleanup';
import { type Report, ms, ratio } from './report';
import { median } from './stats';

const ROUNDS = 21;
const QUICK_ROUNDS = 9;
const BIN = join(PROJECT_ROOT, 'bin', 'dataset-health.js');

/** The built CLI, made again when missing or older than the code it is built from. */
const CLI_BUILD = {
  what: 'the CLI',
  stale: () => builtBefore('out/main/cli.js', ['electron', 'shared']),
  exists: () => !builtBefore('out/main/cli.js', []),
};

/** Wall time of one run of `node …args` to its exit, in ms; a failed run fails the figure. */
function timeRun(args: readonly string[]): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, args, { cwd: PROJECT_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
  const elapsed = performance.now() - started;
  if (run.status !== 0)
    throw new Error(
      `node ${args.join(' ')} exited ${run.status ?? run.signal}: ${String(run.stderr).trim()}`,
    );
  return elapsed;
}

export function cliStartFigures(report: Report, quick: boolean, log: (line: string) => void): void {
  ensureBuilt(CLI_BUILD, log);
  const rounds = quick ? QUICK_ROUNDS : ROUNDS;
  log(`  CLI start: ${rounds} rounds of node -e 0, --help and keys list…`);
  const empty = makeTempDir('dataset-health-bench-cli-');
  const runs = {
    bare: { args: ['-e', '0'], ms: [] as number[] },
    help: { args: [BIN, '--help'], ms: [] as number[] },
    keys: { args: [BIN, 'keys', 'list', '--data-dir', empty], ms: [] as number[] },
  };
  const kinds = Object.values(runs);
  try {
    // One untimed run each: the first reads the files from disk, the others from the page cache.
    for (const kind of kinds) timeRun(kind.args);
    for (let round = 0; round < rounds; round++) {
      // Each round in another order: no kind always runs right after a given other.
      for (let i = 0; i < kinds.length; i++) {
        const kind = kinds[(round + i) % kinds.length]!;
        kind.ms.push(timeRun(kind.args));
      }
    }
  } finally {
    removeTempDir(empty);
  }
  const bare = median(runs.bare.ms);
  const note = (what: number[]): string => `median ${ms(median(what))}, node -e 0: ${ms(bare)}`;
  report.atMost(
    'CLI start: --help, × node -e 0',
    0,
    median(runs.help.ms) / bare,
    BUDGET.cliHelpRatio,
    ratio,
    {
      note: note(runs.help.ms),
    },
  );
  report.atMost(
    'CLI start: keys list on an empty data directory, × node -e 0',
    0,
    median(runs.keys.ms) / bare,
    BUDGET.cliKeysListRatio,
    ratio,
    { note: note(runs.keys.ms) },
  );
}
