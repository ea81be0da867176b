/**
 * The simulated org: records as the demo derives them at the same instant, a capped history, delivery
 * ids read back into tasks, statuses that move with the clock, and hidden datasets.
 */
import { describe, expect, it } from 'vitest';
import { generateDatasetPlan } from '../../../../electron/demo/plan';
import { createManualClock } from '../../../../electron/demo/remote/clock';
import { SimulatedOrg } from '../../../../electron/demo/remote/org';
import { deriveDataset } from '../../../../electron/demo/record';
import { nextOccurrenceAfter, occurrencesAt } from '../../../../electron/demo/schedule';
import { buildTasksRecord } from '../../../../electron/demo/tasks';
import { deliveryIdFor, drawCourse } from '../../../../electron/demo/attemptCourse';
import type { TasksRecord } from '../../../../shared/schemas';
import { STAGES } from '../../../../shared/status';

const NOW = Date.parse('2026-11-21T04:41:00.000Z');
const MINUTE = 60_000;
const DAY = 86_400_000;

function runIds(tasks: TasksRecord): unknown[] {
  return STAGES.flatMap((stage) => tasks[stage].tasks.map((task) => task.details.runId));
}

describe('SimulatedOrg', () => {
  const org = new SimulatedOrg({ datasets: 60, seed: 7 });

  it('builds the demo plans of its org and seed', () => {
    expect(org.size).toBe(60);
    expect(org.orgId).toBe('org-sim');
    expect(org.plan(5)).toEqual(generateDatasetPlan(5, { seed: 7, orgId: 'org-sim' }));
  });

  it('answers records exactly as deriveDataset does at the same instant, also as time moves on', () => {
    // Later instants exercise the occurrences moved on from earlier ones, and one jump back recomputes.
    for (const now of [NOW, NOW + 17 * MINUTE, NOW + 3 * DAY + 5 * MINUTE, NOW + 40 * DAY, NOW - DAY]) {
      for (let index = 0; index < org.size; index++) {
        const plan = org.plan(index);
        const expected = deriveDataset(plan, now, 10, occurrencesAt(plan.schedule, now, 10)).record;
        expect(org.record(index, now, 10)).toEqual(expected);
      }
    }
  });

  it('caps the history at historyDepth; the latest status does not depend on how many events are asked', () => {
    const shallow = new SimulatedOrg({ datasets: 30, seed: 7, historyDepth: 5 });
    for (let index = 0; index < shallow.size; index++) {
      const full = shallow.record(index, NOW, 100);
      expect(full.deliveryEventList).toHaveLength(5);
      expect(full.deliveryEventList).toEqual(org.record(index, NOW, 5).deliveryEventList);
      const none = shallow.record(index, NOW, 0);
      expect(none.deliveryEventList).toEqual([]);
      expect(none.latestDeliveryStatus).toBe(full.latestDeliveryStatus);
      expect(none.deliveryId).toBe(full.deliveryId);
    }
  });

  it('latest() agrees with the record it summarizes', () => {
    for (const now of [NOW, NOW + 7 * 3_600_000]) {
      for (let index = 0; index < org.size; index++) {
        const record = org.record(index, now, 10);
        expect(org.latest(index, now)).toEqual({
          status: record.latestDeliveryStatus,
          deliveryId: record.deliveryId,
        });
        expect(org.status(index, now)).toBe(record.latestDeliveryStatus);
      }
    }
  });

  it('with includeRunDetails each event carries the run details of its tasks', () => {
    const record = org.record(3, NOW, 10, true);
    for (const event of record.deliveryEventList) {
      expect(event.runDetails?.map((detail) => detail.stage)).toEqual(
        expect.arrayContaining(['ingest', 'process', 'dispatch']),
      );
    }
    expect(org.record(3, NOW, 10).deliveryEventList[0]).not.toHaveProperty('runDetails');
  });

  it('resolves every delivery it lists to its tasks, with run ids only when asked', () => {
    let checked = 0;
    for (let index = 0; index < org.size; index++) {
      const plan = org.plan(index);
      for (const event of org.record(index, NOW, 30).deliveryEventList) {
        const course = drawCourse(plan, Date.parse(event.deliveryDeadline!));
        expect(course.deliveryId).toBe(event.deliveryId);
        const expected = buildTasksRecord(plan, course, NOW);
        expect(org.tasks(event.deliveryId!, NOW, true)).toEqual(expected);
        const plain = org.tasks(event.deliveryId!, NOW, false)!;
        expect(runIds(plain).every((id) => id === undefined)).toBe(true);
        expect(plain.dispatch.tasks[0]?.details.destinationId).toBe(
          expected.dispatch.tasks[0]?.details.destinationId,
        );
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(org.size * 20);
  });

  it('does not resolve made-up deliveries, nor ones that have not begun', () => {
    const plan = org.plan(0);
    const deadline = Date.parse(org.record(0, NOW, 1).deliveryEventList[0]!.deliveryDeadline!);
    for (const id of [
      'dlv-0000000000000000',
      'dlv-nothex',
      '',
      `${deliveryIdFor(plan, deadline)}0`,
      deliveryIdFor(plan, deadline + MINUTE), // not an occurrence of its schedule
      deliveryIdFor(plan, nextOccurrenceAfter(plan.schedule, nextOccurrenceAfter(plan.schedule, NOW)!)!),
    ]) {
      expect(org.tasks(id, NOW, false), id).toBeUndefined();
    }
    // The next deadline's attempt resolves exactly when it has begun (it is then the record's delivery).
    let notBegun = 0;
    for (let index = 0; index < org.size; index++) {
      const p = org.plan(index);
      const nextId = deliveryIdFor(p, nextOccurrenceAfter(p.schedule, NOW)!);
      const begun = org.record(index, NOW, 1).deliveryId === nextId;
      expect(org.tasks(nextId, NOW, false) !== undefined).toBe(begun);
      if (!begun) notBegun += 1;
    }
    expect(notBegun).toBeGreaterThan(0);
  });

  it('statuses change as the clock advances: within a simulated day some dataset newly FAILS', () => {
    const live = new SimulatedOrg({ datasets: 200, seed: 1 });
    const clock = createManualClock(NOW);
    const before = Array.from({ length: live.size }, (_, index) => live.status(index, clock.now()));
    const newlyFailed = new Set<number>();
    let changes = 0;
    let previous = before;
    for (let step = 0; step < 24 * 6; step++) {
      clock.advance(10 * MINUTE);
      const current = previous.map((_, index) => live.status(index, clock.now()));
      current.forEach((status, index) => {
        if (status !== previous[index]) changes += 1;
        if (status === 'FAILED' && previous[index] !== 'FAILED') newlyFailed.add(index);
      });
      previous = current;
    }
    expect(changes).toBeGreaterThan(20);
    expect(newlyFailed.size).toBeGreaterThan(0);
  });

  it('finds datasets by id, then by legacy id; hidden ones are gone until unhidden', () => {
    const hiding = new SimulatedOrg({ datasets: 60, seed: 7 });
    const withLegacy = Array.from({ length: hiding.size }, (_, i) => hiding.plan(i)).find(
      (plan) => plan.legacyDatasetId !== null,
    )!;
    expect(hiding.findDataset(withLegacy.datasetId)).toBe(withLegacy.index);
    expect(hiding.findDataset(withLegacy.legacyDatasetId!)).toBe(withLegacy.index);
    expect(hiding.findDataset('ds-nope')).toBeUndefined();

    const deliveryId = hiding.record(withLegacy.index, NOW, 1).deliveryId!;
    expect(hiding.hide(withLegacy.datasetId)).toBe(true);
    expect(hiding.isVisible(withLegacy.index)).toBe(false);
    expect(hiding.findDataset(withLegacy.datasetId)).toBeUndefined();
    expect(hiding.findDataset(withLegacy.legacyDatasetId!)).toBeUndefined();
    expect(hiding.tasks(deliveryId, NOW, false)).toBeUndefined();

    expect(hiding.unhide(withLegacy.datasetId)).toBe(true);
    expect(hiding.findDataset(withLegacy.datasetId)).toBe(withLegacy.index);
    expect(hiding.tasks(deliveryId, NOW, false)).toBeDefined();
    expect(hiding.hide('ds-nope')).toBe(false);
  });

  it('refuses options it cannot honour', () => {
    expect(() => new SimulatedOrg({ datasets: -1, seed: 1 })).toThrow(RangeError);
    expect(() => new SimulatedOrg({ datasets: 1, seed: 1, failRate: 2 })).toThrow(RangeError);
    expect(() => new SimulatedOrg({ datasets: 1, seed: 1, historyDepth: 0 })).toThrow(RangeError);
  });
});
