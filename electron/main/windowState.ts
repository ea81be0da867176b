/**
 * The window's remembered size and place, in `<dataDir>/window-state.json` through electron-store. A
 * file that is not JSON or not a window state is moved aside at start and the defaults used; a value
 * that turns wrong while running (a hand edit) is never used to make the window.
 */
import { join } from 'node:path';
import type { Schema } from 'electron-store';
import { openConfFile } from '../store/tables/settings';
import type { ShellDeps } from './types';
import { DEFAULT_WINDOW_STATE, WindowState, isWindowState } from './window';

export const WINDOW_STATE_FILE_NAME = 'window-state';

export const windowStatePath = (dataDir: string): string => join(dataDir, `${WINDOW_STATE_FILE_NAME}.json`);

interface StoredWindow extends Record<string, unknown> {
  window: WindowState;
}

export interface WindowStateFile {
  readonly path: string;
  read(): WindowState;
  write(state: WindowState): void;
}

export function openWindowState(
  deps: Pick<ShellDeps, 'openPreferences' | 'now' | 'warn'>,
  dataDir: string,
): WindowStateFile {
  const path = windowStatePath(dataDir);
  const store = openConfFile(
    () =>
      deps.openPreferences<StoredWindow>({
        cwd: dataDir,
        name: WINDOW_STATE_FILE_NAME,
        schema: { window: WindowState } as Schema<StoredWindow>,
        defaults: { window: structuredClone(DEFAULT_WINDOW_STATE) },
        configFileMode: 0o600,
        watch: false,
      }),
    path,
    deps.now,
    (movedTo) => deps.warn(`The window state file was not valid: moved to ${movedTo}; using the defaults.`),
  );
  return {
    path: store.path,
    read() {
      try {
        const state: unknown = store.get('window');
        return isWindowState(state) ? state : structuredClone(DEFAULT_WINDOW_STATE);
      } catch {
        return structuredClone(DEFAULT_WINDOW_STATE);
      }
    },
    write(state) {
      try {
        store.set('window', state);
      } catch (error) {
        // Remembering the place is a convenience: never a reason to fail closing or quitting.
        deps.warn(`Could not save the window state: ${String(error)}`);
      }
    },
  };
}
