/**
 * Replaying the rules (docs/decisions.md "Replaying the rules"): what a rule set would have sent over the
 * last N days, found by the evaluator that runs live (ruleRun.ts) on the facts of the stored history —
 * each moment's status changes as the timeline recorded them, lost contact as sync_outages did, the
 * acknowledgements as they stood then — with digests released on the live ticks' 30-second grid. Beside
 * it, what the rules in force did send (recorded as it happened).
 *
 * History the mirror does not have is not guessed: before the org's first sync there is nothing, and the
 * first sync itself told what was failing already, not news. The result says where its history starts.
 */
import type { RuleSet } from '../../shared/rules';
import type { ReplayResult } from '../../shared/rulesView';
import { dateTimeFormat } from '../../shared/time';
import {
  type AcknowledgedSpan,
  acknowledgedSpans,
  cutHistories,
  failuresBefore,
  historyStart,
  lostContacts,
  mirroredSince,
  statusChanges,
} from '../query/ruleHistory';
import type { Store } from '../store/database';
import { ruleNotificationsSent } from '../store/tables/ruleLog';
import { RuleMatcher } from '../rules/match';
import { TICK_MS } from './tick';
import { acknowledgedStatus } from './acknowledged';
import { type RuleFact, contactFact, factsOfChanges } from './ruleFacts';
import {
  type Acknowledged,
  type Gathered,
  type RuleNotification,
  digestDueAt,
  judge,
  releaseDue,
} from './ruleRun';

const DAY_MS = 86_400_000;

export interface ReplayInput {
  store: Store;
  orgId: string;
  /** The rules to replay. */
  set: RuleSet;
  days: number;
  now: Date;
  /** The user's zone: digests' times of day, and the days the counts are by. */
  timeZone: string;
}

/** The result's shape is shared with the window (Settings → Rules). */
export type { ReplayResult, ReplayRule } from '../../shared/rulesView';

/** Whether an acknowledgement held for the fact's problem at `at`, as the store remembers them. */
function acknowledgedThen(spans: readonly AcknowledgedSpan[]): Acknowledged {
  const byDelivery = new Map<string, AcknowledgedSpan[]>();
  for (const span of spans) {
    const of = byDelivery.get(span.deliveryId);
    if (of) of.push(span);
    else byDelivery.set(span.deliveryId, [span]);
  }
  return (fact, at) => {
    const status = acknowledgedStatus(fact);
    if (status === null || fact.deliveryId === null) return false;
    const time = Date.parse(at);
    return (byDelivery.get(fact.deliveryId) ?? []).some(
      (span) =>
        span.datasetId === fact.datasetId &&
        span.status === status &&
        span.from <= time &&
        (span.until === null || time < span.until),
    );
  };
}

