/**
 * `rules export|import|reset`: the default rules of an org that saved none, a file imported and exported
 * back the same, hostile files refused with every problem named and nothing changed, and the same
 * commands handed to a running instance.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { RULES_FILE_BYTES } from '../../../electron/cli/commands/rules';
import { RULES_FILE_FORMAT, defaultRuleSet } from '../../../shared/rules';
import { sampleRulesFile } from '../../helpers/rules';
import { putDataset } from '../../helpers/alerts';
import { addTimelineEntry } from '../../../electron/store/tables/timeline';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { startInstance, stopInstances } from '../../helpers/instance';

const NOW = new Date('2026-11-21T04:41:00.000Z');

afterEach(async () => {
  await stopInstances();
  removeTempDirs();
});

async function dataDirWith(orgs: string[]): Promise<string> {
  const dataDir = tempDir('dh-rules-cli-');
  const store = await Store.open({ dataDir, checkpoint: { openCheckpointDelayMs: 0 } });
  try {
    store.transaction(() => orgs.forEach((org) => ensureOrg(store, org, NOW)));
  } finally {
    await store.close();
  }
  return dataDir;
}

const run = (dataDir: string, argv: string[]) => cli([...argv, '--data-dir', dataDir], {}, NOW);

const RULES = sampleRulesFile();

function file(dir: string, name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

describe('rules, alone on the data directory', () => {
  it('exports the default rules of an org that saved none', async () => {
    const dataDir = await dataDirWith(['acme']);
    const exported = await run(dataDir, ['rules', 'export']);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout)).toEqual({
      format: RULES_FILE_FORMAT,
      version: 1,
      orgId: 'acme',
      ...defaultRuleSet({ recoveryNotices: false }),
    });
    expect(exported.stderr).toBe('acme has the default rules (it saved none of its own).\n');
  });

  it('imports a file, exports it back the same, and resets to the default rules', async () => {
    const dataDir = await dataDirWith(['acme']);
    const path = file(tempDir(), 'rules.json', JSON.stringify(RULES));
    const imported = await run(dataDir, ['rules', 'import', path]);
    expect(imported).toMatchObject({ code: 0, stdout: '' });
    expect(imported.stderr).toBe('Saved 3 rules and 1 route for acme.\n');
    const exported = await run(dataDir, ['rules', 'export', '--org', 'acme']);
    expect(JSON.parse(exported.stdout)).toEqual(RULES);
    expect(exported.stderr).toContain('The file holds the secret header of channel: keep it private.');
    const reset = await run(dataDir, ['rules', 'reset']);
    expect(reset.stderr).toBe('acme is back on the default rules.\n');
    expect(JSON.parse((await run(dataDir, ['rules', 'export'])).stdout).rules).toEqual(
      defaultRuleSet({ recoveryNotices: false }).rules,
    );
  });

  it('saves a file for another org with --org, and says whose file it was', async () => {
    const dataDir = await dataDirWith(['acme', 'beta']);
    const path = file(tempDir(), 'rules.json', JSON.stringify(RULES));
    const imported = await run(dataDir, ['rules', 'import', path, '--org', 'beta']);
    expect(imported.stderr.split('\n')[0]).toBe(
      'Saved 3 rules and 1 route for beta (the file was exported from acme).',
    );
    expect(JSON.parse((await run(dataDir, ['rules', 'export', '--org', 'beta'])).stdout).rules).toEqual(
      RULES.rules,
    );
    const ambiguous = await run(dataDir, ['rules', 'export']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('rules export needs --org here: this mirror has 2 orgs (acme, beta)');
  });

  const hostile: [string, (dir: string) => string, string | RegExp][] = [
    ['not JSON', (dir) => file(dir, 'a.json', '{"format": '), /a\.json is not JSON: /],
    [
      'a snapshot, not a rules file',
      (dir) => file(dir, 'b.json', '{"datasets": []}'),
      'format: must be "dataset-health-rules" (this is not a rules file)',
    ],
    [
      'a later version',
      (dir) => file(dir, 'c.json', JSON.stringify({ ...RULES, version: 2 })),
      'version: must be 1',
    ],
    [
      'a rule with problems',
      (dir) =>
        file(
          dir,
          'd.json',
          JSON.stringify({
            ...RULES,
            rules: [{ ...RULES.rules[0], lateByMinutes: undefined, routes: ['tray', 'pager'] }],
          }),
        ),
      'rules[0].lateByMinutes: a late rule says by how many minutes late\nrules[0].routes[1]: no route "pager": the set has tray, channel\ndataset-health: ',
    ],
    [
      'too large',
      (dir) => file(dir, 'e.json', ' '.repeat(RULES_FILE_BYTES + 1)),
      `is ${RULES_FILE_BYTES + 1} bytes: a rules file is at most ${RULES_FILE_BYTES}`,
    ],
    ['a folder', (dir) => dir, 'is not a file'],
    [
      'an org the mirror has not',
      (dir) => file(dir, 'f.json', JSON.stringify({ ...RULES, orgId: 'nobody' })),
      /nobody/,
    ],
  ];
  it.each(hostile)('refuses %s, and changes nothing', async (_name, make, says) => {
    const dataDir = await dataDirWith(['acme']);
    const before = (await run(dataDir, ['rules', 'export'])).stdout;
    const refused = await run(dataDir, ['rules', 'import', make(tempDir())]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      typeof says === 'string' ? new RegExp(says.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : says,
    );
    expect((await run(dataDir, ['rules', 'export'])).stdout).toBe(before);
  });
});

describe('rules, handed to a running instance', () => {
  it('imports and exports through the instance holding the data directory', async () => {
    const dataDir = await dataDirWith(['acme']);
    const instance = await startInstance(dataDir, { now: () => NOW });
    const path = file(tempDir(), 'rules.json', JSON.stringify(RULES));
    expect((await run(dataDir, ['rules', 'import', path])).code).toBe(0);
    const exported = await run(dataDir, ['rules', 'export']);
    expect(JSON.parse(exported.stdout)).toEqual(RULES);
    await instance.stop();
    // Saved in the store the instance wrote: there after it stopped.
    expect(JSON.parse((await run(dataDir, ['rules', 'export'])).stdout)).toEqual(RULES);
  });
});

describe('rules test', () => {
  /** acme, first synced four hours before NOW (after its deliveries' deadlines), ds-1 FAILED and ds-2 MISSING since. */
  async function dataDirWithHistory(): Promise<string> {
    const dataDir = tempDir('dh-rules-test-');
    const store = await Store.open({ dataDir, checkpoint: { openCheckpointDelayMs: 0 } });
    try {
      const first = new Date(NOW.getTime() - 4 * 3_600_000).toISOString();
      putDataset(store, 1, 'HEALTHY', 'dlv-1a');
      putDataset(store, 2, 'HEALTHY', 'dlv-2a');
      putDataset(store, 1, 'FAILED', 'dlv-1b');
      putDataset(store, 2, 'MISSING', 'dlv-2b');
      // After the writes: a write drops timeline entries older than the dataset's oldest delivery kept.
      store.transaction(() => {
        for (const n of [1, 2])
          addTimelineEntry(store, {
            orgId: 'acme',
            datasetId: `ds-${n}`,
            at: first,
            kind: 'status',
            to: 'HEALTHY',
          });
      });
      store.transaction(() => {
        addTimelineEntry(store, {
          orgId: 'acme',
          datasetId: 'ds-1',
          at: '2026-11-21T02:00:00.000Z',
          kind: 'status',
          from: 'HEALTHY',
          to: 'FAILED',
          deliveryId: 'dlv-1b',
        });
        addTimelineEntry(store, {
          orgId: 'acme',
          datasetId: 'ds-2',
          at: '2026-11-21T03:00:00.000Z',
          kind: 'status',
          from: 'HEALTHY',
          to: 'MISSING',
          deliveryId: 'dlv-2b',
        });
      });
    } finally {
      await store.close();
    }
    return dataDir;
  }

  it('replays the rules in force, and a file before it is imported, saying where history starts', async () => {
    const dataDir = await dataDirWithHistory();
    const inForce = await cli(['rules', 'test', '--data-dir', dataDir], { TZ: 'UTC' }, NOW);
    expect(inForce.code).toBe(0);
    expect(inForce.stdout).toContain('# What the rules in force would have sent for acme, last 7 days');
    expect(inForce.stdout).toContain(
      "> History starts 21 Nov 2026, 00:41 (this org's first sync, or the oldest change still kept): the replay covers 0.2 of the 7 days asked for, and nothing before it is guessed.",
    );
    expect(inForce.stdout).toContain('- 2026-11-21 02:00 · New failures (notify) · FAILED: Dataset 1 — ');
    expect(inForce.stdout).not.toContain('MISSING: Dataset 2');
    const path = file(
      tempDir(),
      'rules.json',
      JSON.stringify({
        ...RULES,
        rules: [{ ...RULES.rules[2]!, action: 'urgent', digest: undefined }].map(
          ({ digest: _d, ...rule }) => rule,
        ),
      }),
    );
    const tried = await cli(
      ['rules', 'test', '--file', path, '--format', 'json', '--data-dir', dataDir],
      { TZ: 'UTC' },
      NOW,
    );
    expect(tried.code).toBe(0);
    const result = JSON.parse(tried.stdout) as { notifications: { title: string; action: string }[] };
    expect(result.notifications.map((n) => [n.title, n.action])).toEqual([['MISSING: Dataset 2', 'urgent']]);
    // Trying a file saves nothing.
    expect(JSON.parse((await run(dataDir, ['rules', 'export'])).stdout).rules).toEqual(
      defaultRuleSet({ recoveryNotices: false }).rules,
    );
  });

  it('refuses days out of range, another format and a file with problems, each saying why', async () => {
    const dataDir = await dataDirWithHistory();
    const days = await run(dataDir, ['rules', 'test', '--days', '31']);
    expect(days).toMatchObject({ code: 1, stdout: '' });
    expect(days.stderr).toContain('--days 31: a whole number of days from 1 to 30');
    expect((await run(dataDir, ['rules', 'test', '--format', 'csv'])).stderr).toContain(
      '--format csv: md or json',
    );
    const bad = file(
      tempDir(),
      'bad.json',
      JSON.stringify({ ...RULES, rules: [{ ...RULES.rules[0]!, lateByMinutes: 0 }] }),
    );
    const refused = await run(dataDir, ['rules', 'test', '--file', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('rules[0].lateByMinutes');
    expect(refused.stderr).toContain('is refused (1 problem above): nothing replayed');
  });
});
