/**
 * The data directory is the engine's alone (docs/decisions.md): `export` refuses every target inside it
 * — each of its files by name, the directory itself, and the same reached through `..`, links and other
 * spellings — except its real `exports/` folder, alone and handed to a running `serve` alike; the data
 * directory stays byte for byte as it was. Targets that cannot be written get a plain reason, and the
 * window's export shares the check.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcError } from '../../../shared/rpc';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { ENGINE_ORG, engineClient } from '../../helpers/engineClient';
import { fixtureRecords } from '../../helpers/fixtures';
import { type Spawned, killChildren, spawnCli, waitFor } from '../../helpers/process';

const ORG = 'acme';

/** Every entry under `dir`: a file's SHA-256, a link's target, `dir` for a folder. */
function contents(dir: string, prefix = ''): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const info = lstatSync(path);
    const key = `${prefix}${name}`;
    if (info.isSymbolicLink()) entries[key] = `-> ${readlinkSync(path)}`;
    else if (info.isDirectory()) Object.assign(entries, { [key]: 'dir' }, contents(path, `${key}/`));
    else entries[key] = createHash('sha256').update(readFileSync(path)).digest('hex');
  }
  return entries;
}

interface Layout {
  /** Holds the data directory, the links and the outside folder. */
  root: string;
  dataDir: string;
  outside: string;
  journal: string;
}

/** A data directory with org acme imported, beside a link to it and a link to its parent. */
async function layout(): Promise<Layout> {
  const root = tempDir();
  const dataDir = join(root, 'data');
  const outside = join(root, 'outside');
  mkdirSync(outside);
  const file = join(outside, 'acme-in.json');
  writeFileSync(file, JSON.stringify({ datasets: fixtureRecords(4, 3) }));
  const imported = await cli(['import', '--org', ORG, file, '--data-dir', dataDir]);
  expect(imported.code, imported.stderr).toBe(0);
  symlinkSync(dataDir, join(root, 'link-to-data'));
  symlinkSync(root, join(root, 'link-to-parent'));
  const journal = readdirSync(dataDir).find((name) => name.startsWith('health.sqlite.journal-'))!;
  return { root, dataDir, outside, journal };
}

/** The files of a data directory, each named as a target. */
const ENGINE_FILES = (journal: string) => [
  'health.sqlite',
  journal,
  'health.sqlite.journal-ffffffff',
  'health.sqlite.bak',
  'health.sqlite.sum',
  'settings.json',
  'window-state.json',
  'runtime.json',
  'control.json',
  'dataset-health.lock',
  'dataset-health-changes-1.ndjson',
];

interface Row {
  name: string;
  /** The target as the user types it. */
  target: (l: Layout) => string;
  /** `--data-dir` as the user types it (default: the data directory). */
  dataDirArg?: (l: Layout) => string;
  /** Run before the command and undone after it (`exports` as a link). */
  setup?: (l: Layout) => () => void;
  /** "is the data directory" rather than "is inside the data directory". */
  itself?: boolean;
}

const INSIDE: Row[] = [
  ...ENGINE_FILES('<journal>').map((name): Row => ({
    name: `its file ${name}`,
    target: (l) => join(l.dataDir, name === '<journal>' ? l.journal : name),
  })),
  { name: 'the directory itself', target: (l) => l.dataDir, itself: true },
  { name: 'the directory with a trailing slash', target: (l) => `${l.dataDir}/`, itself: true },
  { name: 'x/../health.sqlite', target: (l) => `${l.dataDir}/x/../health.sqlite` },
  { name: 'a folder of it that does not exist', target: (l) => join(l.dataDir, 'new', 'a.json') },
  { name: 'exports/../control.json', target: (l) => `${l.dataDir}/exports/../control.json` },
  { name: 'through a link to the directory', target: (l) => join(l.root, 'link-to-data', 'health.sqlite') },
  { name: 'a link to the directory as the file', target: (l) => join(l.root, 'link-to-data'), itself: true },
  {
    name: 'through a link to its parent',
    target: (l) => join(l.root, 'link-to-parent', 'data', 'dataset-health.lock'),
  },
  {
    name: '--data-dir given through a link',
    target: (l) => join(l.dataDir, 'control.json'),
    dataDirArg: (l) => join(l.root, 'link-to-data'),
  },
  {
    name: '--data-dir given with ..',
    target: (l) => join(l.dataDir, 'health.sqlite'),
    dataDirArg: (l) => `${l.root}/outside/../data/`,
  },
  {
    name: 'exports as a link to the directory',
    target: (l) => join(l.dataDir, 'exports', 'health.sqlite'),
    setup: (l) => {
      symlinkSync(l.dataDir, join(l.dataDir, 'exports'));
      return () => rmSync(join(l.dataDir, 'exports'));
    },
  },
  {
    name: 'exports as a link to a folder of the directory',
    target: (l) => join(l.dataDir, 'exports', 'x.json'),
    setup: (l) => {
      mkdirSync(join(l.dataDir, 'inner'));
      symlinkSync(join(l.dataDir, 'inner'), join(l.dataDir, 'exports'));
      return () => {
        rmSync(join(l.dataDir, 'exports'));
        rmSync(join(l.dataDir, 'inner'), { recursive: true });
      };
    },
  },
  {
    name: 'a link inside exports back to the directory',
    target: (l) => join(l.dataDir, 'exports', 'back', 'control.json'),
    setup: (l) => {
      mkdirSync(join(l.dataDir, 'exports'));
      symlinkSync(l.dataDir, join(l.dataDir, 'exports', 'back'));
      return () => rmSync(join(l.dataDir, 'exports'), { recursive: true });
    },
  },
];

