/**
 * A typed fake of Electron's globalShortcut (electron/main/types.ts `ShellGlobalShortcut`), part of the
 * shell's fakes (electronFake.ts): what the app holds, and the system's two refusals a test can set up.
 */
import type { ShellGlobalShortcut } from '../../electron/main/types';

/** Global shortcuts as the system holds them: some taken by other apps, some it cannot parse. */
export class FakeGlobalShortcut implements ShellGlobalShortcut {
  readonly held = new Map<string, () => void>();
  /** Held by another app: registering answers false, as Electron does. */
  readonly taken = new Set<string>();
  /** Not parsed by the system: registering throws, as Electron does for a bad accelerator. */
  readonly unparsable = new Set<string>();
  readonly calls: string[] = [];
  register(accelerator: string, callback: () => void): boolean {
    this.calls.push(`register ${accelerator}`);
    if (this.unparsable.has(accelerator)) throw new Error('conversion failure');
    if (this.taken.has(accelerator) || this.held.has(accelerator)) return false;
    this.held.set(accelerator, callback);
    return true;
  }
  unregister(accelerator: string): void {
    this.calls.push(`unregister ${accelerator}`);
    this.held.delete(accelerator);
  }
  /** The user presses it, in any app. */
  press(accelerator: string): void {
    const callback = this.held.get(accelerator);
    if (!callback) throw new Error(`${accelerator} is not held`);
    callback();
  }
}