/** The moments the mirror learned facts at, in order (a lost contact is a moment of its own). */
function momentsOf(
  facts: readonly RuleFact[],
  contacts: readonly RuleFact[],
): { at: string; facts: RuleFact[] }[] {
  const moments = new Map<string, RuleFact[]>();
  for (const fact of facts) {
    const of = moments.get(fact.at);
    if (of) of.push(fact);
    else moments.set(fact.at, [fact]);
  }
  const all = [...moments].map(([at, of]) => ({ at, facts: of }));
  all.push(...contacts.map((fact) => ({ at: fact.at, facts: [fact] })));
  return all.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

export function replayRules(input: ReplayInput): ReplayResult {
  const { store, orgId, set, days, now, timeZone } = input;
  const from = new Date(now.getTime() - days * DAY_MS);
  const first = historyStart(store, orgId);
  // The first sync's entries are what was already so: the replay starts just after them.
  const start = first === null ? now : new Date(Math.max(from.getTime(), first.getTime()));
  const historyFrom = first !== null && first.getTime() >= from.getTime() ? first.toISOString() : null;
  const matcher = new RuleMatcher(set.rules);
  const acknowledged = acknowledgedThen(acknowledgedSpans(store, orgId));
  const changes = statusChanges(store, orgId, start, now);
  const facts = factsOfChanges(store, orgId, changes, now.toISOString());
  const contacts = lostContacts(store, orgId, start, now).map(contactFact);
  const notifications: RuleNotification[] = [];
  let pending: Gathered[] = [];
  let lastTick = Math.floor(start.getTime() / TICK_MS) * TICK_MS;
  /** When the first of what waits can fall due: a rule gone, disabled or no digest any more, at once. */
  const firstDue = (): number => {
    const firsts = new Map<string, { orgId: string; ruleId: string; first: number }>();
    for (const item of pending) {
      const key = `${item.orgId}\n${item.ruleId}`;
      const at = Date.parse(item.addedAt);
      const group = firsts.get(key);
      if (group === undefined) firsts.set(key, { orgId: item.orgId, ruleId: item.ruleId, first: at });
      else group.first = Math.min(group.first, at);
    }
    let due = Infinity;
    for (const { ruleId, first } of firsts.values()) {
      const rule = matcher.byId(ruleId);
      const schedule = rule !== null && rule.enabled && rule.action === 'digest' ? rule.digest : undefined;
      due = Math.min(due, schedule === undefined ? first : digestDueAt(schedule, new Date(first), timeZone));
    }
    return due;
  };
  const waiting = new Set<string>();
  /** The live ticks up to `limit` at which a digest falls due (the others send nothing). */
  const tickUntil = (limit: number): void => {
    while (pending.length > 0) {
      const tick = Math.max(lastTick + TICK_MS, Math.ceil(firstDue() / TICK_MS) * TICK_MS);
      if (tick > limit) return;
      lastTick = tick;
      const released = releaseDue(() => matcher, pending, new Date(tick), timeZone, acknowledged);
      notifications.push(...released.notifications);
      const done = new Set(released.done);
      for (const item of released.done) waiting.delete(item.fact.key);
      pending = pending.filter((item) => !done.has(item));
    }
  };
  // A failure is judged once per delivery (live: the alerts' memory, which holds those of before the
  // window too); the other events at each change.
  const told = new Set(failuresBefore(store, orgId, start).map((deliveryId) => `failed:${deliveryId}`));
  for (const moment of momentsOf(facts, contacts)) {
    tickUntil(Date.parse(moment.at));
    // The first sync's "first seen" entries tell what was so already, not news (at the oldest moment
    // kept, once the timeline was pruned, only those are left out).
    const firstSeen = first !== null && Date.parse(moment.at) === first.getTime();
    const fresh: RuleFact[] = [];
    for (const fact of moment.facts) {
      if (fact.event === 'failed' && told.has(fact.key)) continue;
      const known = firstSeen && fact.from === null && fact.event !== 'contact-lost';
      // Live remembers a failure it saw for good — told in the first sync's summary, or acknowledged
      // before its first word — and never judges that delivery again.
      if (known || acknowledged(fact, moment.at)) {
        if (fact.event === 'failed') told.add(fact.key);
        continue;
      }
      if (fact.event === 'failed') told.add(fact.key);
      fresh.push(fact);
    }
    const judged = judge(matcher, fresh, moment.at);
    notifications.push(...judged.notifications);
    // An event waiting for its digest already is gathered once (live: keyed by the event).
    for (const item of judged.gathered)
      if (!waiting.has(item.fact.key)) {
        waiting.add(item.fact.key);
        pending.push(item);
      }
  }
  tickUntil(now.getTime());
  // In the order the rules log keeps them: by time, then by id.
  notifications.sort(
    (a, b) => Date.parse(a.at) - Date.parse(b.at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
  const sent = ruleNotificationsSent(store, orgId, from, now) as RuleNotification[];
  return {
    orgId,
    days,
    from: from.toISOString(),
    to: now.toISOString(),
    historyFrom,
    note: notesOf([
      historyNote(first, from, now, timeZone),
      importedNote(first, mirroredSince(store, orgId), from, timeZone),
      cutNote(cutHistories(store, orgId, start), timeZone),
    ]),
    notifications,
    sent,
    byDay: byDay(from, now, timeZone, notifications, sent),
    byRule: set.rules.map((rule) => ({
      ruleId: rule.id,
      name: rule.name,
      action: rule.action,
      count: notifications.filter((notification) => notification.ruleId === rule.id).length,
      sent: sent.filter((notification) => notification.ruleId === rule.id).length,
    })),
  };
}

const dayOf = (time: number, timeZone: string): string =>
  dateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(time),
  );

function byDay(
  from: Date,
  to: Date,
  timeZone: string,
  notifications: readonly RuleNotification[],
  sent: readonly RuleNotification[],
): ReplayResult['byDay'] {
  const days = new Map<string, ReplayResult['byDay'][number]>();
  for (let time = from.getTime(); time < to.getTime() + DAY_MS; time += DAY_MS / 2) {
    const day = dayOf(Math.min(time, to.getTime()), timeZone);
    if (!days.has(day)) days.set(day, { day, count: 0, sent: 0, byRule: {} });
  }
  for (const notification of notifications) {
    const day = days.get(dayOf(Date.parse(notification.at), timeZone));
    if (day === undefined) continue;
    day.count += 1;
    day.byRule[notification.ruleId] = (day.byRule[notification.ruleId] ?? 0) + 1;
  }
  for (const notification of sent) {
    const day = days.get(dayOf(Date.parse(notification.at), timeZone));
    if (day !== undefined) day.sent += 1;
  }
  return [...days.values()];
}

const shownAt = (at: Date, timeZone: string): string =>
  dateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(at);

/** The sentences that say what the replay could not see, as one note (null: it saw everything asked). */
const notesOf = (notes: readonly (string | null)[]): string | null =>
  notes.filter((note) => note !== null).join(' ') || null;

function historyNote(first: Date | null, from: Date, now: Date, timeZone: string): string | null {
  if (first === null) return 'No history to replay yet: this org has not been synced.';
  if (first.getTime() < from.getTime()) return null;
  const covered = Math.max(0, (now.getTime() - first.getTime()) / DAY_MS);
  return `History starts ${shownAt(first, timeZone)} (this org's first sync, or the oldest change still kept): the replay covers ${covered.toFixed(1)} of the ${Math.round(
    (now.getTime() - from.getTime()) / DAY_MS,
  )} days asked for, and nothing before it is guessed.`;
}

/** History older than this machine's own came with the org (an imported snapshot, the demo). */
function importedNote(first: Date | null, since: Date | null, from: Date, timeZone: string): string | null {
  if (
    first === null ||
    since === null ||
    first.getTime() >= since.getTime() ||
    since.getTime() <= from.getTime()
  )
    return null;
  return `The history before ${shownAt(since, timeZone)} came with the org's data (an imported snapshot or the demo), not from this machine's syncs: it is replayed all the same, but what the rules sent is known only from then.`;
}

/** Datasets that keep only their last deliveries, and so only the changes since: their replay starts later. */
function cutNote({ count, latest }: { count: number; latest: Date | null }, timeZone: string): string | null {
  if (count === 0 || latest === null) return null;
  return `${count === 1 ? '1 dataset keeps' : `${count} datasets keep`} only ${count === 1 ? 'its' : 'their'} last deliveries, and the changes since the oldest: for ${count === 1 ? 'it' : 'them'} the replay starts later (at the latest ${shownAt(latest, timeZone)}).`;
}
