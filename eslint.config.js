// @ts-check
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import vue from 'eslint-plugin-vue';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * docs/architecture.md#layers: the engine's folders from the bottom up; a folder imports only folders of lower rows
 * (never a sibling of its own row, so none of them can make a cycle). `engine/` is the composition
 * root both shells call; `knowledge/` is the on-call layer (docs/architecture.md#the-on-call-layer), at the level of the parts it reads with.
 */
const LAYERS = [
  ['store'],
  ['query'],
  // The team's shared state: acknowledging and snoozing (knowledge/, rpc/) record operations through it.
  // Notification rules: how a rule matches, pure of the store (the evaluator and its replay over history
  // are the alerts': alerts/ruleRun.ts, alerts/replay.ts). Route delivery: the outbox the alerts enqueue into and its deliverer (hooks, webhooks).
  ['team', 'rules', 'routes'],
  ['sync', 'alerts', 'knowledge', 'demo'],
  ['api', 'rpc', 'control'],
  ['engine'],
  ['cli', 'main'],
];
const ORDER = LAYERS.map((row) => row.join(', ')).join(' < ');

/**
 * Sideways imports allowed within a row, each one-way (the other side's ban stays, so no cycle): the
 * control channel shares the local API's port and answers a refused request in its error shape (docs/api.md#errors).
 * @type {Record<string, string[]>}
 */
const SIDEWAYS = { control: ['api/errors'] };

/**
 * The import pattern that keeps `folder` (on row `level`) from importing upward or sideways.
 * @param {string} folder
 * @param {number} level
 */
function layerBan(folder, level) {
  const banned = LAYERS.flatMap((row, at) =>
    at > level ? row : at === level ? row.filter((other) => other !== folder) : [],
  );
  return {
    group: [
      ...banned.map((other) => `**/${other}/**`),
      ...(SIDEWAYS[folder] ?? []).map((allowed) => `!**/${allowed}`),
    ],
    message: `electron/${folder}/ imports only the folders below it (docs/architecture.md#layers: ${ORDER}).`,
  };
}

/**
 * Inside store/ (docs/architecture.md): its sub-folders by job, each with the ones it may import. At the
 * bottom, `instance/` (the files that say an instance runs) and `schema/` (migrations and what they
 * compute from rows) import none; `durability/` (how the database reaches disk) only the lock's
 * process check; the database core at store/'s root (`Store`) builds on durability/ and schema/; the
 * tables read and write through it; `snapshot/` (import and export files) uses the tables. No cycle.
 * @type {Record<string, string[]>}
 */
const STORE_PARTS = {
  instance: [],
  durability: ['instance'],
  schema: [],
  tables: ['schema'],
  snapshot: ['schema', 'tables', 'instance'],
  // The team server's PostgreSQL (or PGlite) database: apart from the sql.js store.
  teamDb: [],
};
/** The database core's files at store/'s root; the parts below it never import them. */
const STORE_CORE = ['database', 'sqlJs', 'chunkLock', 'storeOptions'];
const BELOW_CORE = ['instance', 'durability', 'schema', 'teamDb'];
const STORE_ORDER =
  'instance < durability < the core (database.ts) < tables < snapshot, schema below the core; tables and snapshot reach durability only through the core';

/**
 * The import pattern that keeps a part of store/ (or, for `null`, its root) to the parts it may import.
 * @param {string | null} part
 */
function storeBan(part) {
  const allowed = part === null ? ['durability', 'schema'] : STORE_PARTS[part];
  const banned = Object.keys(STORE_PARTS).filter((other) => other !== part && !allowed.includes(other));
  const core = part !== null && BELOW_CORE.includes(part) ? STORE_CORE.map((file) => `../${file}`) : [];
  const where = part === null ? "store/'s root" : `store/${part}/`;
  const may = [...allowed, ...(core.length === 0 && part !== null ? ['the core'] : [])];
  return {
    group: [...banned.map((other) => `**/${other}/**`), ...core],
    message: `electron/${where} imports ${may.length > 0 ? `only ${may.join(', ')}` : 'nothing else'} of store/ (docs/architecture.md: ${STORE_ORDER}).`,
  };
}

/** docs/architecture.md#layers: layers are folders; these rules keep them honest. */
const electronBan = {
  name: 'electron',
  message: 'Only the shell (electron/main, electron/preload) may import electron.',
};
/** `electron` and its subpaths (`electron/main`, `electron/renderer`, …). */
const electronPaths = { group: ['electron/*'], message: electronBan.message };
/** Node built-ins by bare name (`fs`) or with the `node:` prefix. */
const nodeBuiltins = [...builtinModules.filter((name) => !name.startsWith('_')), 'node:*'];
/**
 * The import rule for code that may not import electron: the electron ban plus `patterns` (a later
 * block's options replace an earlier one's for the same rule, so each block states them all).
 * @param {...object} patterns
 */
const banImports = (...patterns) => ({
  'no-restricted-imports': ['error', { paths: [electronBan], patterns: [electronPaths, ...patterns] }],
});
const shellBan = {
  group: ['**/main/**', '**/preload/**', '**/renderer/**'],
  message: 'Engine code never imports the shell or the renderer (docs/architecture.md#layers).',
};

/**
 * docs/architecture.md#layers: SQL lives in store/ and query/; the parts above them ask those for it. Two marks of SQL
 * written elsewhere: a call of the Store's SQL methods (or a reach for its raw `db`) on `store` or
 * `x.store`, and a string or template that opens with an SQL statement. The shell is left out: it has
 * no store of its own to mistake (its electron-store files are preferences).
 */
const STORE_SQL_METHODS = '/^(all|get|run|value|column|eachRow|eachValue|db)$/';
const SQL_TEXT = '/^\\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE|WITH|PRAGMA|CREATE|DROP|ALTER)\\s/';
const SQL_MESSAGE =
  'SQL lives in electron/store/ and electron/query/: call a function there (docs/architecture.md#layers).';
const sqlBan = [
  ...['[object.name="store"]', '[object.property.name="store"]'].map((receiver) => ({
    selector: `MemberExpression${receiver}[property.name=${STORE_SQL_METHODS}]`,
    message: SQL_MESSAGE,
  })),
  { selector: `Literal[value=${SQL_TEXT}]`, message: SQL_MESSAGE },
  { selector: `TemplateElement[value.raw=${SQL_TEXT}]`, message: SQL_MESSAGE },
];
/** The engine's folders above query/ (all but the shell's main/). */
const ABOVE_QUERY = LAYERS.slice(2)
  .flat()
  .filter((folder) => folder !== 'main');

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-output/**', '**/.bench-data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...vue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['shared/**/*.ts'],
    rules: banImports({
      group: ['**/electron/**', '**/renderer/**', ...nodeBuiltins],
      message: 'shared/ imports nothing of ours and no Node built-ins.',
    }),
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.vue'],
    languageOptions: { globals: { ...globals.browser } },
    rules: banImports({
      group: ['**/electron/**', ...nodeBuiltins],
      message: 'The renderer imports only shared/ (docs/architecture.md#layers).',
    }),
  },
  // One block per engine folder: each repeats the shell ban, since a later block's options replace an
  // earlier one's for the same rule. The shell (main/) may import electron; it only keeps off cli/.
  ...LAYERS.flatMap((row, level) =>
    row.map((folder) => ({
      files: [`electron/${folder}/**/*.ts`],
      rules:
        folder === 'main'
          ? { 'no-restricted-imports': ['error', { patterns: [layerBan(folder, level)] }] }
          : banImports(shellBan, layerBan(folder, level)),
    })),
  ),
  // store/'s parts, and its root: the store's rules plus those inside it (docs/architecture.md).
  ...[null, ...Object.keys(STORE_PARTS)].map((part) => ({
    files: [part === null ? 'electron/store/*.ts' : `electron/store/${part}/**/*.ts`],
    rules: banImports(shellBan, layerBan('store', 0), storeBan(part)),
  })),
  {
    files: ABOVE_QUERY.map((folder) => `electron/${folder}/**/*.ts`),
    rules: { 'no-restricted-syntax': ['error', ...sqlBan] },
  },
  prettier,
);
