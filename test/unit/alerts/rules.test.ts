/**
 * The org's notification rules in the alerts, over a real store with the clock in the test's hands: a
 * timeline-only rule keeps a supplier silent (and unreminded) with its reason on the timeline, a set
 * without a failed rule tells of no failure, an urgent rule's notifications say so, and a digest rule
 * gathers failures into one summary on its schedule. The default set is the alerter's own tests.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { digestDue } from '../../../electron/alerts/digests';
import { Store } from '../../../electron/store/database';
import { acknowledge } from '../../../electron/store/tables/acknowledgements';
import { saveRuleSet } from '../../../electron/store/tables/ruleSets';
import { setSnooze } from '../../../electron/store/tables/snoozes';
import { datasetTimeline } from '../../../electron/store/tables/timeline';
import { type Rule, type RuleSet, defaultRuleSet } from '../../../shared/rules';
import { ruleOf } from '../../helpers/rules';
import { ORG, alertsBench, putDataset, sourceState } from '../../helpers/alerts';

const stores: Store[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

async function memoryStore(): Promise<Store> {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  return store;
}

const MINUTE = 60_000;
const NOISY = { id: 'sup-noisy', name: 'Noisy Feeds' };
const QUIET = { id: 'sup-good', name: 'Good Feeds' };

const rule = ruleOf;

/** A bench whose org has `rules` (the datasets' org is made by a first HEALTHY dataset). */
async function benchWith(rules: Rule[]) {
  const store = await memoryStore();
  const bench = alertsBench(store);
  putDataset(store, 99, 'HEALTHY', 'dlv-99a');
  const set: RuleSet = { rules, routes: [] };
  saveRuleSet(store, ORG, set, bench.clock.now);
  await bench.cycle({ firstSync: true });
  return bench;
}

const timelineTexts = (bench: { store: Store }, datasetId: string, kind: string) =>
  datasetTimeline(bench.store, ORG, datasetId, 50)
    .filter((entry) => entry.kind === kind)
    .map((entry) => entry.text);

describe('notification rules decide new failures', () => {
  it('keeps a timeline-only supplier silent, says why on its timeline, and never reminds it', async () => {
    const bench = await benchWith([
      rule('noisy', {
        name: 'Noisy supplier',
        match: { suppliers: ['noisy feeds'] },
        action: 'timeline',
        routes: [],
      }),
      rule('all', {}),
    ]);
    putDataset(bench.store, 1, 'FAILED', 'dlv-1a', { supplier: NOISY });
    putDataset(bench.store, 2, 'FAILED', 'dlv-2a', { supplier: QUIET, shortCode: 'E_OTHER' });
    const made = await bench.cycle();
    expect(made.map((a) => a.title)).toEqual(['FAILED: Dataset 2']);
    expect(timelineTexts(bench, 'ds-1', 'ruled')).toEqual([
      'Kept silent by the rule “Noisy supplier” (timeline only)',
    ]);
    expect(timelineTexts(bench, 'ds-1', 'notified')).toEqual([]);
    // Half an hour on (the source syncing well), the other failure is reminded; the silent one is not.
    bench.clock.now = new Date(bench.clock.now.getTime() + 31 * MINUTE);
    bench.sync.setState(sourceState({ lastSuccessAt: bench.clock.now.toISOString() }));
    const reminders = await bench.alerts.tick();
    expect(reminders.map((a) => a.kind)).toEqual(['reminder']);
    expect(reminders[0]).toMatchObject({ datasets: [{ datasetId: 'ds-2' }] });
    expect(await bench.cycle()).toEqual([]);
  });

  it('tells of no failure when no rule is about failures', async () => {
    const bench = await benchWith([rule('lost', { event: 'contact-lost' })]);
    putDataset(bench.store, 1, 'FAILED', 'dlv-1a');
    expect(await bench.cycle()).toEqual([]);
    expect(timelineTexts(bench, 'ds-1', 'ruled')).toEqual(['No notification rule tells of this']);
  });

  it('skips a disabled rule for the next that matches', async () => {
    const bench = await benchWith([
      rule('off', { enabled: false, action: 'timeline', routes: [] }),
      rule('on', {}),
    ]);
    putDataset(bench.store, 1, 'FAILED', 'dlv-1a');
    expect((await bench.cycle()).map((a) => a.title)).toEqual(['FAILED: Dataset 1']);
  });

  it("marks an urgent rule's notifications urgent, and only those", async () => {
    const bench = await benchWith([
      rule('pager', { match: { datasets: ['Dataset 1'] }, action: 'urgent' }),
      rule('all', {}),
    ]);
    putDataset(bench.store, 1, 'FAILED', 'dlv-1a');
    putDataset(bench.store, 2, 'FAILED', 'dlv-2a', { shortCode: 'E_OTHER' });
    const made = await bench.cycle();
    expect(made.map((a) => [a.title, a.urgent ?? false])).toEqual([
      ['FAILED: Dataset 2', false],
      ['FAILED: Dataset 1', true],
    ]);
  });

  it('gathers a digest rule’s failures and tells them as one summary every N minutes', async () => {
    const bench = await benchWith([
      rule('digest', { name: 'Half-hourly', action: 'digest', digest: { everyMinutes: 30 } }),
    ]);
    const start = bench.clock.now.getTime();
    putDataset(bench.store, 1, 'FAILED', 'dlv-1a');
    expect(await bench.cycle()).toEqual([]);
    bench.clock.now = new Date(start + 10 * MINUTE);
    putDataset(bench.store, 2, 'FAILED', 'dlv-2a', { shortCode: 'E_OTHER' });
    expect(await bench.cycle()).toEqual([]);
    bench.clock.now = new Date(start + 29 * MINUTE);
    expect(await bench.alerts.tick()).toEqual([]);
    bench.clock.now = new Date(start + 30 * MINUTE);
    const [digest, ...rest] = await bench.alerts.tick();
    expect(rest).toEqual([]);
    expect(digest).toMatchObject({
      kind: 'digest',
      ruleId: 'digest',
      title: 'Digest “Half-hourly”: 2 new failures',
      datasetIds: ['ds-1', 'ds-2'],
      target: { view: 'triage', orgId: ORG },
    });
    expect(timelineTexts(bench, 'ds-2', 'notified')).toEqual([digest!.title]);
    // Told once: not again, not on its own, not reminded as if nobody had been told.
    bench.clock.now = new Date(start + 90 * MINUTE);
    expect((await bench.alerts.tick()).filter((a) => a.kind === 'digest')).toEqual([]);
  });

  it('leaves out of a digest what was acknowledged or snoozed since it was gathered', async () => {
    const bench = await benchWith([
      rule('digest', { name: 'Hourly', action: 'digest', digest: { everyMinutes: 60 } }),
    ]);
    const start = bench.clock.now.getTime();
    putDataset(bench.store, 1, 'FAILED', 'dlv-1a');
    putDataset(bench.store, 2, 'FAILED', 'dlv-2a', { shortCode: 'E_B' });
    putDataset(bench.store, 3, 'FAILED', 'dlv-3a', { shortCode: 'E_C' });
    expect(await bench.cycle()).toEqual([]);
    bench.store.transaction(() =>
      acknowledge(bench.store, {
        orgId: ORG,
        datasetId: 'ds-1',
        deliveryId: 'dlv-1a',
        status: 'FAILED',
        causeId: null,
        note: null,
        by: 'sam',
        at: bench.clock.now.toISOString(),
      }),
    );
    setSnooze(bench.store, ORG, 'ds-2', '4h', bench.clock.now);
    bench.clock.now = new Date(start + 60 * MINUTE);
    const made = await bench.alerts.tick();
    expect(made.map((a) => [a.title, a.kind === 'digest' ? a.datasetIds : []])).toEqual([
      ['Digest “Hourly”: 1 new failure', ['ds-3']],
    ]);
    expect(timelineTexts(bench, 'ds-1', 'notified')).toEqual([]);
    expect(timelineTexts(bench, 'ds-2', 'notified')).toEqual([]);
  });

  it('sends a digest at its time of day, and at once when its rule is gone', async () => {
    const bench = await benchWith([rule('morning', { action: 'digest', digest: { at: ['13:00'] } })]);
    // The bench's clock reads 12:00 UTC, its zone UTC.
    putDataset(bench.store, 1, 'FAILED', 'dlv-1a');
    await bench.cycle();
    bench.clock.now = new Date(bench.clock.now.getTime() + 59 * MINUTE);
    expect(await bench.alerts.tick()).toEqual([]);
    bench.clock.now = new Date(bench.clock.now.getTime() + MINUTE);
    expect((await bench.alerts.tick()).map((a) => a.kind)).toEqual(['digest']);
    putDataset(bench.store, 2, 'FAILED', 'dlv-2a');
    await bench.cycle();
    saveRuleSet(bench.store, ORG, defaultRuleSet({ recoveryNotices: false }), bench.clock.now);
    expect((await bench.alerts.tick()).map((a) => a.kind)).toEqual(['digest']);
  });
});

