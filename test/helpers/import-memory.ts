/**
 * Child process for test/integration/store/importMemory.test.ts: reads a generated snapshot
 * (snapshotStream.ts) and reports the JS heap it took, sampled between chunks and between the
 * import's slices, on stdout as one JSON line.
 *
 *   node --expose-gc --import tsx test/helpers/import-memory.ts import <datasets> <events> <tasksEvery> <messageLength>
 *   node --expose-gc --import tsx test/helpers/import-memory.ts read <datasets>
 *
 * `import`: `importSnapshotFile` into a store in memory (sql.js: the database is not JS heap).
 * `read`: the path of every record without writing it (an org of a million datasets is past what
 * sql.js holds): the splitter, each record's shape and its own rules, and the datasetId-once rule
 * over the import's working table (fileLedger.ts), in one chunked transaction as an import is.
 *
 * `peakHeap`: the largest heapUsed seen; `peakLive`: the largest after a full collection (every 16 MiB
 * read, and twice a second), what the import holds rather than what it has not collected yet.
 */
import { Store } from '../../electron/store/database';
import { SnapshotChecker, repeatedDelivery } from '../../electron/store/snapshot/fileChecks';
import { FileLedger } from '../../electron/store/snapshot/fileLedger';
import { importSnapshotFile } from '../../electron/store/snapshot/importSnapshot';
import { RecordProblem } from '../../electron/store/snapshot/normalize';
import { SnapshotSplitter } from '../../electron/store/snapshot/snapshotText';
import { type SnapshotShape, snapshotChunks } from './snapshotStream';

const MiB = 1024 * 1024;
const LIVE_EVERY_BYTES = 16 * MiB;
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) throw new Error('run with node --expose-gc');

let peakHeap = 0;
let peakLive = 0;
const sample = (): void => {
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
};
const sampleLive = (): void => {
  sample();
  collect();
  peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
};

let bytes = 0;
/** The chunks, sampled as each is asked for (after the import is done with the one before). */
async function* sampled(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  let sinceLive = 0;
  for await (const chunk of chunks) {
    sample();
    if (sinceLive >= LIVE_EVERY_BYTES) {
      sampleLive();
      sinceLive = 0;
    }
    bytes += chunk.length;
    sinceLive += chunk.length;
    yield chunk;
  }
}

/** Every record's own rules and the datasetId-once rule, nothing written but the working table. */
async function read(store: Store, chunks: AsyncIterable<Buffer>): Promise<number> {
  return store.transactionInChunks(async (slice) => {
    const ledger = await slice(() => new FileLedger(store, 'org'));
    const checker = new SnapshotChecker();
    let records = 0;
    const splitter = new SnapshotSplitter((part) => {
      if (part.kind !== 'dataset') throw new Error(`only datasets are generated, not ${part.kind}`);
      const record = checker.dataset(part.value, part.index);
      const repeated = repeatedDelivery(record, part.index);
      if (repeated !== null) throw repeated;
      if (ledger.index(record.datasetId) !== undefined)
        throw new RecordProblem(`$.datasets[${part.index}].datasetId`, 'given twice');
      // No row is written: the record's index stands for it.
      ledger.noteDataset(record, part.index, part.index + 1);
      records++;
    }, ledger);
    for await (const chunk of chunks) await slice(() => splitter.push(chunk));
    await slice(() => splitter.end());
    await slice(() => ledger.drop());
    return records;
  });
}

async function main(): Promise<void> {
  const [mode, ...numbers] = process.argv.slice(2);
  const [datasets, events = 1, tasksEvery = 0, messageLength = 0] = numbers.map(Number);
  if ((mode !== 'import' && mode !== 'read') || !(datasets! > 0))
    throw new Error('usage: import-memory.ts import|read <datasets> [events tasksEvery messageLength]');
  const shape: SnapshotShape = { datasets: datasets!, events, tasksEvery, messageLength };
  const store = await Store.open({ dataDir: null });
  sampleLive();
  const started = performance.now();
  const timer = setInterval(sample, 25);
  const live = setInterval(sampleLive, 500);
  let records: number;
  try {
    const chunks = sampled(snapshotChunks(shape));
    if (mode === 'read') records = await read(store, chunks);
    else records = (await importSnapshotFile(store, 'org', chunks, { now: new Date(LATEST_NOW) })).datasets;
  } finally {
    clearInterval(timer);
    clearInterval(live);
  }
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  const mib = (n: number): number => Math.round((n / MiB) * 10) / 10;
  process.stdout.write(
    `${JSON.stringify({
      mode,
      records,
      bytes,
      peakHeapMiB: mib(peakHeap),
      peakLiveMiB: mib(peakLive),
      maxRssMiB: mib(process.resourceUsage().maxRSS * 1024),
      seconds: Math.round(seconds * 10) / 10,
    })}\n`,
  );
}

/** The import's clock: after the generated deliveries. */
const LATEST_NOW = '2026-11-21T00:00:00.000Z';

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
