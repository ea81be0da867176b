/**
 * The desktop habits of issue 27 (docs/decisions.md "Desktop habits (issue 27)"): a global shortcut that
 * brings the window forward on Triage, and opening at login. They follow the settings file: applied at
 * start and after every write (from the window, the tray or a CLI command handed over), the shortcut
 * released at quit. What the system answered is what Settings shows (`status`): a shortcut another app
 * holds is said there, never thrown; a system without login items says so rather than pretend.
 */
import type { Settings } from '../../shared/settings';
import type { DesktopStatus } from '../../shared/views';
import type { SettingsFile } from '../store/tables/settings';
import type { ShellDeps } from './types';

type Desktop = Settings['desktop'];

export class DesktopHabits {
  private registered: string | null = null;
  private problem: string | null = null;

  constructor(
    private readonly deps: Pick<ShellDeps, 'app' | 'globalShortcut' | 'platform' | 'warn'>,
    /** What the shortcut does: the window forward, on Triage. */
    private readonly onShortcut: () => void,
  ) {}

  /** Electron has login items on macOS and Windows; on Linux its calls do nothing. */
  get loginItemsSupported(): boolean {
    return this.deps.platform === 'darwin' || this.deps.platform === 'win32';
  }

  /**
   * At start: the saved shortcut only. The login item is the system's own list (the user may have
   * changed it there), so it is changed only when the setting is (`changed`).
   */
  start(desktop: Desktop): void {
    this.shortcut(desktop.globalShortcut);
  }

  /** After a write. A shortcut not held is tried again on any write: its holder may have quit. */
  changed(before: Desktop, after: Desktop): void {
    if (after.globalShortcut !== this.registered || after.globalShortcut !== before.globalShortcut)
      this.shortcut(after.globalShortcut);
    if (after.openAtLogin !== before.openAtLogin && this.loginItemsSupported)
      this.deps.app.setLoginItemSettings({ openAtLogin: after.openAtLogin });
  }

  /** At quit: the shortcut goes back to the system. */
  stop(): void {
    this.shortcut(null);
  }

  status(): DesktopStatus {
    const login = this.loginItemsSupported ? this.deps.app.getLoginItemSettings() : undefined;
    return {
      globalShortcut: { registered: this.registered, problem: this.problem },
      openAtLogin: {
        supported: login !== undefined,
        enabled: login?.openAtLogin ?? false,
        needsApproval: login?.status === 'requires-approval',
      },
      namedSounds: this.deps.platform === 'darwin',
    };
  }

  private shortcut(accelerator: string | null): void {
    if (this.registered !== null && this.registered !== accelerator) {
      this.deps.globalShortcut.unregister(this.registered);
      this.registered = null;
    }
    this.problem = null;
    if (accelerator === null || this.registered === accelerator) return;
    try {
      // false: another app (or the system) holds it; Electron gives no more reason than that.
      if (this.deps.globalShortcut.register(accelerator, this.onShortcut)) this.registered = accelerator;
      else this.problem = `${accelerator} is taken by another app or by the system: choose another shortcut.`;
    } catch (error) {
      // A hand-edited settings file may hold what the window's check would have refused.
      this.problem = `${accelerator} is not a shortcut this system takes (${error instanceof Error ? error.message : String(error)}).`;
    }
    if (this.problem !== null) this.deps.warn(`The global shortcut is off: ${this.problem}`);
  }
}

/** The settings file, telling `listener` what each write changed once it is written. */
export function heardSettings(
  file: SettingsFile,
  listener: (before: Settings, after: Settings) => void,
): SettingsFile {
  return {
    path: file.path,
    read: () => file.read(),
    write(settings) {
      const before = file.read();
      const after = file.write(settings);
      listener(before, after);
      return after;
    },
  };
}
