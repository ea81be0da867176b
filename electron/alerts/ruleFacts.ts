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
import { type DeliveryTimes, deliveryTimes, storedFailures } from '../query/ruleHistory';
import type { Store } from '../store/database';
import type { RuleSubject } from '../rules/match';

const MINUTE = 60_000;

/** One event the rules judge: what a rule looks at in it, and what its notification tells. */
export interface RuleFact extends RuleSubject {
  /** Unique per event: `failed:<delivery>`, `missing:<dataset>:<delivery or time>`, `late:<delivery>`, … */
  key: string;
  /** When the mirror learned of it (RFC 3339). */
  at: string;
  orgId: string;
  deliveryId: string | null;
  /** For `failed`: the first failed task's message. */
  message: string | null;
  /** For `late`: whether the delivery had come by `at` (false: `lateMinutes` counts to `at`). */
  lateDelivered?: boolean;
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
  const late = deliveryTimes(
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
    const times = event === 'late' && change.deliveryId !== null ? late.get(change.deliveryId) : undefined;
    return {
      ...blankFact(factKey(event, change, learned), event, learned, orgId),
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
      ...(times === undefined ? {} : lateAsOf(times, learned)),
      from: change.from,
      to: change.to,
    };
  });
}

/**
 * How late a delivery was when the mirror learned of it: to its delivery if it had come by then, else
 * to that moment. Never a delivery time that came later — a later crawl that fills it in would make the
 * replay judge a `late` rule otherwise than the live alerts did (docs/decisions.md "Replaying the rules").
 */
function lateAsOf(
  { deadline, deliveredAt }: DeliveryTimes,
  at: string,
): { lateMinutes: number; lateDelivered: boolean } {
  const learned = Date.parse(at);
  const delivered = deliveredAt !== null && deliveredAt <= learned;
  const end = delivered ? deliveredAt : learned;
  return { lateMinutes: Math.max(0, Math.floor((end - deadline) / MINUTE)), lateDelivered: delivered };
}

/** A fact with nothing known but its key, event, time and org: the fields each kind fills in. */
export const blankFact = (key: string, event: RuleEvent, at: string, orgId: string): RuleFact => ({
  key,
  event,
  at,
  orgId,
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
  sourceId: null,
  sourceName: null,
});

/** A source's lost contact as a fact (its key: the outage's time). */
export function contactFact(outage: {
  orgId: string;
  sourceId: string;
  sourceName: string;
  lostAt: string;
}): RuleFact {
  return {
    ...blankFact(
      `contact-lost:${outage.sourceId}:${outage.lostAt}`,
      'contact-lost',
      outage.lostAt,
      outage.orgId,
    ),
    sourceId: outage.sourceId,
    sourceName: outage.sourceName,
  };
}
