/**
 * The layering rule of DESIGN.md §1, as ESLint enforces it on each folder (a table of forbidden and
 * allowed imports): the shell and renderer apart, and the engine's folders importing only downward,
 * store < query < sync, alerts, knowledge, demo < api, rpc, control < engine < cli, main.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint();

async function restricted(filePath: string, source: string): Promise<boolean> {
  const [result] = await eslint.lintText(source, { filePath });
  return result!.messages.some((m) => m.ruleId === 'no-restricted-imports');
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
  ['electron/store/x.ts', "import { SyncEngine } from '../sync/engine';", true],
  ['electron/query/x.ts', "import { SyncEngine } from '../sync/engine';", true],
  ['electron/query/x.ts', "import { ApiError } from '../api/errors';", true],
  ['electron/query/x.ts', "import { Store } from '../store/database';", false],
  ['electron/sync/x.ts', "import { AlertsEngine } from '../alerts/engine';", true],
  ['electron/sync/x.ts', "import { startBuiltInDemo } from '../demo/remote/builtIn';", true],
  ['electron/sync/x.ts', "import type { RouteOptions } from '../api/routes';", true],
  ['electron/sync/x.ts', "import { createRpcHandlers } from '../rpc/handlers';", true],
  ['electron/sync/x.ts', "import { x } from '../control/server';", true],
  ['electron/sync/x.ts', "import { runEngine } from '../engine/runEngine';", true],
  ['electron/sync/x.ts', "import { x } from '../cli/program';", true],
  ['electron/sync/x.ts', "import type { TasksReadThrough } from '../query/tasks';", false],
  ['electron/sync/x.ts', "import type { SourceState } from '../../shared/sync';", false],
  ['electron/alerts/x.ts', "import { x } from '../sync/storedState';", true],
  ['electron/alerts/x.ts', "import { x } from '../demo/catalog';", true],
  ['electron/alerts/x.ts', "import { FAILED_DELIVERY } from '../store/failedDelivery';", false],
  ['electron/alerts/x.ts', "import { getDeliveryTasks } from '../query/tasks';", false],
  ['electron/demo/x.ts', "import { SyncEngine } from '../sync/engine';", true],
  ['electron/demo/remote/x.ts', "import { SyncEngine } from '../../sync/engine';", true],
  ['electron/demo/remote/x.ts', "import { runDetailsFromTasks } from '../../query/runDetails';", false],
  ['electron/knowledge/x.ts', "import { AlertsEngine } from '../alerts/engine';", true],
  ['electron/knowledge/x.ts', "import { Store } from '../store/database';", false],
  ['electron/api/x.ts', "import { createDispatch } from '../rpc/dispatch';", true],
  ['electron/api/x.ts', "import { x } from '../control/server';", true],
  ['electron/api/x.ts', "import { runEngine } from '../engine/runEngine';", true],
  ['electron/api/x.ts', "import { parseSelection } from '../query/selection';", false],
  ['electron/rpc/x.ts', "import { ApiError } from '../api/errors';", true],
  ['electron/rpc/x.ts', "import { SyncEngine } from '../sync/engine';", false],
  ['electron/rpc/x.ts', "import { AlertsEngine } from '../alerts/engine';", false],
  ['electron/control/x.ts', "import { registerRoutes } from '../api/routes';", true],
  ['electron/control/x.ts', "import { createDispatch } from '../rpc/dispatch';", true],
  ['electron/control/x.ts', "import { ApiError } from '../api/errors';", false],
  ['electron/control/x.ts', "import { SyncEngine } from '../sync/engine';", false],
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
  ['renderer/src/x.ts', "import { parseFilter } from '../../shared/filter';", false],
];

describe('layering', () => {
  it.each(CASES)('%s: %s → restricted %s', async (file, source, expected) => {
    expect(await restricted(file, `${source}\nexport {};\n`)).toBe(expected);
  });
});
