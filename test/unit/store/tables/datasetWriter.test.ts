/**
 * The write path: rollbacks leave no stale caches, revisions follow data changes only, events tied in
 * time keep their list's order.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportSnapshot } from '../../../../electron/query/exportSnapshot';
import { createApiKey, recordKeyUse } from '../../../../electron/store/tables/apiKeys';
import { Store } from '../../../../electron/store/database';
import {
  pruneTasks,
  pruneTasksAfter,
  writeDataset,
  writeTasks,
} from '../../../../electron/store/tables/datasetWriter';
import { ensureOrg } from '../../../../electron/store/tables/orgs';
import { fixtureRecords, fixtureTasks } from '../../../helpers/fixtures';

let store: Store;
beforeEach(async () => {
  store = await Store.open({ dataDir: null });
  ensureOrg(store, 'acme', new Date());
});
afterEach(() => store.close());

const options = { events: 'replace', deliveriesPerDataset: 100 } as const;

describe('writeDataset', () => {
  it('writes again after a rolled-back write that inserted a new schedule', () => {
    const [record] = fixtureRecords(1, 3, 'rb');
    const config = {
      ...record!.currentProcessingDeadlineConfig,
      hour: '23',
      cronExpression: '30 23 * * * *',
    };
    const withNewSchedule = { ...record!, currentProcessingDeadlineConfig: config };
    expect(() =>
      store.transaction(() => {
        writeDataset(store, 'acme', withNewSchedule, options);
        throw new Error('sync failed half-way');
      }),
    ).toThrow('sync failed half-way');
    expect(store.value('SELECT count(*) FROM datasets')).toBe(0);
    store.transaction(() => writeDataset(store, 'acme', withNewSchedule, options));
    expect(store.value('SELECT count(*) FROM datasets')).toBe(1);
  });
});

describe('schedules', () => {
  const storedConfigs = (): unknown[] =>
    store
      .all(
        `SELECT c.json FROM events e JOIN configs c ON c.id = e.config_id
         ORDER BY e.deadline_key DESC, e.delivered_key DESC, e.seq DESC`,
      )
      .map((row) => JSON.parse(String(row.json)));

  it("stores each event's own schedule, whether its object is shared, a copy or a neighbour's with one field changed", () => {
    const [base] = fixtureRecords(1, 3, 'cfg');
    const daily = base!.deliveryEventList[0]!.processingDeadlineConfig;
    // Copies (a first sync's records come back from its spool as new objects, one per event), and
    // schedules differing from the one before in a single field, the last field included.
    const configs = [
      daily,
      { ...daily },
      { ...daily, cronExpression: `${daily.cronExpression} ` },
      { ...daily, minute: daily.minute === '7' ? '8' : '7' },
      { ...daily },
      daily,
      { ...daily, timezone: daily.timezone === 'UTC' ? 'Europe/Paris' : 'UTC' },
    ];
    const events = configs.map((config, i) => ({
      ...base!.deliveryEventList[0]!,
      deliveryId: `cfg-${i}`,
      deliveryDeadline: `2026-11-${String(20 - i).padStart(2, '0')}T04:00:00.000Z`,
      processingDeadlineConfig: config,
    }));
    store.transaction(() => writeDataset(store, 'acme', { ...base!, deliveryEventList: events }, options));
    expect(storedConfigs()).toEqual(configs);
    // One row per distinct schedule.
    expect(store.value('SELECT count(*) FROM configs')).toBe(
      new Set(configs.map((config) => JSON.stringify(config))).size +
        // The record's current schedule, if none of its events has it.
        (configs.some(
          (config) => JSON.stringify(config) === JSON.stringify(base!.currentProcessingDeadlineConfig),
        )
          ? 0
          : 1),
    );
  });
});

describe('events tied in deadline and delivered time', () => {
  const [base] = fixtureRecords(1, 3, 'tie');
  // More than one statement's worth (EVENTS_PER_STATEMENT is 32), all due at once, none delivered.
  const tied = Array.from({ length: 40 }, (_, i) => ({
    ...base!.deliveryEventList[0]!,
    deliveryId: `tie-${i}`,
    deliveryDeadline: '2026-11-20T04:00:00.000Z',
    deliveredAt: null,
  }));
  const record = { ...base!, deliveryId: 'tie-0', deliveryEventList: tied };
  const listed = (): string[] => {
    let text = '';
    exportSnapshot(store, 'acme', (chunk) => (text += chunk));
    const { datasets } = JSON.parse(text) as { datasets: { deliveryEventList: { deliveryId: string }[] }[] };
    return datasets[0]!.deliveryEventList.map((event) => event.deliveryId);
  };
  const ids = tied.map((event) => event.deliveryId);

  it("read back in the record's order (newest first), so an export's import lists them as the export did", () => {
    store.transaction(() => writeDataset(store, 'acme', record, options));
    expect(listed()).toEqual(ids);
    // What an export wrote, imported again (and a sync that sends the list again): the same order.
    store.transaction(() => writeDataset(store, 'acme', record, options));
    expect(listed()).toEqual(ids);
    store.transaction(() =>
      writeDataset(store, 'acme', record, { events: 'merge', deliveriesPerDataset: 100 }),
    );
    expect(listed()).toEqual(ids);
  });

  it('retention keeps the first listed', () => {
    store.transaction(() =>
      writeDataset(store, 'acme', record, { events: 'replace', deliveriesPerDataset: 3 }),
    );
    expect(listed()).toEqual(['tie-0', 'tie-1', 'tie-2']);
  });
});

describe('merging events', () => {
  const merge = { events: 'merge', deliveriesPerDataset: 100 } as const;
  const changes = (): number => Number(store.value('SELECT total_changes()'));

  it('rewrites only the events that changed (an unchanged one would still move its row and index entry)', () => {
    const record = fixtureRecords(4, 30, 'merge')[3]!;
    expect(record!.deliveryEventList).toHaveLength(4);
    store.transaction(() => writeDataset(store, 'acme', record!, merge));
    const before = changes();
    store.transaction(() => writeDataset(store, 'acme', record!, merge));
    // The dataset's row only: none of its events.
    expect(changes() - before).toBe(1);

    const events = record!.deliveryEventList.map((event, i) =>
      i === 2 ? { ...event, status: event.status === 'FAILED' ? 'HEALTHY' : 'FAILED' } : event,
    );
    const again = changes();
    const failedBefore = store.value('SELECT failed_delivery FROM datasets');
    store.transaction(() => writeDataset(store, 'acme', { ...record!, deliveryEventList: events }, merge));
    // The dataset's row, the changed event, and the row again: that event's status moved its failed delivery.
    expect(store.value('SELECT failed_delivery FROM datasets')).not.toBe(failedBefore);
    expect(changes() - again).toBe(3);
    expect(store.value('SELECT status FROM events WHERE delivery_id = ?', [events[2]!.deliveryId])).toBe(
      events[2]!.status,
    );
  });
});

describe('data revision', () => {
  it('changes with data, not with a key being used', () => {
    const key = createApiKey(store, 'acme', 'k', new Date());
    const before = store.dataRevision;
    recordKeyUse(store, key.id, new Date());
    expect(store.dataRevision).toBe(before);
    expect(store.value('SELECT last_used_at FROM api_keys')).not.toBeNull();
    store.transaction(() => writeDataset(store, 'acme', fixtureRecords(1, 4, 'rev')[0]!, options));
    expect(store.dataRevision).not.toBe(before);
  });
});

describe('pruning tasks records no delivery names any more', () => {
  /** A store with 6 datasets, tasks for some of their deliveries and for deliveries none names. */
  async function withTasks(): Promise<Store> {
    const pruning = await Store.open({ dataDir: null });
    ensureOrg(pruning, 'acme', new Date());
    ensureOrg(pruning, 'other', new Date());
    const records = fixtureRecords(6, 11, 'ds');
    pruning.transaction(() => {
      for (const record of records) writeDataset(pruning, 'acme', record, options);
      const named = records
        .flatMap((record) => record.deliveryEventList.map((event) => event.deliveryId!))
        .slice(0, 7);
      for (const deliveryId of named) writeTasks(pruning, 'acme', deliveryId, fixtureTasks(deliveryId, 'ds'));
      // An empty delivery id sorts first: pruned like any other.
      for (const gone of ['', 'a-gone', 'm-gone', 'z-gone', 'zz-gone'])
        writeTasks(pruning, 'acme', gone, fixtureTasks(gone, 'ds'));
      writeTasks(pruning, 'other', 'a-gone', fixtureTasks('a-gone', 'ds'));
    });
    return pruning;
  }
  const kept = (s: Store): string[] =>
    s.column<string>('SELECT org_id || ":" || delivery_id FROM delivery_tasks ORDER BY 1');

  it('in batches after a delivery id, as a sync prunes them, removes what one pass removes', async () => {
    const whole = await withTasks();
    const batched = await withTasks();
    try {
      const before = kept(whole);
      pruneTasks(whole, 'acme');
      expect(kept(whole)).toHaveLength(before.length - 5);
      expect(kept(whole)).toContain('other:a-gone');
      const looked: string[] = [];
      for (let after: string | null = null; ;) {
        const last = pruneTasksAfter(batched, 'acme', after, 2);
        if (last === null) break;
        looked.push((after = last));
      }
      expect(kept(batched)).toEqual(kept(whole));
      // Two at a time over 12 records: six batches, each ending where the next starts.
      expect(looked).toHaveLength(6);
      expect(looked.at(-1)).toBe('zz-gone');
    } finally {
      await whole.close();
      await batched.close();
    }
  });
});
