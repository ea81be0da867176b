/**
 * Replaying the rules over stored history (docs/decisions.md "Replaying the rules"): the first sync is
 * not news and nothing before it is guessed; later changes are judged as they were learned, an
 * acknowledged problem is not told, digests go out on the tick grid; the counts per day and per rule
 * stand beside what the rules in force sent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { replayRules } from '../../../electron/alerts/replay';
import { replayMarkdown } from '../../../electron/alerts/replayMarkdown';
import { Store } from '../../../electron/store/database';
import { acknowledge } from '../../../electron/store/tables/acknowledgements';
import { recordRuleNotifications } from '../../../electron/store/tables/ruleLog';
import { addTimelineEntry, pruneTimeline } from '../../../electron/store/tables/timeline';
import type { Rule, RuleSet } from '../../../shared/rules';
import { ORG, putDataset } from '../../helpers/alerts';
import { ruleOf } from '../../helpers/rules';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = new Date('2026-11-28T12:00:10.000Z');

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

/** An org synced first `firstDaysAgo` days ago with datasets 1–3, ds-3 FAILED then already. */
async function history(firstDaysAgo: number): Promise<Store> {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  for (const n of [1, 2]) putDataset(store, n, 'HEALTHY', `dlv-${n}a`);
  putDataset(store, 3, 'FAILED', 'dlv-3a');
  const first = new Date(NOW.getTime() - firstDaysAgo * DAY).toISOString();
  store.transaction(() => {
    for (const n of [1, 2])
      addTimelineEntry(store, { orgId: ORG, datasetId: `ds-${n}`, at: first, kind: 'status', to: 'HEALTHY' });
    addTimelineEntry(store, {
      orgId: ORG,
      datasetId: 'ds-3',
      at: first,
      kind: 'status',
      to: 'FAILED',
      deliveryId: 'dlv-3a',
    });
  });
  return store;
}

/** Dataset n changes at `hoursAgo`, as a sync records it. */
function changed(
  store: Store,
  n: number,
  hoursAgo: number,
  from: string,
  to: string,
  deliveryId: string,
): string {
  const at = new Date(NOW.getTime() - hoursAgo * HOUR).toISOString();
  putDataset(store, n, to, deliveryId);
  store.transaction(() =>
    addTimelineEntry(store, { orgId: ORG, datasetId: `ds-${n}`, at, kind: 'status', from, to, deliveryId }),
  );
  return at;
}

const setOf = (...rules: Rule[]): RuleSet => ({ rules, routes: [] });
const replay = (store: Store, set: RuleSet, days = 7) =>
  replayRules({ store, orgId: ORG, set, days, now: NOW, timeZone: 'UTC' });

