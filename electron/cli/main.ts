/** Entry of the headless CLI (`bin/dataset-health.js`, `npm run cli`). Plain Node: never imports electron. */
import { exitIfReadsHung } from '../control/hungReads';
import { processIo } from './io';
import { runCli } from './program';

process.exitCode = await runCli(process.argv.slice(2), processIo());
// An import that gave up on a hung read (control/hungReads.ts) would otherwise never end.
exitIfReadsHung();
