/** `import --org ORG FILE` and `export --org ORG FILE` (DESIGN.md §7 snapshot format). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { writeFileAtomicSync } from '../../store/atomicFile';
import { DEFAULT_DELIVERIES_PER_DATASET } from '../../store/datasetWriter';
import { getOrg } from '../../store/orgs';
import { exportSnapshot } from '../../query/exportSnapshot';
import { SnapshotError, importSnapshot, parseSnapshot } from '../../store/snapshot';
import { resolveDataDir } from '../../store/dataDir';
import { CliError, type CliIo } from '../io';
import { withDataDir } from '../openStore';
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
    .argument('<file>', 'snapshot JSON: { "datasets": [...], "tasks": { "<deliveryId>": {...} } }')
    .addOption(dataDirOption())
    .action(async (file: string, options: { org: string; retention: number; dataDir?: string }) => {
      checkOrg(options.org);
      let text: string;
      try {
        text = readFileSync(resolve(file), 'utf8');
      } catch (error) {
        throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
      }
      let snapshot;
      try {
        snapshot = parseSnapshot(text);
      } catch (error) {
        if (error instanceof SnapshotError)
          throw new CliError(`${file}: ${error.message} (nothing was imported)`);
        throw error;
      }
      await withDataDir(resolveDataDir(options.dataDir, io.env), 'import', io, (store) => {
        try {
          importSnapshot(store, options.org, snapshot, {
            now: io.now(),
            deliveriesPerDataset: options.retention,
          });
        } catch (error) {
          if (error instanceof SnapshotError)
            throw new CliError(`${file}: ${error.message} (nothing was imported)`);
          throw error;
        }
      });
      io.stderr(
        `Imported ${snapshot.datasets.length} datasets and the tasks of ${snapshot.tasks.size} deliveries into org ${options.org}.\n`,
      );
    });
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
      await withDataDir(resolveDataDir(options.dataDir, io.env), 'export', io, (store) => {
        if (!getOrg(store, options.org)) throw new CliError(`no org '${options.org}' in this data directory`);
        if (file === '-') {
          exportSnapshot(store, options.org, io.stdout);
          return;
        }
        // Written beside the target and renamed, so an interrupted export never leaves half a file.
        const target = resolve(file);
        const counts = writeFileAtomicSync(target, (append) => exportSnapshot(store, options.org, append));
        io.stderr(
          `Exported ${counts.datasets} datasets and the tasks of ${counts.tasks} deliveries to ${target}.\n`,
        );
      });
    });
}
