/**
 * Recovered, by the recovery's own time (docs/decisions.md "The handoff by times"): a dataset that
 * recovered, failed and recovered again inside the window is recovered at the second recovery; one that
 * recovered a week ago, seen only now by a mirror that was offline, is not among the window's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { HandoffReport } from '../../../shared/handoff';
import { type DatasetSpec, type LocalFixture, localFixture } from '../../helpers/localApi';

const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();

const dataset = (
  id: string,
  delivery: string,
  status: string,
  deadline: number,
  delivered: number | null,
): DatasetSpec => ({
  id,
  name: `Dataset ${id}`,
  product: 'Prices',
  supplier: { id: 'sup-1', name: 'Supplier 1' },
  status,
  deliveryId: delivery,
  deadline: at(deadline),
  deliveredAt: delivered === null ? null : at(delivered),
  ...(status === 'FAILED'
    ? { failure: { stage: 'ingest' as const, shortCode: 'E_AUTH_FAILED', message: 'refused' } }
    : {}),
});

let fixture: LocalFixture;
afterEach(() => fixture.close());

async function syncAt(time: number, ...specs: DatasetSpec[]): Promise<void> {
  fixture.clock.now = new Date(time);
  await fixture.sync('acme', ...specs);
}

describe('recovered in the handoff', () => {
  it('is the last recovery of the window, at its delivery’s time', async () => {
    fixture = await localFixture({ now: new Date(NOW - 7 * HOUR) });
    await syncAt(NOW - 6 * HOUR, dataset('y', 'y-1', 'FAILED', NOW - 6 * HOUR, NOW - 6 * HOUR + 300_000));
    await syncAt(NOW - 5 * HOUR, dataset('y', 'y-2', 'HEALTHY', NOW - 5 * HOUR, NOW - 5 * HOUR - 600_000));
    await syncAt(NOW - 3 * HOUR, dataset('y', 'y-3', 'FAILED', NOW - 3 * HOUR, NOW - 3 * HOUR + 300_000));
    await syncAt(NOW - HOUR, dataset('y', 'y-4', 'HEALTHY', NOW - HOUR, NOW - 65 * 60_000));
    fixture.clock.now = new Date(NOW);
    const report = (await fixture.get('/local/v1/handoff?since=8h')).json() as HandoffReport;
    expect(report.recovered.map(({ datasetId, was, recoveredAt }) => [datasetId, was, recoveredAt])).toEqual([
      ['y', 'FAILED', at(NOW - 65 * 60_000)],
    ]);
    expect(report.summary.recovered).toBe(1);
  });

  it('leaves out a recovery of a week ago that the mirror saw only now', async () => {
    const DAY = 24 * HOUR;
    fixture = await localFixture({ now: new Date(NOW - 8 * DAY) });
    await syncAt(NOW - 8 * DAY, dataset('x', 'x-1', 'FAILED', NOW - 8 * DAY, NOW - 8 * DAY + 300_000));
    // A week offline: the next sync finds it healthy since the day after.
    await syncAt(NOW - 10 * 60_000, dataset('x', 'x-2', 'HEALTHY', NOW - 7 * DAY, NOW - 7 * DAY + 300_000));
    fixture.clock.now = new Date(NOW);
    const report = (await fixture.get('/local/v1/handoff?since=8h')).json() as HandoffReport;
    expect(report.recovered).toEqual([]);
    expect(report.summary.recovered).toBe(0);
    const week = (await fixture.get('/local/v1/handoff?since=8d')).json() as HandoffReport;
    expect(week.recovered.map(({ datasetId, recoveredAt }) => [datasetId, recoveredAt])).toEqual([
      ['x', at(NOW - 7 * DAY + 300_000)],
    ]);
  });

  it('is never dated after the mirror learned of it', async () => {
    fixture = await localFixture({ now: new Date(NOW - 4 * HOUR) });
    await syncAt(NOW - 4 * HOUR, dataset('z', 'z-1', 'FAILED', NOW - 4 * HOUR, NOW - 4 * HOUR + 300_000));
    // A remote whose clock runs ahead: the recovering delivery says 40 minutes from now.
    await syncAt(NOW - 2 * HOUR, dataset('z', 'z-2', 'HEALTHY', NOW - HOUR, NOW + 40 * 60_000));
    fixture.clock.now = new Date(NOW);
    const report = (await fixture.get('/local/v1/handoff?since=8h')).json() as HandoffReport;
    expect(report.recovered.map(({ datasetId, recoveredAt }) => [datasetId, recoveredAt])).toEqual([
      ['z', at(NOW - 2 * HOUR)],
    ]);
  });

  it('is the timeline’s where the history shows none: a MISSING delivery the remote rewrote as late', async () => {
    fixture = await localFixture({ now: new Date(NOW - 12 * HOUR) });
    // MISSING before the window (since 8h), and seen so by the mirror.
    await syncAt(NOW - 10 * HOUR, dataset('m', 'm-1', 'MISSING', NOW - 10 * HOUR, null));
    // In the window the remote rewrites that very delivery as late: the history holds no trouble any more.
    await syncAt(NOW - 2 * HOUR, dataset('m', 'm-1', 'DELIVERED_LATE', NOW - 10 * HOUR, NOW - 3 * HOUR));
    fixture.clock.now = new Date(NOW);
    const report = (await fixture.get('/local/v1/handoff?since=8h')).json() as HandoffReport;
    expect(report.recovered.map(({ datasetId, was, recoveredAt }) => [datasetId, was, recoveredAt])).toEqual([
      ['m', 'MISSING', at(NOW - 2 * HOUR)],
    ]);
  });
});
