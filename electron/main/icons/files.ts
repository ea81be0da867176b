/**
 * Where the icons live (`resources/` beside `out/`, packaged with the app) and which file each OS gets:
 * a template image on macOS, colour elsewhere, each with its @2x for high-density screens (Electron
 * picks the @2x file beside the named one itself).
 */
import { join } from 'node:path';
import type { TrayLevel } from '../../alerts/trayState';

export const TRAY_LEVELS: readonly TrayLevel[] = ['failed', 'warning', 'healthy', 'stale'];
/** Tray icons are 16 px (32 px at @2x): the size every OS's tray shows. */
export const TRAY_SIZE = 16;
export const APP_ICON_SIZE = 1024;

export function trayIconFile(level: TrayLevel, platform: NodeJS.Platform): string {
  return platform === 'darwin' ? `tray-${level}Template.png` : `tray-${level}.png`;
}

/** Every generated file, relative to the project root, with how to draw it. */
export function iconFiles(): { path: string; level: TrayLevel | null; size: number; template: boolean }[] {
  const tray = TRAY_LEVELS.flatMap((level) =>
    [false, true].flatMap((template) =>
      [1, 2].map((scale) => ({
        path: join(
          'resources',
          'tray',
          trayIconFile(level, template ? 'darwin' : 'linux').replace(
            '.png',
            scale === 2 ? '@2x.png' : '.png',
          ),
        ),
        level,
        size: TRAY_SIZE * scale,
        template,
      })),
    ),
  );
  return [
    ...tray,
    { path: join('build', 'icon.png'), level: null, size: APP_ICON_SIZE, template: false },
    { path: join('resources', 'icon.png'), level: null, size: 256, template: false },
  ];
}