it('falls back on the default set when the stored rules were changed outside the app', async () => {
  const bench = await benchWith([rule('lost', { event: 'contact-lost' })]);
  bench.store.transaction(() =>
    bench.store.run('UPDATE rule_sets SET json = \'{"rules": 7}\' WHERE org_id = ?', [ORG]),
  );
  putDataset(bench.store, 1, 'FAILED', 'dlv-1a');
  expect((await bench.cycle()).map((a) => a.title)).toEqual(['FAILED: Dataset 1']);
  bench.store.transaction(() =>
    bench.store.run("UPDATE rule_sets SET json = '{not json' WHERE org_id = ?", [ORG]),
  );
  putDataset(bench.store, 2, 'FAILED', 'dlv-2a', { shortCode: 'E_OTHER' });
  expect((await bench.cycle()).map((a) => a.title)).toEqual(['FAILED: Dataset 2']);
});

describe('digestDue', () => {
  const at = (iso: string) => new Date(iso);
  it('every N minutes counts from the first failure gathered', () => {
    const first = at('2026-11-21T10:00:00Z');
    expect(digestDue({ everyMinutes: 15 }, first, at('2026-11-21T10:14:59Z'), 'UTC')).toBe(false);
    expect(digestDue({ everyMinutes: 15 }, first, at('2026-11-21T10:15:00Z'), 'UTC')).toBe(true);
  });
  it('at a time of day, in the user’s zone, across midnight', () => {
    const first = at('2026-11-21T22:30:00Z'); // 23:30 in Paris
    expect(digestDue({ at: ['00:15'] }, first, at('2026-11-21T23:14:00Z'), 'Europe/Paris')).toBe(false);
    expect(digestDue({ at: ['00:15'] }, first, at('2026-11-21T23:15:00Z'), 'Europe/Paris')).toBe(true);
    expect(digestDue({ at: ['23:30'] }, first, at('2026-11-21T23:15:00Z'), 'Europe/Paris')).toBe(false);
    expect(digestDue({ at: ['12:00'] }, first, at('2026-11-23T00:00:00Z'), 'Europe/Paris')).toBe(true);
  });
});
