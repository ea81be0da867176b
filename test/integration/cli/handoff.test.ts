/**
 * `handoff` (docs/architecture.md#handoff, issue 14 point 5): the scripted shift's handoff printed by the CLI alone on
 * the data directory and through a running instance (the control channel) — the same bytes as the
 * golden file but for what only a running sync knows (overdue) — its JSON, and every refusal with its
 * exit code; then through a real `serve` process.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportSnapshot } from '../../../electron/query/exportSnapshot';
import { Store } from '../../../electron/store/database';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { type HandoffReport } from '../../../shared/handoff';
import { SINCE_FORMS } from '../../../shared/handoffOptions';
import { handoffMarkdown } from '../../../shared/handoffMarkdown';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { SHIFT_END, SHIFT_ORG, playShift } from '../../helpers/handoffShift';
import { startInstance, stopInstances } from '../../helpers/instance';
import { type Spawned, killChildren, spawnCli, waitFor } from '../../helpers/process';

const GOLDEN = readFileSync(join(__dirname, '../../fixtures/handoff/shift.md'), 'utf8');
/** Neither path syncs this org (no source): overdue is said to be unknown, the rest is the golden. */
const EXPECTED = GOLDEN.replace(
  '- None: the data is fresh.',
  '- Not known here: only a running instance that syncs this org can tell whether its data is stale.',
)
  .replace('0 overdue (unverified)', 'overdue (unverified) not known')
  .replace('## Overdue (unverified) (0)', '## Overdue (unverified) (not known)');

afterEach(async () => {
  killChildren();
  await stopInstances();
  removeTempDirs();
});

async function shiftDataDir(extraOrg = false): Promise<string> {
  const dataDir = tempDir('dh-handoff-cli-');
  const store = await Store.open({ dataDir, checkpoint: { openCheckpointDelayMs: 0 } });
  try {
    await playShift(store);
    if (extraOrg) store.transaction(() => ensureOrg(store, 'beta', SHIFT_END));
  } finally {
    await store.close();
  }
  return dataDir;
}

const run = (dataDir: string, argv: string[]) => cli([...argv, '--data-dir', dataDir], {}, SHIFT_END);

const USAGE = (message: string) => `dataset-health: ${message}\n`;

/** Refusals, the same alone and through the instance: [argv, exit code, stderr]. */
const REFUSALS: [string[], number, string | RegExp][] = [
  [['handoff', '--since', 'yesterday'], 2, USAGE(`--since: 'yesterday' is not ${SINCE_FORMS}`)],
  [['handoff', '--since', '0m'], 2, USAGE(`--since: '0m' is an empty window: give ${SINCE_FORMS}`)],
  // Was `"since":"-000711-…"` and "From -000711-01-01".
  [
    ['handoff', '--since', '999999d'],
    2,
    USAGE("--since: '999999d' is over a year back (at most 366d, 8784h or 527040m): for longer, give a time"),
  ],
  [
    ['handoff', '--since', '0000-01-01T00:00:00+01:00'],
    2,
    USAGE(
      "--since: '0000-01-01T00:00:00+01:00' is outside the times this app keeps (from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z in UTC)",
    ),
  ],
  [
    ['handoff', '--since', '2026-11-26T15:00:00Z'],
    2,
    USAGE(
      `--since: '2026-11-26T15:00:00Z' is in the future (now is 2026-11-26T14:00:00.000Z): give ${SINCE_FORMS}`,
    ),
  ],
  [
    ['handoff', '--since', '2026-11-26T06:00:00'],
    2,
    USAGE(`--since: '2026-11-26T06:00:00' is not ${SINCE_FORMS}`),
  ],
  [
    ['handoff', '--format', 'html'],
    2,
    /--format <format>' argument 'html' is invalid\. Allowed choices are md, json\./,
  ],
  [['handoff', '--org', 'gamma'], 1, USAGE("no org 'gamma' in this data directory (orgs: acme, beta).")],
  [['handoff', '--org', 'bad org!'], 1, /^dataset-health: .*bad org!/],
  [['handoff'], 2, USAGE('handoff needs --org here: this mirror has 2 orgs (acme, beta)')],
];

