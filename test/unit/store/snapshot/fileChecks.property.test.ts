/**
 * The import's checks across records (store/snapshot/fileChecks.ts, fileLedger.ts, deliveryChecks.ts) are
 * made over the rows it writes, some once the datasets are all read, so memory does not grow with the file
 * (docs/storage.md "Memory"). What users read must not change: for random small files full of clashes
 * (a datasetId twice, a delivery twice in a record or under two datasets, one the org keeps under
 * another dataset, a tasks key twice or of no delivery, a bad record late), the refusal names the
 * same first problem, in file order, as the checks that kept every datasetId and delivery of the file in
 * memory, which this file keeps as the specification (`expected`).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../../../electron/store/database';
import { SnapshotChecker } from '../../../../electron/store/snapshot/fileChecks';
import { shortQuote } from '../../../../electron/store/snapshot/importRules';
import { normalizeTimeline } from '../../../../electron/store/snapshot/knowledgeRecords';
import {
  SnapshotError,
  importSnapshot,
  importSnapshotFile,
} from '../../../../electron/store/snapshot/importSnapshot';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const ORG = 'acme';
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

type Raw = Record<string, unknown>;
type Section = 'datasets' | 'tasks' | 'timeline';
interface File {
  datasets: Raw[];
  /** In file order; a key may repeat (written by hand: JSON.stringify cannot). */
  tasks: [string, Raw][];
  /** A key may repeat. */
  timeline: [string, unknown][];
  /** The order of the sections in the file. */
  order: Section[];
  /** Datasets of the org before the import (each delivery under one of them). */
  kept: Raw[];
  /** Another org holding the same deliveries: not this org's business. */
  otherOrg: boolean;
  retention: number;
}

/** Deliveries any dataset may name (so they clash), beside each dataset's own (`a-0`, `a-1`…). */
const DELIVERIES = ['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7', 'd8'];
const DATASETS = ['a', 'b', 'c', 'd', 'e', 'f', 'k1'];
/** What a dataset's `n`-th event (or its record) names: mostly its own, now and then a clash. */
const named = (datasetId: string, n: number): fc.Arbitrary<string | null> =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constant(`${datasetId}-${n}`) },
    // Another dataset's, or one any may name.
    { weight: 1, arbitrary: fc.constantFrom(...DATASETS).map((other) => `${other}-${n}`) },
    { weight: 2, arbitrary: fc.constantFrom(...DELIVERIES) },
    // Named twice in the record (n − 1 is the one before).
    { weight: 1, arbitrary: fc.constant(`${datasetId}-${Math.max(0, n - 1)}`) },
    { weight: 2, arbitrary: fc.constant(null) },
  );
const record = (datasetId: string): fc.Arbitrary<Raw> =>
  fc
    .record({
      deliveryId: named(datasetId, 0),
      events: fc
        .integer({ min: 0, max: 4 })
        .chain((count) => fc.tuple(...Array.from({ length: count }, (_, j) => named(datasetId, j)))),
      bad: fc.integer({ min: 0, max: 30 }),
    })
    .map(({ deliveryId: id, events, bad }) => ({
      datasetId,
      deliveryId: id,
      deliveryEventList: events.map((event, j) => ({
        deliveryId: event,
        status: 'HEALTHY',
        deliveryDeadline: new Date(Date.UTC(2026, 10, 20 - j, 6)).toISOString(),
      })),
      latestDeliveryStatus: bad === 0 ? 'NOT OK' : 'HEALTHY',
    }));
/** Something now and then (one time in seven), else null. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
/** Each dataset once, and now and then one again. */
const datasets: fc.Arbitrary<Raw[]> = fc
  .tuple(fc.shuffledSubarray(DATASETS, { maxLength: 5 }), rarely(fc.constantFrom(...DATASETS)))
  .chain(([ids, again]) => fc.tuple(...[...ids, ...(again === null ? [] : [again])].map(record)));
