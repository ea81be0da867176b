/** `demo [--datasets N] [--seed S]`: fill the data directory with a realistic generated org. */
import { Command } from 'commander';
import { DEMO_ORG } from '../../demo/defaults';
import { resolveDataDir } from '../../store/instance/dataDir';
import type { CliIo } from '../io';
import { checkOrg, dataDirOption, integerOption } from '../options';

export function demoCommand(io: CliIo): Command {
  return new Command('demo')
    .description(
      "fill the data directory with a generated org (replaces that org's datasets of the same ids)",
    )
    .option('--datasets <n>', 'how many datasets', integerOption(1, 200_000), 500)
    .option('--seed <s>', 'random seed: the same seed gives the same data', integerOption(0, 2 ** 31 - 1), 1)
    .option('--org <org>', 'org to fill', DEMO_ORG)
    .addOption(dataDirOption())
    .action(async (options: { datasets: number; seed: number; org: string; dataDir?: string }) => {
      checkOrg(options.org);
      io.stderr(`Generating ${options.datasets} datasets…\n`);
      const [{ describeDemo, loadDemo }, { withDataDir }] = await Promise.all([
        import('../../demo/load'),
        import('../openStore'),
      ]);
      const summary = await withDataDir(resolveDataDir(options.dataDir, io.env), 'demo', io, (store) =>
        loadDemo(store, {
          orgId: options.org,
          datasets: options.datasets,
          seed: options.seed,
          now: io.now(),
        }),
      );
      io.stderr(
        `${describeDemo(summary, options.org)}\nCreate a key to query it: dataset-health keys create --org ${options.org}\n`,
      );
    });
}
