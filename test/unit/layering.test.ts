/** The layering rule of DESIGN.md §1, as ESLint enforces it on each folder (a table of forbidden imports). */
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
  ['electron/store/x.ts', "import { STAGES } from '../../shared/status';", false],
  ['renderer/src/x.ts', "import { parseFilter } from '../../shared/filter';", false],
];

describe('layering', () => {
  it.each(CASES)('%s: %s → restricted %s', async (file, source, expected) => {
    expect(await restricted(file, `${source}\nexport {};\n`)).toBe(expected);
  });
});
