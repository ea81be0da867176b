/**
 * The rules' evaluator (docs/decisions.md "Rule notifications: one evaluator"): what an org's rules
 * send for the facts learned at one moment, and which digests fall due at a tick. Pure: the live alerts
 * run it on each cycle's facts and keep its memory in the store; the replay runs it on the facts of
 * stored history and keeps its memory in an array. Both therefore send the same notifications.
 *
 * A moment's facts that one rule tells of with one event make one notification (one fact: its own
 * words; several: "N datasets MISSING"), so a wave of MISSING deliveries at a deadline is one message.
 * A digest rule's facts wait for its schedule (digestDue); a tick sends each due digest once.
 */
import { type DigestSchedule, type Rule, type RuleEvent, TRAY_ROUTE } from '../../shared/rules';
import type { WindowTarget } from '../../shared/routes';
import type { RuleNotification } from '../../shared/rulesView';
import { STAGE_LABELS } from '../../shared/status';
import { createHash } from 'node:crypto';
import type { RuleMatcher } from '../rules/match';
import { localMinutes } from './quietHours';
import type { RuleFact } from './ruleFacts';
import { listWords } from './text';

const MINUTE = 60_000;
const DAY_MINUTES = 24 * 60;

/** What a rule sent (shared/rulesView.ts: the window shows replays of them). */
export type { RuleNotification } from '../../shared/rulesView';

/** A fact a digest rule gathered, waiting for its schedule. */
export interface Gathered {
  orgId: string;
  ruleId: string;
  fact: RuleFact;
  addedAt: string;
}

/** What the rules made of one moment's facts. */
export interface Judged {
  notifications: RuleNotification[];
  gathered: Gathered[];
  /** Facts no rule tells of, or a timeline-only rule keeps silent (rule null: none is about them). */
  silent: { fact: RuleFact; rule: Rule | null }[];
}

/** Whether someone is on it already: a fact about an acknowledged problem is not told. */
export type Acknowledged = (fact: RuleFact, at: string) => boolean;

const clockMinutes = (clock: string): number => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/**
 * When a digest whose first event came at `first` falls due: N minutes after it, or at the first set
 * time of day after it (the user's zone), counted in minutes from the start of its minute — a 09:00
 * digest is due at 09:00:00 — and at the latest a day after it.
 */
export function digestDueAt(schedule: DigestSchedule, first: Date, timeZone: string): number {
  if ('everyMinutes' in schedule) return first.getTime() + schedule.everyMinutes * MINUTE;
  const minuteStart = first.getTime() - (((first.getTime() % MINUTE) + MINUTE) % MINUTE);
  const from = localMinutes(first, timeZone);
  let due = minuteStart + DAY_MINUTES * MINUTE;
  for (const clock of schedule.at) {
    const ahead = (clockMinutes(clock) - from + DAY_MINUTES) % DAY_MINUTES;
    if (ahead > 0) due = Math.min(due, minuteStart + ahead * MINUTE);
  }
  return Math.min(due, first.getTime() + DAY_MINUTES * MINUTE);
}

/** Whether a digest whose first event came at `first` is due at `now`. */
export const digestDue = (schedule: DigestSchedule, first: Date, now: Date, timeZone: string): boolean =>
  now.getTime() >= digestDueAt(schedule, first, timeZone);

/**
 * A notification's id: its org, rule and event, and the events it tells of — so the same facts judged
 * again (a cycle decided again after a crash) make the same notification, which the record and the
 * routes' outbox keep once.
 */