describe('replaying the rules', () => {
  it('says there is no history before a first sync, and guesses nothing', async () => {
    const store = await Store.open({ dataDir: null });
    stores.push(store);
    putDataset(store, 1, 'FAILED', 'dlv-1a');
    const result = replay(store, setOf(ruleOf('all')));
    expect(result.notifications).toEqual([]);
    expect(result.note).toBe('No history to replay yet: this org has not been synced.');
  });

  it('starts after a first sync inside the window, which tells what was failing, not news', async () => {
    const store = await history(2);
    const at = changed(store, 1, 5, 'HEALTHY', 'FAILED', 'dlv-1b');
    const result = replay(store, setOf(ruleOf('all', { name: 'All failures' })));
    expect(result.historyFrom).toBe(new Date(NOW.getTime() - 2 * DAY).toISOString());
    expect(result.note).toBe(
      "History starts 26 Nov 2026, 12:00 (this org's first sync, or the oldest change still kept): the replay covers 2.0 of the 7 days asked for, and nothing before it is guessed.",
    );
    expect(result.notifications.map((n) => [n.at, n.title, n.ruleName])).toEqual([
      [at, 'FAILED: Dataset 1', 'All failures'],
    ]);
  });

  it('leaves out what someone was on already, and counts per day and per rule beside what was sent', async () => {
    const store = await history(10);
    const at30h = changed(store, 1, 30, 'HEALTHY', 'FAILED', 'dlv-1b');
    store.transaction(() =>
      acknowledge(store, {
        orgId: ORG,
        datasetId: 'ds-2',
        deliveryId: 'dlv-2b',
        status: 'MISSING',
        causeId: null,
        note: null,
        by: 'sam',
        at: new Date(NOW.getTime() - 20 * HOUR).toISOString(),
      }),
    );
    changed(store, 2, 10, 'HEALTHY', 'MISSING', 'dlv-2b');
    changed(store, 3, 2, 'FAILED', 'HEALTHY', 'dlv-3b');
    // What the rules in force sent that day, as the live alerts recorded it.
    const sentThen = { id: 'acme:failed:failed:x', orgId: ORG, ruleId: 'failed', at: at30h };
    recordRuleNotifications(store, [sentThen], NOW);
    const set = setOf(
      ruleOf('failed', { name: 'Failures' }),
      ruleOf('missing', { name: 'Missing', event: 'missing', action: 'urgent' }),
      ruleOf('back', { name: 'Back', event: 'recovered' }),
    );
    const result = replay(store, set);
    expect(result.notifications.map((n) => [n.title, n.action])).toEqual([
      ['FAILED: Dataset 1', 'notify'],
      ['Recovered: Dataset 3', 'notify'],
    ]);
    expect(result.byRule.map((rule) => [rule.ruleId, rule.count, rule.sent])).toEqual([
      ['failed', 1, 1],
      ['missing', 0, 0],
      ['back', 1, 0],
    ]);
    expect(result.byDay.map((day) => day.day)).toEqual([
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
    ]);
    expect(result.byDay.filter((day) => day.count > 0 || day.sent > 0)).toEqual([
      { day: '2026-11-27', count: 1, sent: 1, byRule: { failed: 1 } },
      { day: '2026-11-28', count: 1, sent: 0, byRule: { back: 1 } },
    ]);
    const markdown = replayMarkdown(result, 'UTC', true);
    expect(markdown).toContain('| 2026-11-27 | 1 | 1 |');
    expect(markdown).toContain('- 2026-11-27 06:00 · Failures (notify) · FAILED: Dataset 1 — ');
  });

  it('sends a digest at its time of day on the tick grid, with what it gathered', async () => {
    const store = await history(10);
    changed(store, 1, 30, 'HEALTHY', 'MISSING', 'dlv-1b');
    changed(store, 2, 29, 'HEALTHY', 'MISSING', 'dlv-2b');
    const set = setOf(
      ruleOf('digest', { name: 'Morning', event: 'missing', action: 'digest', digest: { at: ['09:00'] } }),
    );
    const [digest, ...rest] = replay(store, set).notifications;
    expect(rest).toEqual([]);
    expect(digest).toMatchObject({
      at: '2026-11-27T09:00:00.000Z',
      action: 'digest',
      title: 'Digest “Morning”: 2 events',
      body: '2 datasets MISSING: Dataset 1 and Dataset 2.',
      datasetIds: ['ds-1', 'ds-2'],
    });
  });

  it('judges a late delivery as late as it was when learned, not by a delivery time stored afterwards', async () => {
    const store = await history(10);
    // Learned DELIVERED_LATE an hour after its deadline; the crawl that came later stored a delivery
    // ten hours after it.
    putDataset(store, 4, 'HEALTHY', 'dlv-4a');
    const deadline = Date.parse(
      String(store.value("SELECT deadline FROM events WHERE delivery_id = 'dlv-4a'")),
    );
    putDataset(store, 4, 'DELIVERED_LATE', 'dlv-4b');
    store.run("UPDATE events SET deadline = ?, delivered_at = ? WHERE delivery_id = 'dlv-4b'", [
      new Date(deadline).toISOString(),
      new Date(deadline + 600 * 60_000).toISOString(),
    ]);
    const learned = new Date(deadline + 60 * 60_000).toISOString();
    store.transaction(() =>
      addTimelineEntry(store, {
        orgId: ORG,
        datasetId: 'ds-4',
        at: learned,
        kind: 'status',
        from: 'MISSING',
        to: 'DELIVERED_LATE',
        deliveryId: 'dlv-4b',
      }),
    );
    const over = (minutes: number) =>
      replay(store, setOf(ruleOf('late', { event: 'late', lateByMinutes: minutes })), 8).notifications;
    expect(over(120)).toEqual([]);
    expect(over(30).map((n) => [n.at, n.body])).toEqual([
      [learned, 'Seen delivered late 60 minutes after its deadline (its delivery time not known yet).'],
    ]);
  });

  it('says when the history came with the org rather than from its own syncs', async () => {
    const store = await history(5);
    const at = changed(store, 1, 50, 'HEALTHY', 'FAILED', 'dlv-1b');
    store.run('UPDATE orgs SET created_at = ?', [new Date(NOW.getTime() - DAY).toISOString()]);
    const result = replay(store, setOf(ruleOf('all')));
    expect(result.notifications.map((n) => n.at)).toEqual([at]);
    expect(result.note).toBe(
      "History starts 23 Nov 2026, 12:00 (this org's first sync, or the oldest change still kept): the replay covers 5.0 of the 7 days asked for, and nothing before it is guessed. The history before 27 Nov 2026, 12:00 came with the org's data (an imported snapshot or the demo), not from this machine's syncs: it is replayed all the same, but what the rules sent is known only from then.",
    );
  });

  it('says which datasets keep too few deliveries for the whole window', async () => {
    const store = await history(10);
    /** Dataset n now keeps deliveries due from `daysAgo` on: the sync's pruning cuts its timeline there. */
    const keepFrom = (n: number, daysAgo: number) => {
      const kept = NOW.getTime() - daysAgo * DAY;
      store.run('UPDATE events SET deadline = ?, deadline_key = ? WHERE delivery_id = ?', [
        new Date(kept).toISOString(),
        kept,
        `dlv-${n}a`,
      ]);
      store.transaction(() => pruneTimeline(store, ORG, `ds-${n}`));
    };
    keepFrom(1, 2);
    expect(replay(store, setOf(ruleOf('all'))).note).toBe(
      '1 dataset keeps only its last deliveries, and the changes since the oldest: for it the replay starts later (at the latest 26 Nov 2026, 12:00).',
    );
    // A cut before the window leaves it whole; a timeline short by nature (no changes kept, or a
    // snapshot's without its first-seen entries) was never cut.
    keepFrom(2, 9);
    putDataset(store, 4, 'HEALTHY', 'dlv-4a');
    expect(replay(store, setOf(ruleOf('all'))).note).toMatch(/^1 dataset keeps/);
    keepFrom(3, 3);
    expect(replay(store, setOf(ruleOf('all'))).note).toBe(
      '2 datasets keep only their last deliveries, and the changes since the oldest: for them the replay starts later (at the latest 26 Nov 2026, 12:00).',
    );
  });

  it('does not tell again of a failure live judged before the window', async () => {
    // ds-3 FAILED at the first sync, ten days ago; its delivery, dispatched again late, fails again.
    const store = await history(10);
    changed(store, 3, 40, 'FAILED', 'DELIVERED_LATE', 'dlv-3a');
    changed(store, 3, 30, 'DELIVERED_LATE', 'FAILED', 'dlv-3a');
    const at = changed(store, 1, 20, 'HEALTHY', 'FAILED', 'dlv-1b');
    expect(replay(store, setOf(ruleOf('all'))).notifications.map((n) => [n.at, n.datasetIds])).toEqual([
      [at, ['ds-1']],
    ]);
  });

  it('names two datasets of the same name each with its id, not as one told twice', async () => {
    const store = await history(10);
    changed(store, 1, 5, 'HEALTHY', 'FAILED', 'dlv-1b');
    changed(store, 2, 5, 'HEALTHY', 'FAILED', 'dlv-2b');
    store.run("UPDATE datasets SET name = 'Rates Hourly' WHERE dataset_id IN ('ds-1', 'ds-2')");
    expect(replay(store, setOf(ruleOf('all'))).notifications.map((n) => [n.title, n.body])).toEqual([
      ['2 datasets FAILED', 'Rates Hourly (ds-1) and Rates Hourly (ds-2).'],
    ]);
  });
});
