/** Keys in the store (docs/api.md#keys): unknown orgs refused unless asked for, names printable and bounded. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY_NAME_MAX, createApiKey, listApiKeys } from '../../../../electron/store/tables/apiKeys';
import { Store } from '../../../../electron/store/database';
import { UnknownOrgError, ensureOrg, listOrgs } from '../../../../electron/store/tables/orgs';

const NOW = new Date('2026-11-21T04:41:00.000Z');
let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  ensureOrg(store, 'demo', NOW);
  ensureOrg(store, 'live-demo', NOW);
});
afterEach(() => store.close());

const orgIds = () => listOrgs(store).map((org) => org.id);

describe('createApiKey with newOrg: false', () => {
  it.each([
    ['Demo', "no org 'Demo' in this data directory (orgs: demo, live-demo); did you mean 'demo'?"],
    ['dmeo', "no org 'dmeo' in this data directory (orgs: demo, live-demo); did you mean 'demo'?"],
    ['constructor', "no org 'constructor' in this data directory (orgs: demo, live-demo)"],
    ['toString', "no org 'toString' in this data directory (orgs: demo, live-demo)"],
    ['hasOwnProperty', "no org 'hasOwnProperty' in this data directory (orgs: demo, live-demo)"],
  ])('refuses the unknown org %s and creates nothing', (org, message) => {
    expect(() => createApiKey(store, org, 'k', NOW, { newOrg: false })).toThrow(message);
    expect(() => createApiKey(store, org, 'k', NOW, { newOrg: false })).toThrow(UnknownOrgError);
    expect(orgIds()).toEqual(['demo', 'live-demo']);
    expect(listApiKeys(store)).toEqual([]);
  });

  it('says when there are no orgs at all', async () => {
    const empty = await Store.open({ dataDir: null });
    expect(() => createApiKey(empty, 'acme', 'k', NOW, { newOrg: false })).toThrow(
      "no org 'acme' in this data directory (none yet).",
    );
    await empty.close();
  });

  it('creates a key for an existing org, and with newOrg the org itself', () => {
    expect(createApiKey(store, 'demo', 'k', NOW, { newOrg: false }).orgId).toBe('demo');
    expect(createApiKey(store, 'constructor', 'k', NOW, { newOrg: true }).orgId).toBe('constructor');
    expect(orgIds()).toEqual(['constructor', 'demo', 'live-demo']);
  });
});

describe('key names', () => {
  it.each([
    ['a line feed', 'ci\nfake row', 'U+000A'],
    ['a carriage return', 'ci\r', 'U+000D'],
    ['an escape', '\u001b[31mred', 'U+001B'],
    ['NUL', 'a\u0000b', 'U+0000'],
    ['a tab', 'a\tb', 'U+0009'],
    ['DEL', 'a\u007f', 'U+007F'],
    ['a C1 control (CSI)', 'a\u009b31m', 'U+009B'],
  ])('%s is refused, naming the character', (_what, name, code) => {
    expect(() => createApiKey(store, 'demo', name, NOW)).toThrow(
      `key names may not contain control characters (${code})`,
    );
    expect(listApiKeys(store)).toEqual([]);
  });

  it(`are 1 to ${KEY_NAME_MAX} characters, counted in code points`, () => {
    expect(() => createApiKey(store, 'demo', '', NOW)).toThrow('key names may not be empty');
    expect(() => createApiKey(store, 'demo', 'x'.repeat(KEY_NAME_MAX + 1), NOW)).toThrow(
      `key names are at most ${KEY_NAME_MAX} characters (this one has ${KEY_NAME_MAX + 1})`,
    );
    expect(createApiKey(store, 'demo', '🔑'.repeat(KEY_NAME_MAX), NOW).name).toHaveLength(2 * KEY_NAME_MAX);
    expect(createApiKey(store, 'demo', 'ünïcødé – ok  ✓', NOW).name).toBe('ünïcødé – ok  ✓');
  });
});