const refusal = (target: string, dataDir: string, itself = false) =>
  `dataset-health: will not write ${target}: it is ${itself ? 'the' : 'inside the'} data directory ` +
  `${dataDir}, whose files only Dataset Health writes; export to a file outside it, or into ${join(dataDir, 'exports')}\n`;

/** `serve` as a real process on the data directory. */
async function serve(dataDir: string): Promise<Spawned> {
  const spawned = spawnCli(['serve', '--port', '0', '--data-dir', dataDir]);
  await waitFor(spawned.stdout, /Local API listening on http:\/\/127\.0\.0\.1:\d+\n/, spawned);
  // Started: its control channel is open once control.json names it.
  await waitFor(() => (existsSync(join(dataDir, 'control.json')) ? 'ready' : ''), /ready/, spawned);
  return spawned;
}

async function stop(spawned: Spawned): Promise<void> {
  spawned.child.kill('SIGTERM');
  expect(await spawned.exited, spawned.stderr()).toBe(0);
}

// After all: the running serve lives through every row of its block.
afterAll(() => {
  killChildren();
  removeTempDirs();
});

describe.each([
  ['alone', false],
  ['handed to a running serve', true],
])('export into the data directory, %s', (_mode, beside) => {
  let l: Layout;
  let instance: Spawned | undefined;
  beforeAll(async () => {
    l = await layout();
    if (beside) instance = await serve(l.dataDir);
  });
  afterAll(async () => {
    if (instance) await stop(instance);
  });

  it.each(INSIDE)('refuses $name, and nothing in the directory changes', async (row) => {
    const undo = row.setup?.(l);
    try {
      const before = contents(l.dataDir);
      const dataDirArg = row.dataDirArg?.(l) ?? l.dataDir;
      const run = await cli(['export', '--org', ORG, row.target(l), '--data-dir', dataDirArg]);
      // Alone the CLI's own spelling of the directory; handed over, the running serve's.
      const shown = beside ? l.dataDir : resolve(dataDirArg);
      expect(run.stderr).toBe(refusal(resolve(row.target(l)), shown, row.itself));
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(contents(l.dataDir)).toEqual(before);
    } finally {
      undo?.();
    }
  });

  it('writes outside the directory and into its exports/ folder (made when missing)', async () => {
    const engineFiles = () =>
      Object.fromEntries(Object.entries(contents(l.dataDir)).filter(([name]) => !name.startsWith('exports')));
    const before = engineFiles();
    const outside = join(l.outside, `acme-${beside}.json`);
    const inExports = join(l.dataDir, 'exports', `acme-${beside}.json`);
    rmSync(join(l.dataDir, 'exports'), { recursive: true, force: true });
    for (const target of [outside, inExports, join(l.root, 'link-to-data', 'exports', 'again.json')]) {
      const run = await cli(['export', '--org', ORG, target, '--data-dir', l.dataDir]);
      expect(run.stderr).toBe(`Exported 4 datasets and the tasks of 0 deliveries to ${target}.\n`);
      expect(run.code).toBe(0);
      expect((JSON.parse(readFileSync(target, 'utf8')) as { datasets: unknown[] }).datasets).toHaveLength(4);
    }
    expect(lstatSync(join(l.dataDir, 'exports')).isDirectory()).toBe(true);
    expect(engineFiles()).toEqual(before);
  });

  const cannot: [string, (l: Layout) => string, (target: string, l: Layout) => string][] = [
    [
      'in a folder that does not exist',
      () => '/nonexistent-dir/x.json',
      () => 'the folder /nonexistent-dir does not exist',
    ],
    ['a folder', (l) => l.outside, () => 'it is a folder; name a file in it'],
    [
      'under a file',
      (l) => join(l.outside, 'acme-in.json', 'x.json'),
      (_target, l) => `${join(l.outside, 'acme-in.json')} is not a folder`,
    ],
  ];
  if (process.platform === 'linux')
    // Refused to root as well, so the row holds whoever runs the tests.
    cannot.push([
      'in a folder without permission',
      () => '/sys/x.json',
      () => 'no permission to write in the folder /sys',
    ]);

  it.each(cannot)('a target %s: one plain line, exit 1', async (_name, target, why) => {
    const path = target(l);
    const run = await cli(['export', '--org', ORG, path, '--data-dir', l.dataDir]);
    expect(run.stderr).toBe(`dataset-health: cannot write ${path}: ${why(path, l)}\n`);
    expect(run).toMatchObject({ code: 1, stdout: '' });
  });
});

describe("the window's export (Settings → Data) shares the check", () => {
  it('refuses an exports/ that links back into the data directory, and writes into a real one', async () => {
    const engine = await engineClient({ datasets: 5 });
    try {
      symlinkSync(engine.dataDir, join(engine.dataDir, 'exports'));
      const before = contents(engine.dataDir);
      const refused = await engine.client.call('data.export', { orgId: ENGINE_ORG }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(RpcError);
      expect(refused).toMatchObject({
        code: 'unavailable',
        message: expect.stringMatching(
          new RegExp(
            `^the export folder ${engine.dataDir}/exports cannot be used \\(will not write .*: it is inside the data directory ${engine.dataDir}, .*\\); make it a plain folder, or export with \`dataset-health export --org ${ENGINE_ORG} FILE\` to a file of your choice$`,
          ),
        ) as unknown,
      });
      expect(contents(engine.dataDir)).toEqual(before);

      rmSync(join(engine.dataDir, 'exports'));
      const written = await engine.client.call('data.export', { orgId: ENGINE_ORG });
      expect(basename(written.path)).toMatch(new RegExp(`^${ENGINE_ORG}-.*\\.json$`));
      expect(written.path.startsWith(join(engine.dataDir, 'exports'))).toBe(true);
      expect(existsSync(written.path)).toBe(true);
    } finally {
      await engine.close();
    }
  });
});
