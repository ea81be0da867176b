/**
 * `export` alone on a data directory (docs/decisions.md "Export in slices"): a long export tells its
 * progress on stderr (records, MiB, rate, time left: on the CLI's clock, here a test's), a short one
 * prints only what it always printed; the file and stdout hold the same bytes; SIGINT while a file is
 * written stops it and leaves no file, not even the temp one.
 */
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../electron/cli/io';
import { runCli } from '../../../electron/cli/program';
import { loadDemo } from '../../../electron/demo/load';
import { Store } from '../../../electron/store/database';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { killChildren, spawnCli } from '../../helpers/process';

const ORG = 'big';
const NOW = new Date('2026-11-21T04:41:00.000Z');
let dataDir: string;

beforeAll(async () => {
  dataDir = tempDir();
  const store = await Store.open({ dataDir });
  try {
    // About 40 MB of snapshot: tens of slices, a few seconds to write.
    loadDemo(store, { orgId: ORG, datasets: 2000, seed: 3, now: NOW });
  } finally {
    await store.close();
  }
}, 120_000);
afterAll(() => {
  killChildren();
  removeTempDirs();
});

/** The CLI in-process, its clock moving on by `stepMs` at every look. */
async function exportWith(target: string, stepMs: number) {
  let stdout = '';
  let stderr = '';
  let clock = NOW.getTime();
  const io: CliIo = {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
    env: {},
    now: () => new Date((clock += stepMs)),
    stopRequested: () => new Promise(() => {}),
    openUrl: async () => {},
  };
  const code = await runCli(['export', '--org', ORG, target, '--data-dir', dataDir], io);
  return { code, stdout, stderr };
}

describe('export alone', () => {
  it('a long one tells its progress about every two seconds; on a clock that stands still only its end; the same bytes to a file and stdout', async () => {
    const file = join(tempDir(), 'big.json');
    const long = await exportWith(file, 500);
    expect(long.code, long.stderr).toBe(0);
    const lines = long.stderr.split('\n').filter(Boolean);
    expect(lines.at(-1)).toMatch(
      /^Exported 2000 datasets and the tasks of \d+ deliveries to .* \(with \d+ incidents\)\.$/,
    );
    const progress = lines.slice(0, -1);
    expect(progress.length).toBeGreaterThan(2);
    for (const line of progress)
      expect(line).toMatch(
        /^Exporting org big: [\d,]+ of [\d,]+ records, \d+\.\d MiB, \d+\.\d MiB\/s, about (\d+ s|\d+ min \d+ s) left$/,
      );
    const records = progress.map((line) => Number(/: ([\d,]+) of/.exec(line)![1]!.replace(/,/g, '')));
    expect(records).toEqual([...records].sort((a, b) => a - b));

    const still = await exportWith(file, 0);
    expect(still.stderr).toBe(`${lines.at(-1)}\n`);
    const toStdout = await exportWith('-', 0);
    expect(toStdout).toMatchObject({ code: 0, stderr: '' });
    expect(toStdout.stdout).toBe(readFileSync(file, 'utf8'));
  }, 120_000);

  it.skipIf(process.platform !== 'linux')(
    'SIGINT while the file is written: exit 1, no file, no temp file, what was there untouched',
    async () => {
      const folder = tempDir();
      const file = join(folder, 'big.json');
      writeFileSync(file, 'the export before\n');
      const child = spawnCli(['export', '--org', ORG, file, '--data-dir', dataDir]);
      const writing = () => readdirSync(folder).find((name) => name.startsWith('big.json.tmp-'));
      for (;;) {
        const temp = writing();
        if (temp !== undefined && statSync(join(folder, temp), { throwIfNoEntry: false })?.size) break;
        if (child.child.exitCode !== null) throw new Error(`exited early: ${child.stderr()}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      child.child.kill('SIGINT');
      expect(await child.exited, child.stderr()).toBe(1);
      expect(child.stderr()).toBe('dataset-health: export stopped by SIGINT: no file was written\n');
      expect(readdirSync(folder)).toEqual(['big.json']);
      expect(readFileSync(file, 'utf8')).toBe('the export before\n');
      expect(existsSync(join(dataDir, 'dataset-health.lock'))).toBe(false);
    },
    60_000,
  );
});
