/**
 * `import --org ORG FILE` and `export --org ORG FILE` (docs/architecture.md#snapshots). Paths are resolved
 * here, against the user's working directory, before a running instance may be handed the work.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_DELIVERIES_PER_DATASET } from '../../store/tables/retention';
import { resolveDataDir } from '../../store/instance/dataDir';
import { MAX_IMPORT_MIB } from '../../control/commands/importLimits';
import { runCommand } from '../control';
import type { CliIo } from '../io';
import { checkOrg, dataDirOption, integerOption } from '../options';

export function importCommand(io: CliIo): Command {
  return new Command('import')
    .description('load a snapshot file into an org (datasets in the file replace those with the same id)')
    .requiredOption('--org <org>', 'the org to load into (created if new)')
    .option(
      '--retention <n>',
      'keep at most this many deliveries per dataset',
      integerOption(1, 100_000),
      DEFAULT_DELIVERIES_PER_DATASET,
    )
    .option(
      '--max-size <MiB>',
      `refuse a file larger than this many MiB (up to ${MAX_IMPORT_MIB}); without it any size is read`,
      integerOption(1, MAX_IMPORT_MIB),
    )
    .argument('<file>', 'snapshot JSON: { "datasets": [...], "tasks": { "<deliveryId>": {...} } }')
    .addOption(dataDirOption())
    .action(
      async (
        file: string,
        options: { org: string; retention: number; maxSize?: number; dataDir?: string },
      ) => {
        checkOrg(options.org);
        await runCommand(io, resolveDataDir(options.dataDir, io.env), 'import', {
          org: options.org,
          file,
          path: resolve(file),
          retention: options.retention,
          ...(options.maxSize === undefined ? {} : { maxSize: options.maxSize }),
        });
      },
    );
}

export function exportCommand(io: CliIo): Command {
  return new Command('export')
    .description(
      "write an org's snapshot (every stored delivery, run details and tasks) to a file, or - for stdout",
    )
    .requiredOption('--org <org>', 'the org to export')
    .argument('<file>', 'where to write the JSON snapshot; - writes to stdout')
    .addOption(dataDirOption())
    .action(async (file: string, options: { org: string; dataDir?: string }) => {
      checkOrg(options.org);
      await runCommand(io, resolveDataDir(options.dataDir, io.env), 'export', {
        org: options.org,
        path: file === '-' ? '-' : resolve(file),
      });
    });
}