/** A delivery of a dataset that may be the file's, or one nobody has. */
const anyDelivery = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(fc.constantFrom(...DATASETS), fc.nat(3)).map(([id, n]) => `${id}-${n}`) },
  { weight: 1, arbitrary: fc.constantFrom(...DELIVERIES, 'gone') },
);
/** Entries of deliveries: mostly the dataset's own, now and then another's of the file or any. */
const entries = (datasetId: string, ids: string[]): fc.Arbitrary<unknown> =>
  fc
    .array(
      fc.oneof(
        { weight: 6, arbitrary: fc.nat(3).map((n) => `${datasetId}-${n}`) },
        { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...ids), fc.nat(1)).map(([id, n]) => `${id}-${n}`) },
        { weight: 1, arbitrary: anyDelivery },
      ),
      { maxLength: 3 },
    )
    .map((ids) => ids.map((id) => ({ at: '2026-11-20T06:00:00.000Z', kind: 'status', deliveryId: id })));
/** Entries of distinct keys, and now and then the first one's key again. */
const keyed = <T>(entry: fc.Arbitrary<[string, T]>): fc.Arbitrary<[string, T][]> =>
  fc
    .tuple(fc.uniqueArray(entry, { selector: ([key]) => key, maxLength: 3 }), rarely(entry))
    .map(([entries, again]) =>
      again === null || entries.length === 0 ? entries : [...entries, [entries[0]![0], again[1]]],
    );
const file: fc.Arbitrary<File> = datasets.chain((records) => {
  const ids = records.map((r) => r.datasetId as string);
  const inFile = ids.length > 0 ? fc.constantFrom(...ids) : fc.constant('a');
  return fc.record({
    datasets: fc.constant(records),
    tasks: keyed(
      fc.tuple<[string, Raw]>(
        fc.oneof({ weight: 6, arbitrary: anyDelivery }, { weight: 1, arbitrary: fc.constant('nowhere') }),
        fc.oneof(
          { weight: 10, arbitrary: fc.constant<Raw>({}) },
          // A task of another delivery: refused as the tasks record is read.
          {
            weight: 1,
            arbitrary: fc.constant<Raw>({ ingest: { tasks: [{ taskId: 't', deliveryId: 'elsewhere' }] } }),
          },
        ),
      ),
    ),
    order: fc.shuffledSubarray<Section>(['datasets', 'tasks', 'timeline'], { minLength: 3 }),
    timeline: keyed(
      fc
        .oneof({ weight: 10, arbitrary: inFile }, { weight: 1, arbitrary: fc.constantFrom('k2', 'zz') })
        .chain((datasetId) =>
          fc.tuple<[string, unknown]>(
            fc.constant(datasetId),
            // Not a timeline entry, now and then: refused as it is read.
            fc.oneof(
              { weight: 10, arbitrary: entries(datasetId, ids.length > 0 ? ids : ['a']) },
              { weight: 1, arbitrary: fc.constant([{ at: 'never' }]) },
            ),
          ),
        ),
    ),
    kept: fc.subarray([
      { datasetId: 'k1', deliveryId: 'd7', deliveryEventList: [{ deliveryId: 'd7' }, { deliveryId: 'd6' }] },
      {
        datasetId: 'k2',
        deliveryId: null,
        deliveryEventList: [{ deliveryId: 'd8' }, { deliveryId: 'k2-0' }],
      },
      { datasetId: 'k3', deliveryId: 'd5', deliveryEventList: [] },
    ]),
    otherOrg: fc.boolean(),
    retention: fc.constantFrom(2, 100),
  });
});

function text({ datasets, tasks, timeline, order }: File): string {
  const keyed = (entries: [string, unknown][]): string =>
    entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(',\n');
  const sections: Record<Section, string> = {
    datasets: `"datasets":[${datasets.map((r) => JSON.stringify(r)).join(',\n')}]`,
    tasks: `"tasks":{${keyed(tasks)}}`,
    timeline: `"timeline":{${keyed(timeline)}}`,
  };
  return `{${order.map((section) => sections[section]).join(',')}}`;
}

