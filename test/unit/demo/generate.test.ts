import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { REGIONS, VARIANTS } from '../../../electron/demo/catalog';
import { generateDemoDatasets, generateDemoSnapshot } from '../../../electron/demo/generate';
import { DatasetRecord, DeadlineConfig, Snapshot, TasksRecord, type Task } from '../../../shared/schemas';
import { STAGES } from '../../../shared/status';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const RECORD_KEYS = Object.keys(DatasetRecord.properties).sort();
const EVENT_KEYS = ['deliveredAt', 'deliveryDeadline', 'deliveryId', 'processingDeadlineConfig', 'status'];
const CONFIG_KEYS = Object.keys(DeadlineConfig.properties).sort();
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('generateDemoSnapshot', () => {
  it('is deterministic: same options, deep-equal snapshots', () => {
    const options = { datasets: 150, seed: 7, now: NOW };
    expect(generateDemoSnapshot(options)).toEqual(generateDemoSnapshot({ ...options, now: new Date(NOW) }));
  });

  it('differs by seed and by org, and a dataset does not depend on how many are generated', () => {
    const a = generateDemoSnapshot({ datasets: 40, seed: 1, now: NOW });
    const b = generateDemoSnapshot({ datasets: 40, seed: 2, now: NOW });
    const c = generateDemoSnapshot({ datasets: 40, seed: 1, now: NOW, orgId: 'org-other' });
    expect(a.datasets.map((d) => d.datasetId)).not.toEqual(b.datasets.map((d) => d.datasetId));
    expect(new Set([...a.datasets, ...c.datasets].map((d) => d.datasetId)).size).toBe(80);
    expect(c.datasets.every((d) => d.ownerOrgId === 'org-other')).toBe(true);
    const more = generateDemoSnapshot({ datasets: 80, seed: 1, now: NOW });
    expect(more.datasets.slice(0, 40)).toEqual(a.datasets);
  });

  it('streams the same datasets and tasks as the snapshot', () => {
    const options = { datasets: 30, seed: 5, now: NOW };
    const streamed = [...generateDemoDatasets(options)];
    const snapshot = generateDemoSnapshot(options);
    expect(streamed.map((d) => d.record)).toEqual(snapshot.datasets);
    expect(Object.assign({}, ...streamed.map((d) => d.tasks))).toEqual(snapshot.tasks);
  });

  it('produces records and tasks records that match the schemas, every field present', () => {
    const snapshot = generateDemoSnapshot({ datasets: 300, seed: 11, now: NOW });
    expect(Value.Check(Snapshot, snapshot)).toBe(true);
    for (const record of snapshot.datasets) {
      expect(Value.Check(DatasetRecord, record)).toBe(true);
      expect(Object.keys(record).sort()).toEqual(RECORD_KEYS);
      expect(Object.keys(record.currentProcessingDeadlineConfig).sort()).toEqual(CONFIG_KEYS);
      expect(record.deliveryEventList).toHaveLength(30);
      for (const event of record.deliveryEventList) {
        expect(Object.keys(event).sort()).toEqual(EVENT_KEYS);
        expect(event.deliveryDeadline).toMatch(ISO);
        if (event.deliveredAt !== null) expect(event.deliveredAt).toMatch(ISO);
      }
    }
    for (const tasks of Object.values(snapshot.tasks ?? {})) {
      expect(Value.Check(TasksRecord, tasks)).toBe(true);
      for (const stage of STAGES) {
        for (const task of tasks[stage].tasks) {
          expect(Object.keys(task).sort()).toEqual(Object.keys(tasks.ingest.tasks[0] as Task).sort());
        }
      }
    }
  });

  it('uses realistic, well-formed and unique identifiers', () => {
    const snapshot = generateDemoSnapshot({ datasets: 2000, seed: 3, now: NOW, deliveriesPerDataset: 5 });
    const ids = snapshot.datasets.map((d) => d.datasetId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => /^ds-[0-9a-f]{8}$/.test(id))).toBe(true);
    const legacy = snapshot.datasets.flatMap((d) => (d.legacyDatasetId === null ? [] : [d.legacyDatasetId]));
    expect(new Set(legacy).size).toBe(legacy.length);
    expect(legacy.every((id) => /^v1-\d{6}$/.test(id))).toBe(true);
    expect(legacy.length / ids.length).toBeGreaterThan(0.28);
    expect(legacy.length / ids.length).toBeLessThan(0.39);
    const deliveries = snapshot.datasets.flatMap((d) => d.deliveryEventList.map((e) => e.deliveryId));
    expect(new Set(deliveries).size).toBe(deliveries.length);
    expect(deliveries.every((id) => /^dlv-[0-9a-f]{16}$/.test(id ?? ''))).toBe(true);
    const taskIds = Object.values(snapshot.tasks ?? {}).flatMap((t) =>
      STAGES.flatMap((s) => t[s].tasks.map((k) => k.taskId)),
    );
    expect(new Set(taskIds).size).toBe(taskIds.length);

    const names = snapshot.datasets.map((d) => d.datasetName ?? '');
    expect(names.filter((n) => /^EMEA [A-Za-z ]+ EOD$/.test(n)).length).toBeGreaterThan(5);
    const regions = REGIONS.map((r) => r.name);
    const suffixes = Object.values(VARIANTS).flatMap((list) => list.map((v) => v.suffix));
    for (const d of snapshot.datasets) {
      const [region, ...rest] = (d.datasetName ?? '').split(' ');
      expect(regions).toContain(region);
      expect(rest.join(' ').startsWith(`${d.dataProductName} `)).toBe(true);
      expect(suffixes).toContain(rest.join(' ').slice((d.dataProductName ?? '').length + 1));
    }
    expect(new Set(names).size).toBeGreaterThan(300);
    expect(new Set(snapshot.datasets.map((d) => d.dataProductName)).size).toBeGreaterThanOrEqual(15);
    expect(new Set(snapshot.datasets.map((d) => d.supplier.id)).size).toBeGreaterThanOrEqual(10);
    const zones = new Set(snapshot.datasets.map((d) => d.currentProcessingDeadlineConfig.timezone));
    for (const zone of [
      '',
      'Europe/London',
      'America/New_York',
      'Asia/Tokyo',
      'Australia/Sydney',
      'Europe/Berlin',
    ]) {
      expect(zones).toContain(zone);
    }
  });

  it('mixes daily, hourly, weekly and monthly schedules with every field a number or *', () => {
    const snapshot = generateDemoSnapshot({ datasets: 500, seed: 9, now: NOW, deliveriesPerDataset: 1 });
    const kinds = new Set<string>();
    for (const { currentProcessingDeadlineConfig: c } of snapshot.datasets) {
      const fields = [c.minute, c.hour, c.dayOfTheMonth, c.month, c.dayOfWeek, c.year];
      expect(fields.every((f) => /^(\*|\d+)$/.test(f))).toBe(true);
      expect(c.cronExpression).toBe(fields.join(' '));
      if (c.hour === '*') kinds.add('hourly');
      else if (c.dayOfWeek !== '*') kinds.add('weekly');
      else if (c.dayOfTheMonth !== '*') kinds.add('monthly');
      else kinds.add('daily');
    }
    expect([...kinds].sort()).toEqual(['daily', 'hourly', 'monthly', 'weekly']);
  });

  it('shows a realistic mix of statuses over 1000 datasets', () => {
    const snapshot = generateDemoSnapshot({ datasets: 1000, seed: 42, now: NOW });
    const latest: Record<string, number> = {};
    let events = 0;
    let failed = 0;
    for (const record of snapshot.datasets) {
      const status = record.latestDeliveryStatus ?? 'null';
      latest[status] = (latest[status] ?? 0) + 1;
      for (const event of record.deliveryEventList) {
        events++;
        if (event.status === 'FAILED') failed++;
      }
    }
    expect(latest.HEALTHY).toBeGreaterThan(700);
    expect(latest.HEALTHY).toBeLessThan(920);
    expect(latest.DELIVERED_LATE).toBeGreaterThan(30);
    expect(latest.FAILED).toBeGreaterThan(20);
    expect(latest.MISSING).toBeGreaterThan(5);
    expect((latest.FAILED ?? 0) + (latest.MISSING ?? 0)).toBeLessThan(180);
    // failRate is the share of attempts that fail (default 0.06).
    expect(failed / events).toBeGreaterThan(0.04);
    expect(failed / events).toBeLessThan(0.08);
    // Some datasets are persistently troubled: several failures in their recent history.
    const troubled = snapshot.datasets.filter(
      (d) => d.deliveryEventList.filter((e) => e.status !== 'HEALTHY').length >= 8,
    );
    expect(troubled.length).toBeGreaterThan(20);
  });

  it('follows failRate', () => {
    const share = (failRate: number) => {
      const { datasets } = generateDemoSnapshot({ datasets: 300, seed: 4, now: NOW, failRate });
      const events = datasets.flatMap((d) => d.deliveryEventList);
      return events.filter((e) => e.status === 'FAILED').length / events.length;
    };
    expect(share(0)).toBe(0);
    expect(share(0.02)).toBeLessThan(0.035);
    expect(share(0.25)).toBeGreaterThan(0.17);
  });

  it('honours deliveriesPerDataset and orgId, and rejects bad options', () => {
    const { datasets } = generateDemoSnapshot({
      datasets: 5,
      seed: 1,
      now: NOW,
      deliveriesPerDataset: 3,
      orgId: 'org-x',
    });
    expect(datasets.every((d) => d.deliveryEventList.length === 3 && d.ownerOrgId === 'org-x')).toBe(true);
    expect(generateDemoSnapshot({ datasets: 0, seed: 1, now: NOW })).toEqual({ datasets: [], tasks: {} });
    expect(() => generateDemoSnapshot({ datasets: -1, seed: 1, now: NOW })).toThrow(RangeError);
    expect(() => generateDemoSnapshot({ datasets: 1, seed: 1, now: new Date(Number.NaN) })).toThrow(
      RangeError,
    );
    expect(() => generateDemoSnapshot({ datasets: 1, seed: 1, now: NOW, failRate: 2 })).toThrow(RangeError);
    expect(() => generateDemoSnapshot({ datasets: 1, seed: 1, now: NOW, deliveriesPerDataset: 1.5 })).toThrow(
      RangeError,
    );
  });
});
