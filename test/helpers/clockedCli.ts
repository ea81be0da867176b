/**
 * The real CLI (`electron/cli/main.ts`'s program) in a child process on a test's clock
 * (`DATASET_HEALTH_TEST_CLOCK`, see testClock.ts): `now()` reads the test's time and moves with the wall
 * clock. Everything else is the process's own I/O, as `bin/dataset-health.js` runs it.
 */
import { processIo } from '../../electron/cli/io';
import { runCli } from '../../electron/cli/program';
import { TEST_CLOCK_ENV, clockOffsetMs } from './testClock';

const offset = clockOffsetMs(process.env[TEST_CLOCK_ENV] ?? '');
process.exitCode = await runCli(process.argv.slice(2), {
  ...processIo(),
  now: () => new Date(Date.now() + offset),
});
