/**
 * Checks electron-builder.yml the way electron-builder does before packaging (its JSON schema, through
 * its own loader), without packaging: that would download Electron, which CI cannot. Also checks the
 * files the config names exist.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { DebugLogger } from 'builder-util';

const require = createRequire(import.meta.url);
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js');

const root = join(import.meta.dirname, '..');
const config = await getConfig(root, join(root, 'electron-builder.yml'), null);
await validateConfiguration(config, new DebugLogger(false));
const named = [
  config.linux?.icon,
  config.mac?.icon,
  config.win?.icon,
  join(config.directories.buildResources, 'icon.png'),
];
const missing = named.filter((file) => file && !existsSync(join(root, file)));
if (missing.length > 0) {
  console.error(`electron-builder.yml names missing files: ${missing.join(', ')}`);
  process.exit(1);
}
console.log(
  `electron-builder.yml is valid: ${config.appId}, targets ${['linux', 'mac', 'win'].map((os) => `${os}: ${[config[os]?.target].flat().join('/')}`).join('; ')}`,
);
