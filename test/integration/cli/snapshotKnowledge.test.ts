/**
 * `export` / `import` carry the local knowledge (docs/architecture.md#snapshots) through real data directories: a
 * directory whose org lived (status transitions written by the sync's commit, `ack` and `ack --cause`
 * from the command line, an acknowledgement that ended when its dataset recovered, sync outages as the
 * contact watch records them) is exported, imported into a fresh directory and exported again: the two
 * files are byte for byte the same, and the `ack`-visible state (incidents too) reads the same on both sides;
 * also with a few hundred datasets of the demo beside them, whose file the export writes in several slices.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DatasetRecord } from '../../../shared/schemas';
import { loadDemo } from '../../../electron/demo/load';
import { listIncidents } from '../../../electron/query/incidents';
import { storedDatasetIds } from '../../../electron/query/storedHealth';
import { listAcknowledgements } from '../../../electron/store/tables/acknowledgements';
import { Store } from '../../../electron/store/database';
import { writeTasks } from '../../../electron/store/tables/datasetWriter';
import { recordLoss, recordRegain } from '../../../electron/store/tables/outages';
import { datasetTimeline } from '../../../electron/store/tables/timeline';
import { applySync } from '../../../electron/sync/apply';
import { ChangeSet, defaultSpoolOptions } from '../../../electron/sync/changes';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { fixtureRecords, fixtureTasks } from '../../helpers/fixtures';
import { regroup } from '../../helpers/incidents';

const ORG = 'acme';
afterAll(() => removeTempDirs());

function record(id: string, status: string, deliveryId: string, deadline: string, at: Date): DatasetRecord {
  const base = fixtureRecords(1, 5, id)[0]!;
  return {
    ...base,
    datasetId: id,
    datasetName: `Dataset ${id}`,
    supplier: { id: 'sup-a', name: 'Supplier A' },
    deliveryId,
    latestDeliveryStatus: status,
    deliveryEventList: [
      {
        ...base.deliveryEventList[0]!,
        status,
        deliveryId,
        deliveryDeadline: deadline,
        deliveredAt: status === 'MISSING' ? null : at.toISOString(),
      },
    ],
  };
}

async function sync(store: Store, now: Date, ...records: DatasetRecord[]): Promise<void> {
  const changes = new ChangeSet(defaultSpoolOptions());
  for (const each of records) changes.add({ record: each, hash: `${Math.random()}` }, 100);
  const stored = new Map(storedDatasetIds(store, ORG).map((id) => [id, true]));
  await applySync(store, { orgId: ORG, changes, stored, now, deliveriesPerDataset: 100 });
  store.transaction(() => {
    for (const each of records)
      if (each.latestDeliveryStatus === 'FAILED')
        writeTasks(store, ORG, each.deliveryId!, fixtureTasks(each.deliveryId!, each.datasetId));
    regroup(store, ORG, now);
  });
}

/** The org's acknowledgements, incidents and timelines as the doors read them, from a data directory. */
async function seen(dataDir: string): Promise<unknown> {
  const store = await Store.open({ dataDir });
  try {
    return {
      acknowledgements: listAcknowledgements(store, ORG, true),
      incidents: listIncidents(store, ORG, { includeEnded: true }),
      timelines: storedDatasetIds(store, ORG)
        .sort()
        .map((id) => [id, datasetTimeline(store, ORG, id, 500)]),
    };
  } finally {
    await store.close();
  }
}

/** What `export` and `import` say they carried, as the file holds it. */
function carried(file: string): string {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as {
    datasets: unknown[];
    tasks: object;
    timeline: Record<string, unknown[]>;
    acknowledgements: unknown[];
    syncOutages: unknown[];
    incidents: unknown[];
  };
  const entries = Object.values(snapshot.timeline).reduce((sum, list) => sum + list.length, 0);
  const knowledge = [
    `${entries} timeline entries`,
    `${snapshot.acknowledgements.length} acknowledgements`,
    `${snapshot.syncOutages.length} sync outage`,
    `${snapshot.incidents.length} incidents`,
  ];
  return `${snapshot.datasets.length} datasets and the tasks of ${Object.keys(snapshot.tasks).length} deliveries (with ${knowledge.join(', ')})`;
}

