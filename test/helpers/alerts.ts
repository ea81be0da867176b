/**
 * An alerts bench: a real store (in memory, or in a temp folder to restart over), datasets written as a
 * sync writes them, and the cycles and source states the sync would report, delivered by hand with a
 * clock the test moves.
 */
import { DEFAULT_SETTINGS, type Settings } from '../../shared/settings';
import { EMPTY_COUNTS, type CycleEvent, type SourceState, type StatusTransition } from '../../shared/sync';
import { Alerter, type AlertTimers, type SyncEvents } from '../../electron/alerts/alerter';
import type { Announcement } from '../../electron/alerts/types';
import type { Store } from '../../electron/store/database';
import { writeDataset, writeTasks } from '../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../electron/store/tables/orgs';
import { fixtureRecords, fixtureTasks } from './fixtures';
import { regroup } from './incidents';

export const ORG = 'acme';

/** The sync's reports, delivered by the test. */
export class ReportedSync implements SyncEvents {
  private cycleListeners = new Set<(event: CycleEvent) => void>();
  private stateListeners = new Set<(state: SourceState) => void>();
  sources: SourceState[] = [];
  onCycle(listener: (event: CycleEvent) => void) {
    this.cycleListeners.add(listener);
    return () => this.cycleListeners.delete(listener);
  }
  onState(listener: (state: SourceState) => void) {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }
  states(): SourceState[] {
    return this.sources;
  }
  /** A source's state as the runner reports it. */
  setState(state: SourceState): void {
    this.sources = [...this.sources.filter((s) => s.sourceId !== state.sourceId), state];
    for (const listener of this.stateListeners) listener(state);
  }
}

export function sourceState(overrides: Partial<SourceState> = {}): SourceState {
  return {
    sourceId: `${ORG}-remote`,
    orgId: ORG,
    name: 'Acme',
    phase: 'idle',
    activity: null,
    lastSuccessAt: null,
    lastError: null,
    lastErrorAt: null,
    lastDurationMs: 1000,
    lastCounts: null,
    nextRunAt: null,
    stopped: false,
    pollIntervalMs: 60_000,
    ...overrides,
  };
}

export function cycle(overrides: Partial<CycleEvent> = {}): CycleEvent {
  return {
    sourceId: `${ORG}-remote`,
    orgId: ORG,
    kind: 'poll',
    outcome: 'ok',
    firstSync: false,
    transitions: [] as StatusTransition[],
    counts: { ...EMPTY_COUNTS },
    error: null,
    startedAt: '2026-11-21T04:41:00.000Z',
    endedAt: '2026-11-21T04:41:01.000Z',
    ...overrides,
  };
}

let written = 0;

export interface PutOptions {
  orgId?: string;
  /** false: the FAILED delivery's tasks are not synced yet (its cause is `unknown`). */
  tasks?: boolean;
  now?: Date;
  /** The failed normalize task's shortCode (default E_SCHEMA_MISMATCH): the cause `normalize:<code>`. */
  shortCode?: string;
  supplier?: { id: string; name: string };
  /** Delivered this many minutes after its deadline. */
  lateMinutes?: number;
}

/**
 * Writes dataset `ds-<n>` with `status` as its latest, about delivery `deliveryId` (its newest event),
 * and that delivery's tasks when it FAILED (a normalize task with E_SCHEMA_MISMATCH, or `shortCode`), as
 * a sync would.
 */
export function putDataset(
  store: Store,
  n: number,
  status: string,
  deliveryId: string,
  options: PutOptions = {},
): string {
  const orgId = options.orgId ?? ORG;
  const base = fixtureRecords(1, n, `ds-${n}`)[0]!;
  const datasetId = `ds-${n}`;
  // Each write is a newer delivery than the last: its deadline is later.
  const deliveryDeadline = new Date(Date.UTC(2026, 10, 21, 0, written++)).toISOString();
  const deliveredAt =
    options.lateMinutes === undefined
      ? base.deliveryEventList[0]!.deliveredAt
      : new Date(Date.parse(deliveryDeadline) + options.lateMinutes * 60_000).toISOString();
  const event = { ...base.deliveryEventList[0]!, status, deliveryId, deliveryDeadline, deliveredAt };
  const record = {
    ...base,
    datasetId,
    datasetName: `Dataset ${n}`,
    deliveryId,
    latestDeliveryStatus: status,
    deliveryEventList: [event],
    ...(options.supplier ? { supplier: options.supplier } : {}),
  };
  const tasks = fixtureTasks(deliveryId, datasetId);
  if (options.shortCode !== undefined)
    for (const task of tasks.normalize.tasks)
      if (task.status === 'FAILED') {
        task.shortCode = options.shortCode;
        task.message = `failed with ${options.shortCode}`;
      }
  store.transaction(() => {
    ensureOrg(store, orgId, options.now ?? new Date('2026-11-21T04:00:00.000Z'));
    writeDataset(store, orgId, record, { events: 'merge', deliveriesPerDataset: 100 });
    if (status === 'FAILED' && options.tasks !== false) writeTasks(store, orgId, deliveryId, tasks);
    regroup(store, orgId, options.now ?? new Date('2026-11-21T04:00:00.000Z'));
  });
  return datasetId;
}

/** Timers the test fires by hand. */
export class HandTimers implements AlertTimers {
  private next = 1;
  pending = new Map<number, { fn: () => void; ms: number }>();
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { fn, ms });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }
}

export interface AlertsBench {
  store: Store;
  alerts: Alerter;
  sync: ReportedSync;
  heard: Announcement[];
  settings: Settings;
  clock: { now: Date };
  timers: HandTimers;
  /** Reports a cycle and waits for its announcements. */
  cycle(event?: Partial<CycleEvent>): Promise<Announcement[]>;
}

export function alertsBench(store: Store, options: { now?: Date; timeZone?: string } = {}): AlertsBench {
  const sync = new ReportedSync();
  const settings = structuredClone(DEFAULT_SETTINGS);
  const clock = { now: options.now ?? new Date('2026-11-21T12:00:00.000Z') };
  const timers = new HandTimers();
  const alerts = new Alerter({
    store,
    sync,
    settings: () => settings,
    now: () => clock.now,
    timeZone: options.timeZone ?? 'UTC',
    timers,
    onError: (error) => {
      throw error;
    },
  });
  const heard: Announcement[] = [];
  alerts.onAnnouncement((announcement) => heard.push(announcement));
  return {
    store,
    alerts,
    sync,
    heard,
    settings,
    clock,
    timers,
    cycle: (event = {}) => alerts.handleCycle(cycle(event)),
  };
}
