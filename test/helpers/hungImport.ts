/**
 * An import whose read really hangs in libuv's pool, in a child process: the file handle reads a fifo
 * opened read-write (so opening does not wait, and a read waits for ever for a writer that never
 * writes), and the stall limit is 200 ms. It then ends as the CLI does (cli/main.ts). Arguments: the
 * data directory, a regular file (what the handle says it is) and the fifo. Linux: a fifo opened
 * read-write is POSIX-undefined.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { failureOf } from '../../electron/control/command';
import { NODE_IMPORT_DEPS, importCommand } from '../../electron/control/commands/snapshot';
import { exitIfReadsHung } from '../../electron/control/hungReads';
import { Store } from '../../electron/store/database';
import { DEFAULT_SETTINGS } from '../../shared/settings';

const [dataDir, file, fifo] = process.argv.slice(2) as [string, string, string];
const store = await Store.open({ dataDir });
let code = 0;
try {
  const run = importCommand({
    ...NODE_IMPORT_DEPS,
    stallMs: 200,
    open: async () => {
      const [real, never] = [await open(file, 'r'), await open(fifo, constants.O_RDWR)];
      return {
        stat: () => real.stat(),
        read: (...a) => never.read(...a),
        close: async () => {
          await real.close();
          await never.close();
        },
      };
    },
  }).run;
  await run(
    { store, dataDir, now: () => new Date(), settings: async () => DEFAULT_SETTINGS },
    { org: 'acme', file: 'hung.json', path: file, retention: 30 },
    { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
  );
} catch (error) {
  process.stderr.write(`dataset-health: ${failureOf(error).message}\n`);
  code = 1;
} finally {
  await store.close();
}
process.exitCode = code;
exitIfReadsHung();