describe('export → import → export through the CLI', () => {
  // 300 more datasets of the demo (with their tasks and incidents): a file of several slices.
  it.each([0, 300])(
    'is byte for byte the same, with the knowledge counted and read back the same (%i demo datasets)',
    async (demo) => {
      const lived = tempDir();
      const first = new Date('2026-11-21T06:00:00.000Z');
      const store = await Store.open({ dataDir: lived });
      try {
        await sync(
          store,
          first,
          record('a', 'FAILED', 'a1', '2026-11-21T05:00:00.000Z', first),
          record('b', 'FAILED', 'b1', '2026-11-21T05:00:00.000Z', first),
          record('c', 'MISSING', 'c1', '2026-11-21T05:00:00.000Z', first),
        );
        const lost = recordLoss(store, {
          orgId: ORG,
          sourceId: 'src-1',
          sourceName: 'Remote one',
          lastSuccessAt: '2026-11-21T06:00:00.000Z',
          lostAt: '2026-11-21T06:03:00.000Z',
        });
        recordRegain(store, lost.id, '2026-11-21T06:20:00.000Z');
      } finally {
        await store.close();
      }
      const acking = new Date('2026-11-21T06:05:00.000Z');
      const acked = await cli(
        [
          'ack',
          '--cause',
          'normalize:E_SCHEMA_MISMATCH',
          '--org',
          ORG,
          '--note',
          'vendor schema',
          '--by',
          'sam',
          '--data-dir',
          lived,
        ],
        {},
        acking,
      );
      expect(acked.code, acked.stderr).toBe(0);
      const missing = await cli(['ack', 'c', '--by', 'ana', '--data-dir', lived], {}, acking);
      expect(missing.code, missing.stderr).toBe(0);
      // a recovers: its acknowledgement ends in the sync's commit.
      const later = new Date('2026-11-21T07:00:00.000Z');
      const again = await Store.open({ dataDir: lived });
      try {
        await sync(again, later, record('a', 'HEALTHY', 'a2', '2026-11-21T06:30:00.000Z', later));
        if (demo > 0) loadDemo(again, { orgId: ORG, datasets: demo, seed: 11, now: later });
      } finally {
        await again.close();
      }

      const file = join(tempDir(), 'acme.json');
      const exported = await cli(['export', '--org', ORG, file, '--data-dir', lived]);
      expect(exported.code, exported.stderr).toBe(0);
      if (demo === 0)
        expect(exported.stderr).toBe(
          `Exported 3 datasets and the tasks of 2 deliveries to ${file} (with 8 timeline entries, 3 acknowledgements, 1 sync outage, 2 incidents).\n`,
        );
      else expect(exported.stderr).toBe(`Exported ${carried(file).replace(' (', ` to ${file} (`)}.\n`);
      const fresh = tempDir();
      // Imported after it was exported (a time before it would cap the file's times at the import's).
      const imported = await cli(
        ['import', '--org', ORG, file, '--data-dir', fresh],
        {},
        new Date('2026-11-21T08:00:00.000Z'),
      );
      expect(imported.stderr).toBe(
        demo === 0
          ? 'Imported 3 datasets and the tasks of 2 deliveries into org acme (with 8 timeline entries, 3 acknowledgements, 1 sync outage, 2 incidents).\n'
          : `Imported ${carried(file).replace(' (', ' into org acme (')}.\n`,
      );
      const back = await cli(['export', '--org', ORG, '-', '--data-dir', fresh]);
      expect(back.stdout).toBe(readFileSync(file, 'utf8'));
      expect(await seen(fresh)).toEqual(await seen(lived));
      // The acknowledgement that holds still holds: unack withdraws it in the new directory.
      const unacked = await cli(['unack', 'b', '--by', 'sam', '--data-dir', fresh]);
      expect(unacked.code, unacked.stderr).toBe(0);
    },
    60_000,
  );
});
