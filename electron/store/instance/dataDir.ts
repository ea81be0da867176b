/**
 * Where data lives (docs/architecture.md#the-cli): `--data-dir`, else env DATASET_HEALTH_DATA_DIR, else the app's
 * user-data folder — the same folder Electron's `app.getPath('userData')` gives the desktop app.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export const PRODUCT_NAME = 'Dataset Health';
export const DATA_DIR_ENV = 'DATASET_HEALTH_DATA_DIR';

export function userDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = homedir(),
): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', PRODUCT_NAME);
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), PRODUCT_NAME);
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), PRODUCT_NAME);
}

export function resolveDataDir(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (option) return resolve(option);
  const fromEnv = env[DATA_DIR_ENV];
  if (fromEnv) return resolve(fromEnv);
  return userDataDir(process.platform, env);
}
