/**
 * Hostile `keys` input (issue 15 item 7), as a table in the manner of security regression tests: each row
 * is a CLI argv, the exit code and the one line of stderr it must get, run alone and through a running
 * instance (the control channel), and a check that no org and no key was added or changed. The window's
 * `keys.create` gets the same refusals through dispatch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listApiKeys } from '../../../electron/store/tables/apiKeys';
import { Store } from '../../../electron/store/database';
import { listOrgs } from '../../../electron/store/tables/orgs';
import { RpcError } from '../../../shared/rpc';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { startInstance } from '../../helpers/instance';
import { ENGINE_ORG, type EngineClient, engineClient } from '../../helpers/engineClient';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const ORGS = '(orgs: demo, live-demo)';
const NEW_ORG = 'Pass --new-org to create it.';

/** argv after `keys`, the exit code, and stderr (the whole of it, one line). */
const ROWS: [string, string[], number, string | RegExp][] = [
  [
    'a wrong case',
    ['create', '--org', 'Demo'],
    1,
    `no org 'Demo' in this data directory ${ORGS}; did you mean 'demo'? ${NEW_ORG}`,
  ],
  [
    'a typo',
    ['create', '--org', 'live_demo'],
    1,
    `no org 'live_demo' in this data directory ${ORGS}; did you mean 'live-demo'? ${NEW_ORG}`,
  ],
  [
    'constructor',
    ['create', '--org', 'constructor'],
    1,
    `no org 'constructor' in this data directory ${ORGS}. ${NEW_ORG}`,
  ],
  [
    'toString',
    ['create', '--org', 'toString'],
    1,
    `no org 'toString' in this data directory ${ORGS}. ${NEW_ORG}`,
  ],
  [
    'hasOwnProperty',
    ['create', '--org', 'hasOwnProperty'],
    1,
    `no org 'hasOwnProperty' in this data directory ${ORGS}. ${NEW_ORG}`,
  ],
  ['__proto__', ['create', '--org', '__proto__'], 1, /^'__proto__' is not a valid org id/],
  [
    '__proto__ with --new-org',
    ['create', '--org', '__proto__', '--new-org'],
    1,
    /^'__proto__' is not a valid org id/,
  ],
  ['a path', ['create', '--org', '../demo'], 1, /^'\.\.\/demo' is not a valid org id/],
  ['an empty org', ['create', '--org', ''], 1, /^'' is not a valid org id/],
  ['a line feed in the org', ['create', '--org', 'demo\nx'], 1, /^'demo\\nx' is not a valid org id/],
  [
    'a 10,000-character org',
    ['create', '--org', 'a'.repeat(10_000)],
    1,
    /^'a{80}… \(10000 characters\)' is not a valid org id/,
  ],
  [
    'a line feed in the name',
    ['create', '--org', 'demo', '--name', 'ci\nkey_fake'],
    1,
    'key names may not contain control characters (U+000A)',
  ],
  [
    'a carriage return',
    ['create', '--org', 'demo', '--name', 'ci\r'],
    1,
    'key names may not contain control characters (U+000D)',
  ],
  [
    'an escape sequence',
    ['create', '--org', 'demo', '--name', '\u001b[2J'],
    1,
    'key names may not contain control characters (U+001B)',
  ],
  [
    'NUL',
    ['create', '--org', 'demo', '--name', 'a\u0000'],
    1,
    'key names may not contain control characters (U+0000)',
  ],
  [
    'DEL',
    ['create', '--org', 'demo', '--name', 'a\u007f'],
    1,
    'key names may not contain control characters (U+007F)',
  ],
  [
    'a C1 CSI',
    ['create', '--org', 'demo', '--name', '\u009b2J'],
    1,
    'key names may not contain control characters (U+009B)',
  ],
  [
    'a bad name with --new-org',
    ['create', '--org', 'neworg', '--new-org', '--name', 'a\tb'],
    1,
    'key names may not contain control characters (U+0009)',
  ],
  ['an empty name', ['create', '--org', 'demo', '--name', ''], 1, 'key names may not be empty'],
  [
    'a 129-character name',
    ['create', '--org', 'demo', '--name', 'n'.repeat(129)],
    1,
    'key names are at most 128 characters (this one has 129)',
  ],
  ['an unknown option', ['create', '--org', 'demo', '--admin'], 2, /unknown option '--admin'/],
  ['--new-org with a value', ['create', '--org', 'x', '--new-org=yes'], 2, /--new-org/],
  [
    'revoke constructor',
    ['revoke', 'constructor'],
    1,
    "no active key with id 'constructor' (see `dataset-health keys list`)",
  ],
  [
    'revoke __proto__',
    ['revoke', '__proto__'],
    1,
    "no active key with id '__proto__' (see `dataset-health keys list`)",
  ],
  [
    'revoke with an escape',
    ['revoke', 'key_\u001b[2J\n'],
    1,
    "no active key with id 'key_\\u001b[2J\\n' (see `dataset-health keys list`)",
  ],
];

