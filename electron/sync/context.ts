/** What one sync cycle of one source works with, and what it reports. */
import type { StatusTransition, SyncCounts, SyncKind } from '../../shared/sync';
import type { Store } from '../store/database';
import type { SpoolOptions } from './changes';
import type { RemoteClient } from './client';

export interface CycleContext {
  store: Store;
  client: RemoteClient;
  /** The local org the source mirrors into. */
  orgId: string;
  now: () => Date;
  signal?: AbortSignal;
  /** Retention: events kept per dataset. */
  deliveriesPerDataset: number;
  /** Failures of one cause this close in time are one incident (store/schema/incidents.ts). */
  incidentGapMs: number;
  /** Concurrent requests for tasks and direct dataset fetches. */
  concurrency: number;
  /** Where and past how much the cycle's changed records wait on disk for its commit (changes.ts). */
  spool: SpoolOptions;
  /** A short line about what runs now ("crawl: page 3, 2,000 datasets"). */
  progress: (line: string) => void;
}

export interface CycleOutcome {
  kind: SyncKind;
  /** The org's first complete crawl: alerts summarize it instead of announcing each dataset. */
  firstSync: boolean;
  transitions: StatusTransition[];
  counts: SyncCounts;
  /** When its changes were written: the time of their timeline entries. */
  learnedAt?: string;
}

/** Deliveries asked for per dataset: deep on the first crawl, the recent window after (docs/architecture.md#crawl). */
export const FIRST_CRAWL_DELIVERIES = 100;
export const LATER_DELIVERIES = 10;
export const DEFAULT_CONCURRENCY = 4;
