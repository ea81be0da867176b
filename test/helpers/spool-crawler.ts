/**
 * Child process for test/integration/sync/spool.test.ts: a crawl of the remote at <url> into an
 * in-memory store, every changed record spooled to <dir>, each progress line printed, until it ends or
 * is killed (a kill leaves its spool behind for the next crawl to find).
 *
 *   node --import tsx test/helpers/spool-crawler.ts <url> <key> <dir>
 */
import { Store } from '../../electron/store/database';
import { saveSource } from '../../electron/store/tables/sources';
import { SourceRunner } from '../../electron/sync/runner';

async function main(): Promise<void> {
  const [url, key, dir] = process.argv.slice(2);
  if (!url || !key || !dir) throw new Error('usage: spool-crawler.ts <url> <key> <dir>');
  const store = await Store.open({ dataDir: null });
  const now = () => new Date();
  const source = saveSource(store, { id: 'spool', orgId: 'spool', baseUrl: url }, now());
  const runner = new SourceRunner({
    store,
    source,
    apiKey: key,
    missingKeyHint: '',
    now,
    intervals: { pollMs: 60_000, crawlMs: 900_000 },
    deliveriesPerDataset: 100,
    spool: { dir, memoryBytes: 0 },
    onProgress: (line) => process.stdout.write(`${line}\n`),
  });
  const event = await runner.runCycle('crawl');
  process.stdout.write(`${event.outcome}\n`);
  await runner.stop();
  await store.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
