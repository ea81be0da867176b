/**
 * What the notification rules judge (docs/decisions.md "Rule notifications: one evaluator"): each event
 * as a fact — its key (what "at most once" counts), its time, and everything a rule can match on. Built
 * by one function from the store for the live alerts (a cycle's transitions) and for the replay (the
 * timeline's status entries), so both judge the same facts: the dataset's names as last synced, the
 * failed delivery's first failed task as stored, a late delivery's lateness from its deadline.
 */
import type { RuleEvent } from '../../shared/rules';
import type { Stage } from '../../shared/status';
import { datasetFacts } from '../query/dataset';
import { lateness, storedFailures } from '../query/ruleHistory';
import type { Store } from '../store/database';
import type { RuleSubject } from '../rules/match';

/** One event the rules judge. */
export interface RuleFact {
  /** Unique per event: `failed:<delivery>`, `missing:<dataset>:<delivery or time>`, `late:<delivery>`, … */
  key: string;
  event: RuleEvent;
  /** When the mirror learned of it (RFC 3339). */
  at: string;
  orgId: string;
  datasetId: string | null;
  datasetName: string | null;
  deliveryId: string | null;
  supplierId: string | null;
  supplierName: string | null;
  dataProductId: string | null;
  dataProductName: string | null;
  /** For `failed`: the first failed task (null: its tasks are not stored). */
  stage: Stage | null;
  shortCode: string | null;
  message: string | null;
  /** For `late`: minutes from the deadline to the delivery. */
  lateMinutes: number | null;
  /** For `recovered`: the status before and after. */
  from: string | null;
  to: string | null;
  /** For `contact-lost`: the source. */
  sourceId: string | null;
  sourceName: string | null;
}

/** A status change as the sync saw it: a cycle's transition, or a timeline entry. */
export interface SeenChange {
  datasetId: string;
  from: string | null;
  to: string | null;
  deliveryId: string | null;
  /** When the mirror learned of it, if not the moment the facts are built for (a replay's history). */
  at?: string;
}

const RECOVERED_FROM = new Set(['FAILED', 'MISSING']);
const RECOVERED_TO = new Set(['HEALTHY', 'DELIVERED_LATE']);

/**
 * The rule events a status change is (a dataset new to the mirror is one only if FAILED). MISSING →
 * DELIVERED_LATE is two: it recovered, and it came late — the usual way a late delivery is seen, since
 * nothing had arrived by its deadline.
 */
export function eventsOf(change: SeenChange): RuleEvent[] {
  // A dataset that comes new and FAILED after the first sync is a new failure all the same.
  if (change.to === 'FAILED') return ['failed'];
  if (change.from === null || change.to === null) return [];
  const events: RuleEvent[] = [];
  if (change.to === 'MISSING' && change.from !== 'MISSING') events.push('missing');
  if (RECOVERED_FROM.has(change.from) && RECOVERED_TO.has(change.to)) events.push('recovered');
  if (change.to === 'DELIVERED_LATE' && change.from !== 'DELIVERED_LATE') events.push('late');
  return events;
}

export function factKey(event: RuleEvent, change: SeenChange, at: string): string {
  if (event === 'failed' || event === 'late')
    return `${event}:${change.deliveryId ?? `${change.datasetId}@${at}`}`;
  return `${event}:${change.datasetId}:${change.deliveryId ?? at}`;
}

/**
 * The facts of an org's status changes learned at `at` (or each at its own), in their order: the
 * changes that are rule events, with what the store knows of their datasets now.
 */
export function factsOfChanges(
  store: Store,
  orgId: string,
  changes: readonly SeenChange[],
  at: string,
): RuleFact[] {
  const events = changes.flatMap((change) => eventsOf(change).map((event) => ({ change, event })));
  if (events.length === 0) return [];
  const datasets = datasetFacts(store, orgId, [...new Set(events.map(({ change }) => change.datasetId))]);
  const failures = storedFailures(
    store,
    orgId,
    events.flatMap(({ change, event }) =>
      event === 'failed' && change.deliveryId !== null ? [change.deliveryId] : [],
    ),
  );
  const late = lateness(
    store,
    orgId,
    events.flatMap(({ change, event }) =>
      event === 'late' && change.deliveryId !== null ? [change.deliveryId] : [],
    ),
  );
  return events.map(({ change, event }) => {
    const of = datasets.get(change.datasetId);
    const failure =
      event === 'failed' && change.deliveryId !== null ? (failures.get(change.deliveryId) ?? null) : null;
    const learned = change.at ?? at;
    return {
      key: factKey(event, change, learned),
      event,
      at: learned,
      orgId,
      datasetId: change.datasetId,
      datasetName: of?.name ?? null,
      deliveryId: change.deliveryId,
      supplierId: of?.supplierId ?? null,
      supplierName: of?.supplierName ?? null,
      dataProductId: of?.dataProductId ?? null,
      dataProductName: of?.dataProductName ?? null,
      stage: (failure?.stage ?? null) as Stage | null,
      shortCode: failure?.shortCode ?? null,
      message: failure?.message ?? null,
      lateMinutes:
        event === 'late' && change.deliveryId !== null ? (late.get(change.deliveryId) ?? null) : null,
      from: change.from,
      to: change.to,
      sourceId: null,
      sourceName: null,
    };
  });
}

/** A source's lost contact as a fact (its key: the outage's time). */
export function contactFact(outage: {
  orgId: string;
  sourceId: string;
  sourceName: string;
  lostAt: string;
}): RuleFact {
  return {
    key: `contact-lost:${outage.sourceId}:${outage.lostAt}`,
    event: 'contact-lost',
    at: outage.lostAt,
    orgId: outage.orgId,
    datasetId: null,
    datasetName: null,
    deliveryId: null,
    supplierId: null,
    supplierName: null,
    dataProductId: null,
    dataProductName: null,
    stage: null,
    shortCode: null,
    message: null,
    lateMinutes: null,
    from: null,
    to: null,
    sourceId: outage.sourceId,
    sourceName: outage.sourceName,
  };
}

/** What the rules look at in a fact. */
export const subjectOf = (fact: RuleFact): RuleSubject => ({
  event: fact.event,
  lateMinutes: fact.lateMinutes,
  datasetId: fact.datasetId,
  datasetName: fact.datasetName,
  supplierId: fact.supplierId,
  supplierName: fact.supplierName,
  dataProductId: fact.dataProductId,
  dataProductName: fact.dataProductName,
  stage: fact.stage,
  shortCode: fact.shortCode,
});
