/**
 * The window's RPC while the app starts (issue 12 item 4). The window and the tray show at once, but a
 * large data directory takes seconds to open (the image, the journal replay, an integrity check). Until
 * the engine runs, `database.status` answers "opening" with what is known (where, how much to read,
 * since when) and every other call waits for the engine; from then on every call goes to the engine and
 * its events reach the window, the first being `database.status` "open".
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseStatus } from '../../shared/database';
import type { Dispatch } from '../rpc/dispatch';
import type { EventHub, EventListener } from '../rpc/events';
import { DATABASE_FILE } from '../store/durability/files';
import { isJournalFileName } from '../store/durability/journal';

/** What the window talks to once the engine runs. */
export interface EngineRpc {
  dispatch: Dispatch;
  events: EventHub;
}

/** The bytes opening reads: the database file and its journals (0 in a new folder). */
export function bytesToOpen(dataDir: string): number {
  let names: string[];
  try {
    names = readdirSync(dataDir);
  } catch {
    return 0;
  }
  return names
    .filter((name) => name === DATABASE_FILE || isJournalFileName(name))
    .reduce((sum, name) => {
      try {
        return sum + statSync(join(dataDir, name)).size;
      } catch {
        return sum;
      }
    }, 0);
}

export class EngineStartup {
  /** What `database.status` answers until the engine runs. */
  readonly opening: DatabaseStatus;
  private engine: EngineRpc | undefined;
  private readonly listeners = new Set<EventListener>();
  private resolveEngine!: (engine: EngineRpc) => void;
  private readonly engineRuns = new Promise<EngineRpc>((resolve) => (this.resolveEngine = resolve));

  constructor(dataDir: string, now: () => Date) {
    this.opening = {
      state: 'opening',
      dataDir,
      opening: { bytes: bytesToOpen(dataDir), since: now().toISOString() },
      writeProblem: null,
    };
  }

  /** The window's calls: answered by the engine, or (while it starts) waiting for it. */
  readonly dispatch: Dispatch = async (name, request) => {
    if (this.engine) return this.engine.dispatch(name, request);
    // Its request carries nothing (the contract's Empty): there is nothing to check before answering.
    if (name === 'database.status') return this.opening;
    return (await this.engineRuns).dispatch(name, request);
  };

  /** The events the window hears: the engine's once it runs, and the shell's own (`app.navigate`) always. */
  readonly events: EventHub = {
    subscribe: (listener) => {
      this.listeners.add(listener);
      return () => this.listeners.delete(listener);
    },
    emit: (name, payload) => this.listeners.forEach((listener) => listener(name, payload)),
  };

  /** The engine runs on the open database (`status`): the window hears it, and waiting calls go on. */
  started(engine: EngineRpc, status: DatabaseStatus): void {
    if (this.engine) return;
    this.engine = engine;
    engine.events.subscribe((name, payload) => this.events.emit(name, payload));
    this.events.emit('database.status', status);
    this.resolveEngine(engine);
  }
}
