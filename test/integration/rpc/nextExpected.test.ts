/**
 * "Next expected" in the window is the deadline clock's (docs/decisions.md "Failure time"; the same
 * clock as Upcoming and overdue), not the remote's value as last synced: the datasets table's rows and
 * the dataset view's record both say the schedule's next deadline after now, a day later too.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../../electron/store/database';
import { removeTempDirs, tempDir } from '../../helpers/cli';
import { engineDispatch } from '../../helpers/engineClient';
import { SHIFT_END, SHIFT_ORG, playShift } from '../../helpers/handoffShift';

let store: Store;
let dataDir: string;

beforeEach(async () => {
  dataDir = tempDir('dh-next-rpc-');
  store = await Store.open({ dataDir: null });
  await playShift(store);
});
afterEach(async () => {
  await store.close();
  removeTempDirs();
});

const DAY = 86_400_000;

describe('next expected', () => {
  it.each([
    [
      'at the end of the shift',
      SHIFT_END,
      { index: '2026-11-26T17:00:00.000Z', 'fx-rates': '2026-11-27T04:30:00.000Z' },
    ],
    [
      'a day later, nothing synced since',
      new Date(SHIFT_END.getTime() + DAY),
      { index: '2026-11-27T17:00:00.000Z', 'fx-rates': '2026-11-28T04:30:00.000Z' },
    ],
  ])('is the schedule’s next deadline %s, in the table and the dataset view', async (_when, at, expected) => {
    const { dispatch } = engineDispatch(store, dataDir, at);
    const page = (await dispatch('datasets.rows', {
      orgId: SHIFT_ORG,
      filters: [],
      search: '',
      sort: '',
      pageToken: null,
      pageSize: 100,
    })) as {
      rows: { datasetId: string; nextExpectedDeliveryTimestamp: string | null }[];
    };
    const upcoming = (await dispatch('upcoming.list', { orgId: SHIFT_ORG, hours: 48 })) as {
      deadlines: { datasetId: string; deadline: string }[];
    };
    for (const [datasetId, next] of Object.entries(expected)) {
      expect(page.rows.find((row) => row.datasetId === datasetId)?.nextExpectedDeliveryTimestamp).toBe(next);
      const record = (await dispatch('dataset.get', { orgId: SHIFT_ORG, datasetId })) as {
        nextExpectedDeliveryTimestamp: string | null;
      };
      expect(record.nextExpectedDeliveryTimestamp).toBe(next);
      // One source of truth: Upcoming's first deadline of the dataset is the same instant.
      expect(upcoming.deadlines.find((deadline) => deadline.datasetId === datasetId)?.deadline).toBe(next);
    }
  });
});
