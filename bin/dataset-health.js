#!/usr/bin/env node
// Entry of the `dataset-health` command: the built headless CLI (run `npm run build` first).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../out/main/cli.js', import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write(
    'dataset-health: the CLI is not built yet; run `npm run build` in the project folder\n',
  );
  process.exit(1);
}
await import(cli.href);
