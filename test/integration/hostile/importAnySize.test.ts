/**
 * `import` of a file of any size (issue 25): a well-formed snapshot over the old 256 MiB cap imports
 * with no option, `--max-size` is still accepted as a bound the user asks for, and hostile files that
 * the cap used to stop are refused by limits that do not depend on the file's size — promptly, with
 * the JSON path, changing nothing. Files are generated a chunk at a time into temp files.
 */
import { closeSync, openSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { databaseDigests, queryImage } from '../../helpers/databaseFiles';
import { fixtureRecords } from '../../helpers/fixtures';

const ORG = 'acme';
const MiB = 1024 * 1024;

afterAll(() => removeTempDirs());

/** Writes `head`, then `body` `times` times, then `tail`: a large file without a large string. */
function writeFile(name: string, head: string, body: Buffer, times: number, tail = ''): string {
  const path = join(tempDir(), name);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head);
    for (let i = 0; i < times; i++) writeSync(fd, body);
    writeSync(fd, tail);
  } finally {
    closeSync(fd);
  }
  return path;
}

/**
 * A well-formed snapshot of about `mb` MB: datasets of one delivery each, and for each delivery a tasks
 * record of 16 tasks with 60 kB messages (under the 64 KiB a message may have), a record per line.
 */
function largeSnapshot(mb: number): { path: string; datasets: number } {
  const message = 'm'.repeat(60_000);
  const tasks = Array.from({ length: 16 }, (_, t) => ({ taskId: `t${t}`, status: 'SUCCEEDED', message }));
  const tasksText = JSON.stringify({ ingest: { status: 'SUCCEEDED', tasks } });
  const datasets = Math.ceil((mb * 1e6) / tasksText.length);
  const path = join(tempDir(), 'large.json');
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, '{"datasets":[');
    for (let i = 0; i < datasets; i++) {
      const record = {
        datasetId: `big-${i}`,
        datasetName: `Big ${i}`,
        deliveryId: `big-${i}-d0`,
        deliveryEventList: [
          { deliveryId: `big-${i}-d0`, status: 'HEALTHY', deliveryDeadline: '2026-11-20T04:00:00Z' },
        ],
      };
      writeSync(fd, `${i === 0 ? '' : ','}\n${JSON.stringify(record)}`);
    }
    writeSync(fd, '\n],"tasks":{');
    for (let i = 0; i < datasets; i++)
      writeSync(fd, `${i === 0 ? '' : ','}\n${JSON.stringify(`big-${i}-d0`)}:${tasksText}`);
    writeSync(fd, '\n}}\n');
  } finally {
    closeSync(fd);
  }
  return { path, datasets };
}

describe('a well-formed file over the old 256 MiB cap', () => {
  let large: { path: string; datasets: number };
  beforeAll(() => {
    large = largeSnapshot(280);
  });

  it('imports with no option: every dataset and tasks record is stored', async () => {
    expect(statSync(large.path).size).toBeGreaterThan(256 * MiB);
    const dataDir = tempDir();
    const run = await cli(['import', '--org', ORG, large.path, '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(
      `Imported ${large.datasets} datasets and the tasks of ${large.datasets} deliveries into org ${ORG}.\n`,
    );
    expect(await queryImage(dataDir, 'SELECT count(*) FROM datasets')).toEqual([[large.datasets]]);
    expect(await queryImage(dataDir, 'SELECT count(*) FROM delivery_tasks')).toEqual([[large.datasets]]);
  }, 120_000);

  it('--max-size, when given, is still a bound: the old default refuses it, at once', async () => {
    const dataDir = tempDir();
    const run = await cli(['import', '--org', ORG, large.path, '--max-size', '256', '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /large\.json is 267\.\d MiB, over the import limit of 256 MiB set by --max-size \(nothing was imported\)\n$/,
    );
  });
});

describe('hostile files the cap used to stop', () => {
  let dataDir: string;
  let state: () => Promise<[string, Record<string, string>]>;
  beforeAll(async () => {
    dataDir = tempDir();
    const good = join(tempDir(), 'good.json');
    writeFileSync(good, JSON.stringify({ datasets: fixtureRecords(5, 3, 'keep') }));
    const seed = await cli(['import', '--org', ORG, good, '--data-dir', dataDir]);
    expect(seed.code, seed.stderr).toBe(0);
    state = async () => {
      const exported = await cli(['export', '--org', ORG, '-', '--data-dir', dataDir]);
      return [exported.stdout, databaseDigests(dataDir)];
    };
  });

  const x = Buffer.alloc(MiB, 'x');
  const ROWS: [name: string, file: () => string, message: RegExp][] = [
    [
      'a never-ending string (100 MiB of one datasetId, no end)',
      () => writeFile('endless.json', '{"datasets":[{"datasetId":"', x, 100),
      /endless\.json: \$\.datasets\[0\] \(line 1, column 14\): over 64 MiB of JSON text, the limit for one record/,
    ],
    [
      'absurd nesting (100 MiB of [)',
      () => writeFile('nested.json', '{"datasets":[', Buffer.alloc(MiB, '['), 100),
      /nested\.json: \$\.datasets\[0\] \(line 1, column 78\): nested deeper than 64 levels, the limit for one record/,
    ],
    [
      'a 100 MiB tasks key',
      () => writeFile('key.json', '{"datasets":[],"tasks":{"', x, 100, '":{}}}'),
      /key\.json: \$\.tasks\["x{64}…"\]: a deliveryId of more than 4 KiB, over the limit of 256 characters/,
    ],
    [
      'a 100 MiB array instead of an object',
      () => writeFile('array.json', '[', Buffer.from(`${'{"datasetId":"a"},'.repeat(1000)}\n`), 5_000, '{}]'),
      /array\.json: \$: expected an object with "datasets" \(and optionally "tasks"\), but the file starts with '\[{"datasetId":"a"},{"dat…'/,
    ],
  ];
  it.each(ROWS)(
    '%s: refused with the reason, nothing changed',
    async (_name, file, message) => {
      const before = await state();
      const run = await cli(['import', '--org', ORG, file(), '--data-dir', dataDir]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/\(nothing was imported\)\n$/);
      expect(run.stderr.split('\n')).toHaveLength(2);
      expect(run.stderr.length).toBeLessThan(1_000);
      expect(await state()).toEqual(before);
    },
    60_000,
  );
});
