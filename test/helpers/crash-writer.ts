/**
 * Child process for test/integration/store/durability/crash.test.ts: commits numbered rows to the store in
 * `<dir>` as fast as the event loop allows, until it is killed.
 *
 *   node --import tsx test/helpers/crash-writer.ts <dir> <debounceMs> [checkpointBytes]
 *
 * With `checkpointBytes`, a checkpoint starts each time the journal passes it, so kills land while
 * journal records are appended, while an image is written, and between its rename and the removal of
 * the journals it folded in.
 *
 * stdout, one line each: `ready <epochMs>` once the file holds a few MB of ballast (so every write
 * takes real time), then `committed <n> <epochMs>` right after row n commits. stdout is a pipe, which
 * Node writes synchronously on Linux, so a reported commit really happened before the line.
 */
import { Store } from '../../electron/store/database';

const ROW_PAYLOAD = 'x'.repeat(4_000);
const BALLAST_ROWS = 30;
const BALLAST_BYTES = 100_000;

async function main(): Promise<void> {
  const [dir, debounceText, checkpointText] = process.argv.slice(2);
  const debounceMs = Number(debounceText);
  const checkpointBytes = checkpointText === undefined ? undefined : Number(checkpointText);
  if (!dir || !Number.isFinite(debounceMs) || (checkpointBytes !== undefined && !(checkpointBytes > 0))) {
    throw new Error('usage: crash-writer.ts <dir> <debounceMs> [checkpointBytes]');
  }

  const store = await Store.open({
    dataDir: dir,
    debounceMs,
    ...(checkpointBytes === undefined ? {} : { checkpoint: { checkpointBytes } }),
    log: { warn: (m) => console.error(`warn: ${m}`), error: (m) => console.error(`error: ${m}`) },
  });
  store.transaction(() => {
    store.run('CREATE TABLE crash_log (n INTEGER PRIMARY KEY, payload TEXT NOT NULL)');
    store.run('CREATE TABLE crash_ballast (payload BLOB NOT NULL)');
    for (let i = 0; i < BALLAST_ROWS; i++)
      store.run('INSERT INTO crash_ballast VALUES (randomblob(?))', [BALLAST_BYTES]);
  });
  // The ballast in an image, so a checkpoint copies and writes megabytes: it takes real time.
  await store.persistence?.checkpoint();
  console.log(`ready ${Date.now()}`);

  for (let n = 1; ; n++) {
    store.run('INSERT INTO crash_log (n, payload) VALUES (?, ?)', [n, `${n}:${ROW_PAYLOAD}`]);
    console.log(`committed ${n} ${Date.now()}`);
    // Yield to timers and I/O so the debounced writes run between commits, as in the app.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