describe('handoff', () => {
  it('prints the golden Markdown alone and through the running instance, and the report as JSON', async () => {
    const dataDir = await shiftDataDir();
    const alone = await run(dataDir, ['handoff']);
    expect(alone).toMatchObject({ code: 0, stderr: '', stdout: EXPECTED });
    // The default window is the last 8 h: the same as naming its start, as a time or a duration.
    expect((await run(dataDir, ['handoff', '--since', '2026-11-26T07:00:00+01:00'])).stdout).toBe(EXPECTED);
    expect(
      (await run(dataDir, ['handoff', '--since', '480m', '--org', 'acme', '--format', 'md'])).stdout,
    ).toBe(EXPECTED);
    const json = await run(dataDir, ['handoff', '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as HandoffReport;
    expect(report).toMatchObject({
      orgId: 'acme',
      since: '2026-11-26T06:00:00.000Z',
      generatedAt: '2026-11-26T14:00:00.000Z',
      overdue: { known: false },
    });
    // The JSON is the report the Markdown is rendered from.
    expect(handoffMarkdown(report)).toBe(EXPECTED);

    const instance = await startInstance(dataDir, { now: () => SHIFT_END });
    const there = await run(dataDir, ['handoff']);
    expect(there).toMatchObject({ code: 0, stderr: '', stdout: EXPECTED });
    expect(JSON.parse((await run(dataDir, ['handoff', '--format', 'json'])).stdout)).toEqual(report);
    await instance.stop();
  });

  it("on a freshly imported org (the remote's records, no history of this mirror): what failed in the window is new, newest first", async () => {
    // The shift's records and tasks as the remote would give them, without any local knowledge.
    const played = await Store.open({ dataDir: null });
    let exported = '';
    try {
      await playShift(played);
      exportSnapshot(played, SHIFT_ORG, (chunk) => (exported += chunk));
    } finally {
      await played.close();
    }
    const { datasets, tasks } = JSON.parse(exported) as { datasets: unknown[]; tasks: unknown };
    const dataDir = tempDir('dh-handoff-import-');
    const file = join(dataDir, 'acme.json');
    writeFileSync(file, JSON.stringify({ datasets, tasks }));
    const imported = await run(dataDir, ['import', '--org', SHIFT_ORG, file]);
    expect(imported.code, imported.stderr).toBe(0);
    const alone = await run(dataDir, ['handoff', '--since', '8h']);
    expect(alone.stderr).toBe('');
    const golden = join(__dirname, '../../fixtures/handoff/imported.md');
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(golden, alone.stdout);
    expect(alone.stdout).toBe(readFileSync(golden, 'utf8'));
    // What the person reads: the two failures of the last 8 hours are new, the newest first; the
    // summary's counts are the sections'; what only a running sync knows is "not known".
    expect(alone.stdout).toContain(
      '**Summary:** 2 newly failed, 1 recovered, 1 still failing, 1 missing, overdue (unverified) not known,',
    );
    const newly = alone.stdout.split('## Newly failed (2)')[1]!.split('## Recovered')[0]!;
    expect(newly.indexOf('`rates`')).toBeLessThan(newly.indexOf('`eq-prices`'));
  });

  it('refuses bad input with the option named, the same alone and through the running instance', async () => {
    const dataDir = await shiftDataDir(true);
    const refusals = async () => {
      for (const [argv, code, stderr] of REFUSALS) {
        const done = await run(dataDir, argv);
        const label = argv.join(' ');
        expect(done.code, label).toBe(code);
        expect(done.stdout, label).toBe('');
        if (typeof stderr === 'string') expect(done.stderr, label).toBe(stderr);
        else expect(done.stderr, label).toMatch(stderr);
      }
    };
    await refusals();
    await startInstance(dataDir, { now: () => SHIFT_END });
    await refusals();
  });

  it('an empty mirror has nothing to hand off (exit 1)', async () => {
    const dataDir = tempDir('dh-handoff-empty-');
    expect(await run(dataDir, ['handoff'])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: USAGE('this mirror has no org yet: nothing to hand off'),
    });
  });

  it('through a real serve process: the running instance answers', async () => {
    const dataDir = await shiftDataDir();
    const spawned: Spawned = spawnCli(['serve', '--port', '0', '--data-dir', dataDir]);
    await waitFor(spawned.stdout, /Local API listening on http:\/\/127\.0\.0\.1:\d+\n/, spawned);
    // serve holds the directory: only the control channel can answer. Its clock is the real one, so
    // only what does not depend on the time is compared: who is failing or missing now.
    const json = await cli(['handoff', '--since', '1d', '--format', 'json', '--data-dir', dataDir]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as HandoffReport;
    expect(report.orgName).toBe('Acme Markets');
    expect(report.stillFailing.map((trouble) => trouble.datasetId).sort()).toEqual([
      'eq-prices',
      'fx-rates',
      'rates',
    ]);
    expect(report.missing.map((trouble) => trouble.datasetId)).toEqual(['bonds']);
    const markdown = await cli(['handoff', '--since', '1d', '--data-dir', dataDir]);
    expect(markdown.code, markdown.stderr).toBe(0);
    expect(markdown.stdout).toMatch(/^# Handoff: Acme Markets `acme`\n/);
    expect(markdown.stdout).toContain('## Still failing (3)\n');
    spawned.child.kill('SIGTERM');
    expect(await spawned.exited, spawned.stderr()).toBe(0);
  });
});
