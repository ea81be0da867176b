/**
 * Import of a snapshot (≤ 4 s at 10k, docs/architecture.md#performance-budgets): the org exported to a file as `export` writes
 * it, then `dataset-health import` of that file into a new data dir, timed from starting the command
 * to its exit (its store closed, so everything is on disk).
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { exportSnapshot } from '../electron/query/exportSnapshot';
import { writeFileAtomicSync } from '../electron/store/instance/atomicFile';
import { DATABASE_FILE } from '../electron/store/durability/files';
import { BUDGET, judgedAt } from './budgets';
import { runNode } from './children';
import { type Report, megabytes, ms } from './report';
import type { BenchOrg } from './setup';

/** The CLI's default limit on an import file, in MiB: a larger file needs --max-size. */
const DEFAULT_MAX_MIB = 256;

export async function importFigure(
  org: BenchOrg,
  report: Report,
  cli: string | null,
  log: (line: string) => void,
): Promise<void> {
  const file = join(org.root, 'snapshot.json');
  log('  exporting a snapshot…');
  const exported = await org.store.whenIdle(() =>
    writeFileAtomicSync(file, (append) => exportSnapshot(org.store, org.orgId, append)),
  );
  const fileBytes = statSync(file).size;
  const maxMib = Math.ceil(fileBytes / 1024 / 1024) + 1;
  const dataDir = join(org.root, 'import');
  const args = [
    'import',
    '--org',
    org.orgId,
    '--data-dir',
    dataDir,
    ...(maxMib > DEFAULT_MAX_MIB ? ['--max-size', String(maxMib)] : []),
    file,
  ];
  log(`  import of ${megabytes(fileBytes)} (${exported.datasets} datasets)…`);
  const run = await runNode(cli ? [cli, ...args] : ['--import', 'tsx', 'electron/cli/main.ts', ...args]);
  if (run.code !== 0) throw new Error(`import exited ${run.code}: ${run.stderr.trim().split('\n')[0]}`);
  const image = statSync(join(dataDir, DATABASE_FILE), { throwIfNoEntry: false });
  report.atMost(
    `import of a snapshot (CLI, start to exit${cli ? '' : ', tsx'})`,
    org.size,
    run.ms,
    BUDGET.importMs,
    ms,
    {
      judged: judgedAt(org.size),
      note: `${megabytes(fileBytes)} file, ${exported.datasets} datasets, tasks of ${exported.tasks} deliveries; image ${image ? megabytes(image.size) : 'not written (journal only)'}`,
    },
  );
}