function notificationId(orgId: string, ruleId: string, event: string, keys: readonly string[]): string {
  const digest = createHash('sha256')
    .update([...keys].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
  return `${orgId}:${ruleId}:${event}:${digest}`;
}

/** Judges one moment's facts of one org (`at`: the moment). */
export function judge(matcher: RuleMatcher, facts: readonly RuleFact[], at: string): Judged {
  const judged: Judged = { notifications: [], gathered: [], silent: [] };
  const groups = new Map<string, { rule: Rule; facts: RuleFact[] }>();
  // In one order whoever asks (the live cycle reads its failures by dataset, the replay by timeline).
  const ordered = [...facts].sort((a, b) => compareText(nameOf(a), nameOf(b)) || compareText(a.key, b.key));
  for (const fact of ordered) {
    const rule = matcher.decide(fact);
    if (rule === null || rule.action === 'timeline') {
      judged.silent.push({ fact, rule });
      continue;
    }
    if (rule.action === 'digest') {
      judged.gathered.push({ orgId: fact.orgId, ruleId: rule.id, fact, addedAt: at });
      continue;
    }
    const key = `${rule.id}\n${fact.event}`;
    const group = groups.get(key) ?? { rule, facts: [] };
    group.facts.push(fact);
    groups.set(key, group);
  }
  for (const { rule, facts: told } of groups.values())
    judged.notifications.push(notificationOf(rule, told, at));
  return judged;
}

/**
 * The digests due at `now` among what was gathered: one notification per org and rule, leaving out
 * facts acknowledged meanwhile (dropped all the same). A digest whose rule is gone, disabled or no longer
 * a digest goes out at once: what it gathered was never told.
 */
export function releaseDue(
  rulesOf: (orgId: string) => RuleMatcher,
  gathered: readonly Gathered[],
  now: Date,
  timeZone: string,
  acknowledged: Acknowledged,
): { notifications: RuleNotification[]; done: Gathered[] } {
  const groups = new Map<string, Gathered[]>();
  for (const item of gathered) {
    const key = `${item.orgId}\n${item.ruleId}`;
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  const at = now.toISOString();
  const notifications: RuleNotification[] = [];
  const done: Gathered[] = [];
  for (const group of groups.values()) {
    const first = group.reduce((a, b) => (Date.parse(b.addedAt) < Date.parse(a.addedAt) ? b : a));
    const rule = rulesOf(first.orgId).byId(first.ruleId);
    const due =
      rule === null ||
      !rule.enabled ||
      rule.action !== 'digest' ||
      rule.digest === undefined ||
      digestDue(rule.digest, new Date(first.addedAt), now, timeZone);
    if (!due) continue;
    done.push(...group);
    // In one order whoever asks: when gathered, then as a moment's facts are (the store reads them by key).
    const ordered = [...group].sort(
      (a, b) =>
        Date.parse(a.addedAt) - Date.parse(b.addedAt) ||
        compareText(nameOf(a.fact), nameOf(b.fact)) ||
        compareText(a.fact.key, b.fact.key),
    );
    const told = ordered.filter((item) => !acknowledged(item.fact, at)).map((item) => item.fact);
    if (told.length > 0) notifications.push(digestOf(first.orgId, first.ruleId, rule, told, at));
  }
  return { notifications, done };
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const nameOf = (fact: RuleFact): string => fact.datasetName ?? fact.datasetId ?? fact.sourceName ?? '';

/**
 * The facts' names, one that two of them share followed by its dataset id: two datasets of the same
 * name (of two suppliers, say) would otherwise read as one dataset told twice.
 */
function namesOf(facts: readonly RuleFact[]): string[] {
  const counts = new Map<string, number>();
  for (const fact of facts) counts.set(nameOf(fact), (counts.get(nameOf(fact)) ?? 0) + 1);
  return facts.map((fact) =>
    counts.get(nameOf(fact))! > 1 && fact.datasetName !== null && fact.datasetId !== null
      ? `${fact.datasetName} (${fact.datasetId})`
      : nameOf(fact),
  );
}

const plural = (count: number, one: string, many: string): string =>
  `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/** How many facts of an event, in words: "3 datasets FAILED", "1 source out of contact". */
function countWords(event: RuleEvent, count: number): string {
  if (event === 'contact-lost') return `${plural(count, 'source', 'sources')} out of contact`;
  const datasets = plural(count, 'dataset', 'datasets');
  if (event === 'failed') return `${datasets} FAILED`;
  if (event === 'missing') return `${datasets} MISSING`;
  if (event === 'late') return `${datasets} delivered late`;
  return `${datasets} recovered`;
}

/** One fact's own words. */
function factWords(fact: RuleFact): { title: string; body: string } {
  const name = nameOf(fact);
  if (fact.event === 'failed') {
    const where = fact.stage === null ? 'Cause not known yet' : `${STAGE_LABELS[fact.stage]} failed`;
    const code = fact.shortCode ?? fact.message;
    return { title: `FAILED: ${name}`, body: code ? `${where}: ${code}` : `${where}.` };
  }
  if (fact.event === 'missing')
    return { title: `MISSING: ${name}`, body: 'Nothing delivered by its deadline.' };
  if (fact.event === 'late')
    return {
      title: `Late: ${name}`,
      body:
        fact.lateMinutes === null
          ? 'Delivered after its deadline.'
          : fact.lateDelivered === true
            ? `Delivered ${plural(fact.lateMinutes, 'minute', 'minutes')} after its deadline.`
            : `Seen delivered late ${plural(fact.lateMinutes, 'minute', 'minutes')} after its deadline (its delivery time not known yet).`,
    };
  if (fact.event === 'recovered')
    return { title: `Recovered: ${name}`, body: `Now ${fact.to} (was ${fact.from}).` };
  return { title: `Lost contact with ${name}`, body: 'Its data is not current.' };
}

const datasetIdsOf = (facts: readonly RuleFact[]): string[] =>
  facts.flatMap((fact) => (fact.datasetId === null ? [] : [fact.datasetId]));

function targetOf(orgId: string, facts: readonly RuleFact[]): WindowTarget {
  const [only] = facts;
  if (facts.length === 1 && only !== undefined && only.datasetId !== null) {
    if (only.event === 'failed' && only.deliveryId !== null)
      return { view: 'delivery', orgId, datasetId: only.datasetId, deliveryId: only.deliveryId };
    return { view: 'dataset', orgId, datasetId: only.datasetId };
  }
  return facts.every((fact) => fact.event === 'failed' || fact.event === 'missing')
    ? { view: 'triage', orgId }
    : { view: 'datasets', orgId };
}

function notificationOf(rule: Rule, facts: RuleFact[], at: string): RuleNotification {
  const [first] = facts as [RuleFact, ...RuleFact[]];
  const words =
    facts.length === 1
      ? factWords(first)
      : { title: countWords(first.event, facts.length), body: `${listWords(namesOf(facts))}.` };
  return {
    id: notificationId(
      first.orgId,
      rule.id,
      first.event,
      facts.map((fact) => fact.key),
    ),
    orgId: first.orgId,
    ruleId: rule.id,
    ruleName: rule.name,
    action: rule.action === 'urgent' ? 'urgent' : 'notify',
    event: first.event,
    at,
    ...words,
    target: targetOf(first.orgId, facts),
    routes: [...rule.routes],
    keys: facts.map((fact) => fact.key),
    datasetIds: datasetIdsOf(facts),
  };
}

function digestOf(
  orgId: string,
  ruleId: string,
  rule: Rule | null,
  facts: RuleFact[],
  at: string,
): RuleNotification {
  const ruleName = rule?.name ?? ruleId;
  const events = [...new Set(facts.map((fact) => fact.event))];
  const counted = events.map((event) =>
    countWords(event, facts.filter((fact) => fact.event === event).length),
  );
  return {
    id: notificationId(
      orgId,
      ruleId,
      'digest',
      facts.map((fact) => fact.key),
    ),
    orgId,
    ruleId,
    ruleName,
    action: 'digest',
    event: 'digest',
    at,
    title: `Digest “${ruleName}”: ${
      events.length === 1 && events[0] === 'failed'
        ? plural(facts.length, 'new failure', 'new failures')
        : plural(facts.length, 'event', 'events')
    }`,
    body: `${listWords(counted)}: ${listWords(namesOf(facts))}.`,
    // A digest opens its list, even of one: the person reads it as a batch.
    target: facts.every((fact) => fact.event === 'failed' || fact.event === 'missing')
      ? { view: 'triage', orgId }
      : { view: 'datasets', orgId },
    // Its rule gone, disabled or no digest any more: the tray tells what was gathered (it was never
    // told), and no route is paged by a rule someone turned off.
    routes: rule === null || !rule.enabled || rule.action !== 'digest' ? [TRAY_ROUTE] : [...rule.routes],
    keys: facts.map((fact) => fact.key),
    datasetIds: datasetIdsOf(facts),
  };
}
