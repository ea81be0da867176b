/** Sync outages: one open per source until regained, losses held for the end of quiet hours, on the timeline. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../../electron/store/database';
import {
  clearHeldOutages,
  heldOutages,
  openOutage,
  openOutages,
  recordLoss,
  recordRegain,
} from '../../../../electron/store/tables/outages';
import { datasetTimeline } from '../../../../electron/store/tables/timeline';
import { ORG, putDataset } from '../../../helpers/alerts';

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
});
afterEach(() => store.close());

const loss = (sourceId: string, lostAt: string) => ({
  orgId: ORG,
  sourceId,
  sourceName: `Source ${sourceId}`,
  lastSuccessAt: '2026-11-21T11:00:00.000Z',
  lostAt,
});

describe('sync outages', () => {
  it('keeps one open outage per source until it is regained', () => {
    const a = recordLoss(store, loss('a', '2026-11-21T12:00:00.000Z'));
    recordLoss(store, loss('b', '2026-11-21T12:05:00.000Z'));
    expect(openOutage(store, ORG, 'a')).toEqual({ ...a, regainedAt: null });
    expect(openOutages(store).map((o) => o.sourceId)).toEqual(['a', 'b']);
    recordRegain(store, a.id, '2026-11-21T12:30:00.000Z');
    recordRegain(store, a.id, '2026-11-21T13:00:00.000Z'); // ended already: kept as it was
    expect(openOutage(store, ORG, 'a')).toBeNull();
    expect(openOutages(store).map((o) => o.sourceId)).toEqual(['b']);
  });

  it('remembers the losses held for the end of quiet hours until they are cleared, ended ones included', () => {
    const a = recordLoss(store, loss('a', '2026-11-21T12:00:00.000Z'), true);
    recordLoss(store, loss('b', '2026-11-21T12:01:00.000Z'));
    const c = recordLoss(store, loss('c', '2026-11-21T12:02:00.000Z'), true);
    recordRegain(store, c.id, '2026-11-21T12:10:00.000Z');
    expect(heldOutages(store).map((o) => [o.sourceId, o.regainedAt])).toEqual([
      ['a', null],
      ['c', '2026-11-21T12:10:00.000Z'],
    ]);
    clearHeldOutages(store);
    expect(heldOutages(store)).toEqual([]);
    expect(openOutage(store, ORG, 'a')?.id).toBe(a.id);
  });

  it("shows on the org's dataset timelines", () => {
    putDataset(store, 1, 'HEALTHY', 'd1');
    const a = recordLoss(store, loss('a', '2026-11-21T12:00:00.000Z'));
    expect(datasetTimeline(store, ORG, 'ds-1', 10).filter((e) => e.kind === 'outage')).toEqual([
      expect.objectContaining({
        at: '2026-11-21T12:00:00.000Z',
        text: 'Lost contact with Source a (not regained yet)',
      }),
    ]);
    recordRegain(store, a.id, '2026-11-21T12:30:00.000Z');
    expect(datasetTimeline(store, ORG, 'ds-1', 10).find((e) => e.kind === 'outage')?.text).toBe(
      'Lost contact with Source a; regained at 2026-11-21T12:30:00.000Z',
    );
  });
});
