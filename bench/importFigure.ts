/**
 * A snapshot out and back in (docs/architecture.md#performance-budgets: import of a 10k snapshot ≤ 4 s;
 * at any size a large org's export re-imports), all through the built command as users run it:
 * `dataset-health export` of the org (from a copy of its data dir: the bench holds the original open),
 * `import` of that file into a new data dir, and `export` of the imported org again, each timed from
 * starting the command to its exit (its store closed, so everything is on disk) with its peak RSS. The
 * round trip must give the very same bytes: the two files are compared by a streamed SHA-256, never
 * read whole (at 100k each is about 2 GB).
 */
import { createHash } from 'node:crypto';
import { closeSync, cpSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DATABASE_FILE } from '../electron/store/durability/files';
import { BUDGET, judgedAt } from './budgets';
import { type Finished, runNode } from './children';
import { removeTempDir } from './cleanup';
import { type Report, bytes, megabytes, ms } from './report';
import { type BenchOrg, foldEverything } from './setup';

/** Running the CLI: the bundle when there is one, else the sources under tsx. */
type Cli = (args: readonly string[], timeoutMs: number) => Promise<Finished>;

export async function importFigure(
  org: BenchOrg,
  report: Report,
  cli: string | null,
  log: (line: string) => void,
): Promise<void> {
  const { size } = org;
  const how = cli ? '' : ', tsx';
  // Minutes at 100k on a busy machine; never the default 5 minutes' kill.
  const timeoutMs = Math.max(300_000, size * 20);
  const run: Cli = (args, timeout) =>
    runNode(cli ? [cli, ...args] : ['--import', 'tsx', 'electron/cli/main.ts', ...args], timeout);
  const command = async (name: string, args: readonly string[]): Promise<Finished> => {
    const finished = await run(args, timeoutMs);
    if (finished.code !== 0) throw new Error(`${name} exited ${finished.code}: ${lastLine(finished.stderr)}`);
    return finished;
  };

  // Everything the store committed is in the image before the copy: the export's own close then has no
  // journal to fold into a new image, which would be timed as part of the export.
  await foldEverything(org.store);
  const source = join(org.root, 'export-source');
  cpSync(org.dataDir, source, { recursive: true });
  const first = join(org.root, 'snapshot.json');
  const again = join(org.root, 'snapshot-again.json');
  const imported = join(org.root, 'import');
  try {
    log('  export of the org (CLI)…');
    const exported = await command('export', ['export', '--org', org.orgId, '--data-dir', source, first]);
    removeTempDir(source);
    const fileBytes = statSync(first).size;
    report.info(
      `snapshot export (CLI, start to exit${how})`,
      size,
      ms(exported.ms),
      `${megabytes(fileBytes)} file; peak RSS ${peakOf(exported)}`,
    );

    log(`  import of ${megabytes(fileBytes)} (CLI)…`);
    const importedRun = await command('import', [
      'import',
      '--org',
      org.orgId,
      '--data-dir',
      imported,
      first,
    ]);
    const image = statSync(join(imported, DATABASE_FILE), { throwIfNoEntry: false });
    report.atMost(
      `import of a snapshot (CLI, start to exit${how})`,
      size,
      importedRun.ms,
      BUDGET.importMs,
      ms,
      {
        judged: judgedAt(size),
        note: `${megabytes(fileBytes)} file; peak RSS ${peakOf(importedRun)}; image ${image ? megabytes(image.size) : 'not written (journal only)'}`,
      },
    );

    log('  export of the imported org, compared with the first…');
    const second = await command('export', ['export', '--org', org.orgId, '--data-dir', imported, again]);
    const [a, b] = await Promise.all([sha256(first), sha256(again)]);
    const same = a === b && statSync(again).size === fileBytes;
    const note = `export of the imported org ${ms(second.ms)}; SHA-256 ${a.slice(0, 16)}…${same ? '' : ` against ${b.slice(0, 16)}…`}`;
    if (!same) {
      report.failed(
        'snapshot round trip: export → import → export',
        size,
        `not the same bytes: ${firstDifference(first, again)}; ${note}`,
      );
      return;
    }
    report.add({
      what: 'snapshot round trip: export → import → export',
      size,
      value: bytes(fileBytes),
      budget: 'the same bytes',
      verdict: 'ok',
      note,
    });
  } finally {
    for (const path of [source, first, again, imported]) removeTempDir(path);
  }
}

const peakOf = (run: Finished): string => (run.peakRssBytes === null ? 'n/a' : megabytes(run.peakRssBytes));

const lastLine = (text: string): string => text.trim().split('\n').pop() ?? '';

/** The file's SHA-256, read as a stream. */
async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** Where two files first differ, with a few bytes of each there; read a chunk at a time. */
function firstDifference(a: string, b: string): string {
  const chunk = 1024 * 1024;
  const [fa, fb] = [openSync(a, 'r'), openSync(b, 'r')];
  try {
    const [ba, bb] = [Buffer.alloc(chunk), Buffer.alloc(chunk)];
    for (let at = 0; ; at += chunk) {
      const [na, nb] = [readSync(fa, ba, 0, chunk, at), readSync(fb, bb, 0, chunk, at)];
      const n = Math.min(na, nb);
      for (let i = 0; i < n; i++) {
        if (ba[i] === bb[i]) continue;
        const around = (buffer: Buffer): string =>
          JSON.stringify(buffer.toString('utf8', Math.max(0, i - 40), i + 40));
        return `at byte ${at + i}: ${around(ba)} against ${around(bb)}`;
      }
      if (na !== nb) return `one ends at byte ${at + n}`;
      if (na === 0) return 'no byte differs (the sizes do)';
    }
  } finally {
    closeSync(fa);
    closeSync(fb);
  }
}
