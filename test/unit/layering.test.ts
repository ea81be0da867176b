/**
 * The layering rule of docs/architecture.md#layers, as ESLint enforces it on each folder (a table of forbidden and
 * allowed imports): the shell and renderer apart, and the engine's folders importing only downward,
 * store < query < team < sync, alerts, knowledge, demo < api, rpc, control < engine < cli, main, and inside
 * store/ its parts by job (docs/architecture.md). And SQL only in store/ and query/ (a table of code that
 * writes SQL elsewhere, and code that only looks like it).
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function restricted(filePath: string, source: string, rule: string): Promise<boolean> {
  const [result] = await eslint.lintText(source, { filePath });
  return result!.messages.some((m) => m.ruleId === rule);
}

const CASES: [string, string, boolean][] = [
  ['electron/store/x.ts', "import { app } from 'electron';", true],
  ['electron/query/x.ts', "import { app } from 'electron/main';", true],
  ['electron/api/x.ts', "import { x } from '../main/index';", true],
  ['electron/cli/x.ts', "import { x } from '../preload/channels';", true],
  ['electron/demo/x.ts', "import { x } from '../../renderer/src/main';", true],
  ['shared/x.ts', "import { readFileSync } from 'node:fs';", true],
  ['shared/x.ts', "import fs from 'fs';", true],
  ['shared/x.ts', "import { Store } from '../electron/store/database';", true],
  ['renderer/src/x.ts', "import { ipcRenderer } from 'electron';", true],
  ['renderer/src/x.ts', "import { Store } from '../../electron/store/database';", true],
  ['electron/main/x.ts', "import { app } from 'electron';", false],
  // Engine folders, one level at a time: upward and sideways forbidden, downward allowed.
  ['electron/store/x.ts', "import { listDatasets } from '../query/list';", true],
  ['electron/store/x.ts', "import { SourcesSync } from '../sync/sourcesSync';", true],
  ['electron/query/x.ts', "import { SourcesSync } from '../sync/sourcesSync';", true],
  ['electron/query/x.ts', "import { ApiError } from '../api/errors';", true],
  ['electron/query/x.ts', "import { Store } from '../store/database';", false],
  ['electron/sync/x.ts', "import { Alerter } from '../alerts/alerter';", true],
  ['electron/sync/x.ts', "import { startBuiltInDemo } from '../demo/remote/builtIn';", true],
  ['electron/sync/x.ts', "import type { RouteOptions } from '../api/routes';", true],
  ['electron/sync/x.ts', "import { createRpcHandlers } from '../rpc/handlers';", true],
  ['electron/sync/x.ts', "import { x } from '../control/server';", true],
  ['electron/sync/x.ts', "import { runEngine } from '../engine/runEngine';", true],
  ['electron/sync/x.ts', "import { x } from '../cli/program';", true],
  ['electron/sync/x.ts', "import type { TasksReadThrough } from '../query/tasks';", false],
  ['electron/sync/x.ts', "import type { SourceState } from '../../shared/sync';", false],
  ['electron/alerts/x.ts', "import { x } from '../sync/apply';", true],
  ['electron/alerts/x.ts', "import { x } from '../demo/catalog';", true],
  ['electron/alerts/x.ts', "import { FAILED_DELIVERY } from '../store/schema/failedDelivery';", false],
  ['electron/alerts/x.ts', "import { getDeliveryTasks } from '../query/tasks';", false],
  ['electron/demo/x.ts', "import { SourcesSync } from '../sync/sourcesSync';", true],
  ['electron/demo/remote/x.ts', "import { SourcesSync } from '../../sync/sourcesSync';", true],
  ['electron/demo/remote/x.ts', "import { runDetailsFromTasks } from '../../query/runDetails';", false],
  ['electron/knowledge/x.ts', "import { Alerter } from '../alerts/alerter';", true],
  ['electron/knowledge/x.ts', "import { Store } from '../store/database';", false],
  // The team's rules sit below the sync, the alerts and the on-call layer: acknowledging through the
  // on-call layer records a team operation; they read the store, the API serves them.
  ['electron/team/x.ts', "import { SourcesSync } from '../sync/sourcesSync';", true],
  ['electron/team/x.ts', "import { acknowledgeDataset } from '../knowledge/acknowledge';", true],
  ['electron/team/x.ts', "import { buildApi } from '../api/app';", true],
  ['electron/team/x.ts', "import { Store } from '../store/database';", false],
  ['electron/team/x.ts', "import { InvalidArgument } from '../query/errors';", false],
  // Route delivery sits beside the rules, below the alerts that enqueue into it: it reads the store only.
  ['electron/routes/x.ts', "import { Alerter } from '../alerts/alerter';", true],
  ['electron/routes/x.ts', "import { matchEvent } from '../rules/match';", true],
  ['electron/routes/x.ts', "import { Store } from '../store/database';", false],
  ['electron/alerts/x.ts', "import { runCommand } from '../routes/command';", false],
  ['electron/knowledge/x.ts', "import { recordOwn } from '../team/localOperations';", false],
  ['electron/sync/x.ts', "import { TeamState } from '../team/converge';", false],
  ['electron/api/x.ts', "import { TeamState } from '../team/converge';", false],
  ['electron/api/x.ts', "import { createDispatch } from '../rpc/dispatch';", true],
  ['electron/api/x.ts', "import { x } from '../control/server';", true],
  ['electron/api/x.ts', "import { runEngine } from '../engine/runEngine';", true],
  ['electron/api/x.ts', "import { parseSelection } from '../query/selection';", false],
  ['electron/rpc/x.ts', "import { ApiError } from '../api/errors';", true],
  ['electron/rpc/x.ts', "import { SourcesSync } from '../sync/sourcesSync';", false],
  ['electron/rpc/x.ts', "import { Alerter } from '../alerts/alerter';", false],
  ['electron/control/x.ts', "import { registerRoutes } from '../api/routes';", true],
  ['electron/control/x.ts', "import { createDispatch } from '../rpc/dispatch';", true],
  ['electron/control/x.ts', "import { ApiError } from '../api/errors';", false],
  ['electron/control/x.ts', "import { SourcesSync } from '../sync/sourcesSync';", false],
  ['electron/engine/x.ts', "import { x } from '../cli/program';", true],
  ['electron/engine/x.ts', "import { x } from '../main/desktopApp';", true],
  ['electron/engine/x.ts', "import { createRpcHandlers } from '../rpc/handlers';", false],
  ['electron/engine/x.ts', "import { startBuiltInDemo } from '../demo/remote/builtIn';", false],
  ['electron/cli/x.ts', "import { runEngine } from '../engine/runEngine';", false],
  ['electron/cli/commands/x.ts', "import { runEngine } from '../../engine/runEngine';", false],
  ['electron/cli/x.ts', "import { x } from '../main/desktopApp';", true],
  ['electron/main/x.ts', "import { x } from '../cli/program';", true],
  ['electron/main/x.ts', "import { runEngine } from '../engine/runEngine';", false],
  ['electron/store/x.ts', "import { STAGES } from '../../shared/status';", false],
  // Inside store/ (docs/architecture.md): instance < durability < the core (database.ts) < tables <
  // snapshot, schema below the core; tables and snapshot never reach durability but through the core.
  ['electron/store/instance/x.ts', "import { DATABASE_FILE } from '../durability/files';", true],
  ['electron/store/instance/x.ts', "import type { Row } from '../schema/row';", true],
  ['electron/store/instance/x.ts', "import { Store } from '../database';", true],
  ['electron/store/instance/x.ts', "import { writeFileAtomicSync } from './atomicFile';", false],
  // The core by its path, not every file of its name: a file of instance/ so named is not the core.
  ['electron/store/instance/x.ts', "import { holderOf } from './database';", false],
  ['electron/store/durability/x.ts', "import { isProcessAlive } from '../instance/lock';", false],
  ['electron/store/durability/x.ts', "import { Store } from '../database';", true],
  ['electron/store/durability/x.ts', "import { MIGRATIONS } from '../schema/migrations';", true],
  ['electron/store/durability/x.ts', "import { ensureOrg } from '../tables/orgs';", true],
  ['electron/store/schema/x.ts', "import type { Store } from '../database';", true],
  ['electron/store/schema/x.ts', "import { ensureOrg } from '../tables/orgs';", true],
  ['electron/store/schema/x.ts', "import { listDir } from '../durability/files';", true],
  ['electron/store/schema/x.ts', "import type { Row } from './row';", false],
  ['electron/store/x.ts', "import { CommitWriter } from './durability/writer';", false],
  ['electron/store/x.ts', "import { MIGRATIONS } from './schema/migrations';", false],
  ['electron/store/x.ts', "import { ensureOrg } from './tables/orgs';", true],
  ['electron/store/x.ts', "import { importSnapshot } from './snapshot/importSnapshot';", true],
  ['electron/store/x.ts', "import { acquireDataDirLock } from './instance/lock';", true],
  ['electron/store/tables/x.ts', "import { CommitWriter } from '../durability/writer';", true],
  ['electron/store/tables/x.ts', "import { acquireDataDirLock } from '../instance/lock';", true],
  ['electron/store/tables/x.ts', "import { importSnapshot } from '../snapshot/importSnapshot';", true],
  ['electron/store/tables/x.ts', "import { listDatasets } from '../../query/list';", true],
  ['electron/store/tables/x.ts', "import type { Store } from '../database';", false],
  ['electron/store/tables/x.ts', "import { packTasks } from '../schema/tasksBlob';", false],
  ['electron/store/snapshot/x.ts', "import { JournalWriter } from '../durability/journal';", true],
  ['electron/store/snapshot/x.ts', "import { app } from 'electron';", true],
  ['electron/store/snapshot/x.ts', "import { ensureOrg } from '../tables/orgs';", false],
  ['electron/store/snapshot/x.ts', "import { refreshIncidents } from '../schema/incidents';", false],
  ['electron/store/snapshot/x.ts', "import { writeFileAtomicSync } from '../instance/atomicFile';", false],
  ['electron/store/snapshot/x.ts', "import type { Store } from '../database';", false],
  // The team server's database stands apart from the sql.js store, both ways.
  ['electron/store/teamDb/x.ts', "import type { Store } from '../database';", true],
  ['electron/store/teamDb/x.ts', "import { ensureOrg } from '../tables/orgs';", true],
  ['electron/store/tables/x.ts', "import { appendOperations } from '../teamDb/operations';", true],
  ['renderer/src/x.ts', "import { parseFilter } from '../../shared/filter';", false],
];

const SQL_CASES: [string, string, boolean][] = [
  // The Store's SQL methods, on `store` or on a `store` property, outside store/ and query/.
  ['electron/sync/x.ts', "store.column('x', []);", true],
  ['electron/team/x.ts', "store.all('SELECT 1', []);", true],
  ['electron/sync/x.ts', 'ctx.store.eachRow(sql, [], visit);', true],
  ['electron/alerts/x.ts', 'this.options.store.value<string>(sql, []);', true],
  ['electron/alerts/x.ts', 'store.all(sql);', true],
  ['electron/alerts/x.ts', 'store.get(sql, params);', true],
  ['electron/alerts/x.ts', 'store.run(sql, params);', true],
  ['electron/sync/x.ts', 'store.eachValue(sql, [], visit);', true],
  ['electron/sync/x.ts', "store.db.exec('x');", true],
  ['electron/rpc/x.ts', 'store.all(sql);', true],
  ['electron/cli/x.ts', 'store.get(sql);', true],
  // SQL text: a string or template that opens with a statement.
  ['electron/sync/x.ts', "const sql = 'SELECT 1';", true],
  ['electron/alerts/x.ts', 'const sql = `\n  INSERT INTO t VALUES (${1})`;', true],
  ['electron/alerts/x.ts', 'const sql = `WITH x AS (SELECT 1) SELECT * FROM x`;', true],
  ['electron/demo/x.ts', "const sql = 'DELETE FROM datasets';", true],
  ['electron/api/x.ts', "const sql = 'UPDATE orgs SET name = ?';", true],
  // Allowed: the store's own methods that run no SQL, other maps' `get`, words that are not SQL.
  ['electron/sync/x.ts', 'await store.whenIdle(() => 1);', false],
  ['electron/sync/x.ts', 'store.transaction(() => 1, { dataChange: false });', false],
  ['electron/alerts/x.ts', 'await store.flush();', false],
  ['electron/sync/x.ts', "this.stored.get('ds-1');", false],
  ['electron/sync/x.ts', "response.headers.get('retry-after');", false],
  ['electron/alerts/x.ts', "const text = 'Select a dataset';", false],
  ['electron/alerts/x.ts', "const text = 'deleted: ' + name;", false],
  // store/ and query/ are where SQL lives; the shell's `store` is electron-store.
  ['electron/store/x.ts', "store.run('DELETE FROM snoozes');", false],
  ['electron/query/x.ts', "store.all('SELECT 1');", false],
  ['electron/main/x.ts', "store.get('window');", false],
];

/** The names the SQL cases use, declared so they parse as the code they stand for. */
const DECLARED =
  'declare const store: any, ctx: any, sql: string, params: [], visit: any, response: any, name: string;\n';

describe.each([
  { title: 'layering', rule: 'no-restricted-imports', prelude: '', cases: CASES },
  {
    title: 'SQL only in store/ and query/',
    rule: 'no-restricted-syntax',
    prelude: DECLARED,
    cases: SQL_CASES,
  },
])('$title', ({ rule, prelude, cases }) => {
  it.each(cases)('%s: %s → restricted %s', async (file, source, expected) => {
    expect(await restricted(file, `${prelude}${source}\nexport {};\n`, rule)).toBe(expected);
  });
});
