/**
 * The handoff's window as read from the timeline (electron/query/handoff.ts): after a first sync wrote
 * a "first seen" entry for every dataset, the window holds the entries that can matter to a handoff (a
 * known status left, or trouble entered), with what troubled datasets were when it began; and its
 * queries read the window through the timeline's indexes by time, not the org's whole timeline.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readHandoffWindow } from '../../../electron/query/handoff';
import { Store } from '../../../electron/store/database';
import { ensureOrg } from '../../../electron/store/tables/orgs';
import { addTimelineEntry } from '../../../electron/store/tables/timeline';
import { plannedQueries } from '../../helpers/queryPlans';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-21T12:00:00.000Z');
const SINCE = NOW - 8 * HOUR;
const at = (ms: number): string => new Date(ms).toISOString();

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  ensureOrg(store, 'acme', new Date(NOW - 48 * HOUR));
  store.transaction(() => {
    // Long before the window: "b" failed, "c" went missing.
    for (const [datasetId, to] of [
      ['b', 'FAILED'],
      ['c', 'MISSING'],
    ] as const)
      addTimelineEntry(store, { orgId: 'acme', datasetId, at: at(SINCE - 20 * HOUR), kind: 'status', to });
    // A first sync in the window: 200 datasets first seen, one of them FAILED.
    for (let i = 0; i < 200; i++)
      addTimelineEntry(store, {
        orgId: 'acme',
        datasetId: `new-${i}`,
        at: at(SINCE + HOUR),
        kind: 'status',
        to: i === 7 ? 'FAILED' : 'HEALTHY',
      });
    // Changes in the window: "b" recovers, "new-3" fails, "c" is delivered late; a note on "b".
    addTimelineEntry(store, {
      orgId: 'acme',
      datasetId: 'b',
      at: at(SINCE + 2 * HOUR),
      kind: 'status',
      from: 'FAILED',
      to: 'HEALTHY',
    });
    addTimelineEntry(store, {
      orgId: 'acme',
      datasetId: 'new-3',
      at: at(SINCE + 3 * HOUR),
      kind: 'status',
      from: 'HEALTHY',
      to: 'FAILED',
    });
    addTimelineEntry(store, {
      orgId: 'acme',
      datasetId: 'c',
      at: at(SINCE + 4 * HOUR),
      kind: 'status',
      from: 'MISSING',
      to: 'DELIVERED_LATE',
    });
    addTimelineEntry(store, {
      orgId: 'acme',
      datasetId: 'b',
      at: at(SINCE + 2 * HOUR),
      kind: 'acknowledged',
      text: 'vendor rotated the key',
      by: 'Ana',
    });
  });
});
afterEach(() => store.close());

describe("the handoff's window", () => {
  it('holds the entries that leave a status or enter trouble, and the troubled status at its start', () => {
    const window = readHandoffWindow(store, 'acme', SINCE, NOW);
    expect(window.entries.map(({ datasetId, from, to }) => [datasetId, from, to])).toEqual([
      ['new-7', null, 'FAILED'],
      ['b', 'FAILED', 'HEALTHY'],
      ['new-3', 'HEALTHY', 'FAILED'],
      ['c', 'MISSING', 'DELIVERED_LATE'],
    ]);
    expect(window.statusAtStart).toEqual(
      new Map([
        ['b', 'FAILED'],
        ['c', 'MISSING'],
      ]),
    );
    expect(window.notes).toMatchObject([{ datasetId: 'b', by: 'Ana', text: 'vendor rotated the key' }]);
  });

  it("reads the timeline through its indexes by time, not the org's whole timeline", () => {
    const windowQueries = plannedQueries(store, () => readHandoffWindow(store, 'acme', SINCE, NOW)).filter(
      ({ sql }) => /FROM timeline\s/.test(sql) && /at_key >= \?/.test(sql),
    );
    expect(windowQueries).toHaveLength(2);
    for (const { plan } of windowQueries)
      expect(plan).toMatch(
        /USING INDEX timeline_handoff_(changes|notes) \(org_id=\? AND at_key>\? AND at_key<\?\)/,
      );
  });
});