interface State {
  orgs: string[];
  keys: unknown[];
}

async function stored(dataDir: string, store?: Store): Promise<State> {
  const read = (s: Store): State => ({ orgs: listOrgs(s).map((org) => org.id), keys: listApiKeys(s) });
  if (store) return read(store);
  const opened = await Store.open({ dataDir });
  try {
    return read(opened);
  } finally {
    await opened.close();
  }
}

afterAll(removeTempDirs);

describe.each(['alone', 'through a running instance'] as const)('keys %s', (mode) => {
  let dataDir: string;
  let instance: { store: Store; stop(): Promise<void> } | undefined;
  beforeAll(async () => {
    dataDir = tempDir();
    for (const org of ['demo', 'live-demo']) {
      const run = await cli(['keys', 'create', '--org', org, '--new-org', '--data-dir', dataDir]);
      expect(run.code, run.stderr).toBe(0);
    }
    if (mode !== 'alone') instance = await startInstance(dataDir, { now: () => NOW });
  });
  afterAll(async () => instance?.stop());

  it.each(ROWS)('%s', async (_name, argv, code, message) => {
    const before = await stored(dataDir, instance?.store);
    const run = await cli(['keys', ...argv, '--data-dir', dataDir], {}, NOW);
    expect(run.code).toBe(code);
    expect(run.stdout).toBe('');
    const lines = run.stderr.split('\n');
    expect(lines.at(-1)).toBe('');
    if (code === 1) {
      expect(lines).toHaveLength(2);
      expect(run.stderr).toMatch(/^dataset-health: /);
    }
    const said = run.stderr.replace(/^dataset-health: |^error: /, '').trimEnd();
    if (typeof message === 'string') expect(said).toBe(message);
    else expect(said).toMatch(message);
    expect(await stored(dataDir, instance?.store)).toEqual(before);
  });

  it('an existing org still gets its key, and a stored name is listed on one line', async () => {
    const run = await cli(['keys', 'create', '--org', 'demo', '--name', 'ünï ✓', '--data-dir', dataDir]);
    expect(run.code, run.stderr).toBe(0);
    const list = await cli(['keys', 'list', '--data-dir', dataDir]);
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(4);
  });
});

describe("the window's keys.create", () => {
  let engine: EngineClient;
  beforeAll(async () => {
    engine = await engineClient({ datasets: 5 });
  });
  afterAll(async () => engine.close());

  it.each([
    [
      'an org not in the store',
      { orgId: 'Acme', name: 'k' },
      'not-found',
      `no org 'Acme' in this data directory (orgs: ${ENGINE_ORG}); did you mean '${ENGINE_ORG}'?`,
    ],
    [
      'constructor',
      { orgId: 'constructor', name: 'k' },
      'not-found',
      `no org 'constructor' in this data directory (orgs: ${ENGINE_ORG}).`,
    ],
    [
      '__proto__',
      { orgId: '__proto__', name: 'k' },
      'invalid-argument',
      /^'__proto__' is not a valid org id/,
    ],
    [
      'a line feed in the name',
      { orgId: ENGINE_ORG, name: 'a\nb' },
      'invalid-argument',
      'key names may not contain control characters (U+000A)',
    ],
    [
      'a 129-character name',
      { orgId: ENGINE_ORG, name: 'n'.repeat(129) },
      'invalid-argument',
      'key names are at most 128 characters (this one has 129)',
    ],
  ] as const)('%s is refused and changes nothing', async (_name, request, code, message) => {
    const before = await stored('', engine.store);
    const error = await engine.client.call('keys.create', request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(code);
    if (typeof message === 'string') expect((error as RpcError).message).toBe(message);
    else expect((error as RpcError).message).toMatch(message);
    expect(await stored('', engine.store)).toEqual(before);
  });
});