/** The checks as they were: every datasetId and delivery of the file in Maps, in file order. */
function expected(given: File): string | null {
  const checker = new SnapshotChecker();
  const datasetIds = new Map<string, number>();
  const datasetIdAt: string[] = [];
  const firstAt = new Map<string, { dataset: number; event: number }>();
  const RECORD = Number.MAX_SAFE_INTEGER;
  const path = ({ dataset, event }: { dataset: number; event: number }): string =>
    event === RECORD
      ? `$.datasets[${dataset}].deliveryId`
      : `$.datasets[${dataset}].deliveryEventList[${event}].deliveryId`;
  const datasetsPart = (): void =>
    given.datasets.forEach((value, i) => {
      const r = checker.dataset(value, i);
      const earlier = datasetIds.get(r.datasetId);
      if (earlier !== undefined)
        throw new Error(
          `$.datasets[${i}].datasetId: '${r.datasetId}' also appears at $.datasets[${earlier}]`,
        );
      datasetIds.set(r.datasetId, i);
      datasetIdAt[i] = r.datasetId;
      r.deliveryEventList.forEach(({ deliveryId: id }, j) => {
        if (id === null) return;
        const first = firstAt.get(id);
        if (first === undefined) return void firstAt.set(id, { dataset: i, event: j });
        const at = `$.datasets[${i}].deliveryEventList[${j}].deliveryId`;
        if (first.dataset === i)
          throw new Error(
            `${at}: '${id}' also appears at $.datasets[${i}].deliveryEventList[${first.event}]`,
          );
        throw new Error(`${at}: delivery ${shortQuote(id)} also belongs to ${path(first)}`);
      });
      if (r.deliveryId === null) return;
      const first = firstAt.get(r.deliveryId);
      if (first === undefined) firstAt.set(r.deliveryId, { dataset: i, event: RECORD });
      else if (first.dataset !== i)
        throw new Error(
          `$.datasets[${i}].deliveryId: delivery ${shortQuote(r.deliveryId)} also belongs to ${path(first)}`,
        );
    });
  const tasksPart = (): void => {
    const keys = new Set<string>();
    for (const [key, value] of given.tasks) {
      if (keys.has(key))
        throw new Error(`$.tasks[${JSON.stringify(key)}]: given twice (a deliveryId names one tasks record)`);
      keys.add(key);
      checker.tasks(key, value);
    }
  };
  // A timeline is checked as it is read, and written (its dataset must be the file's) then if the
  // datasets are read, else at the end of the file.
  const waiting: [string, unknown][] = [];
  const write = ([key, value]: [string, unknown]): void => {
    const at = `$.timeline[${JSON.stringify(key)}]`;
    if (!datasetIds.has(key))
      throw new Error(
        `${at}: the timeline of dataset ${shortQuote(key)}, which is not in the file's datasets (a snapshot holds the knowledge of its own datasets only)`,
      );
    normalizeTimeline(value, at).forEach(({ deliveryId: id }, i) => {
      const first = id === null ? undefined : firstAt.get(id);
      if (first === undefined || datasetIdAt[first.dataset] === key) return;
      throw new Error(
        `${at}[${i}].deliveryId: delivery ${shortQuote(id!)} belongs to dataset ${shortQuote(datasetIdAt[first.dataset]!)} (${path(first)}), not ${shortQuote(key)}`,
      );
    });
  };
  let datasetsRead = false;
  const timelinePart = (): void => {
    const keys = new Set<string>();
    for (const [key, value] of given.timeline) {
      const at = `$.timeline[${JSON.stringify(key)}]`;
      if (keys.has(key)) throw new Error(`${at}: given twice (a datasetId names one timeline)`);
      keys.add(key);
      normalizeTimeline(value, at);
      if (!datasetsRead) waiting.push([key, value]);
      else {
        waiting.splice(0).forEach(write);
        write([key, value]);
      }
    }
  };
  const parts: Record<Section, () => void> = {
    datasets: () => {
      datasetsPart();
      datasetsRead = true;
    },
    tasks: tasksPart,
    timeline: timelinePart,
  };
  try {
    for (const section of given.order) parts[section]();
    waiting.splice(0).forEach(write);
    const others = given.kept.filter((k) => !datasetIds.has(k.datasetId as string));
    let found: { at: { dataset: number; event: number }; message: string } | null = null;
    for (const k of others) {
      const named = [...(k.deliveryEventList as Raw[]).map((e) => e.deliveryId), k.deliveryId];
      for (const id of named) {
        const at = id == null ? undefined : firstAt.get(id as string);
        if (at === undefined) continue;
        if (
          found === null ||
          at.dataset < found.at.dataset ||
          (at.dataset === found.at.dataset && at.event < found.at.event)
        )
          found = {
            at,
            message: `${path(at)}: delivery ${shortQuote(id as string)} is already stored under dataset ${shortQuote(k.datasetId as string)} of org '${ORG}'`,
          };
      }
    }
    if (found !== null) return found.message;
    const orgHas = new Set(firstAt.keys());
    for (const k of others)
      for (const id of [...(k.deliveryEventList as Raw[]).map((e) => e.deliveryId), k.deliveryId])
        if (id != null) orgHas.add(id as string);
    for (const [key] of given.tasks)
      if (!orgHas.has(key))
        return `$.tasks[${JSON.stringify(key)}]: no dataset of the file or of org '${ORG}' has a delivery with this id`;
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

async function storeFor(given: File): Promise<Store> {
  const store = await Store.open({ dataDir: null });
  stores.push(store);
  // With the tasks of every delivery they name: the file's tasks of one replace them, given once.
  const seed = (org: string, records: Raw[]): void => {
    const checker = new SnapshotChecker();
    const datasets = records.map((r) => checker.dataset(r, 0));
    const named = datasets.flatMap((d) => [d.deliveryId, ...d.deliveryEventList.map((e) => e.deliveryId)]);
    const tasks = new Map(named.flatMap((id) => (id === null ? [] : [[id, checker.tasks(id, {})] as const])));
    importSnapshot(store, org, { datasets, tasks }, { now: NOW });
  };
  if (given.kept.length > 0) seed(ORG, given.kept);
  // Another org with every delivery: a delivery is one org's, per org.
  if (given.otherOrg)
    seed('other', [{ datasetId: 'a', deliveryEventList: DELIVERIES.map((id) => ({ deliveryId: id })) }]);
  return store;
}

async function* chunks(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

const refusal = (error: unknown): string => {
  expect(error).toBeInstanceOf(SnapshotError);
  return (error as Error).message;
};

describe('the checks across records, over what the import writes', () => {
  it('refuse with the first problem in file order, as the checks kept in memory did', async () => {
    await fc.assert(
      fc.asyncProperty(file, fc.integer({ min: 1, max: 400 }), async (given, size) => {
        const store = await storeFor(given);
        const got = await importSnapshotFile(store, ORG, chunks(text(given), size), {
          now: NOW,
          deliveriesPerDataset: given.retention,
        }).then(
          () => null,
          (error: unknown) => refusal(error),
        );
        expect(got).toBe(expected(given));
      }),
      { numRuns: 300 },
    );
  });

  it('the same from records already parsed (importSnapshot)', async () => {
    await fc.assert(
      fc.asyncProperty(file, async (given) => {
        // Parsed: one record per key, and no bad record (parsing refuses those).
        fc.pre(given.datasets.every((r) => r.latestDeliveryStatus !== 'NOT OK'));
        const keys = [...new Set(given.tasks.map(([key]) => key))];
        const plain: File = {
          ...given,
          order: ['datasets', 'tasks', 'timeline'],
          tasks: keys.map((key) => [key, {}]),
          timeline: [],
        };
        const checker = new SnapshotChecker();
        const store = await storeFor(plain);
        let got: string | null = null;
        try {
          importSnapshot(
            store,
            ORG,
            {
              datasets: plain.datasets.map((r, i) => checker.dataset(r, i)),
              tasks: new Map(keys.map((key) => [key, checker.tasks(key, {})])),
            },
            { now: NOW, deliveriesPerDataset: given.retention },
          );
        } catch (error) {
          got = refusal(error);
        }
        expect(got).toBe(expected(plain));
      }),
      { numRuns: 200 },
    );
  });
});
