/** Entry of the headless CLI (`bin/dataset-health.js`, `npm run cli`). Plain Node: never imports electron. */
import { hungReads } from '../control/hungReads';
import { processIo } from './io';
import { runCli } from './program';

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
// A read the import gave up on (a hung mount) cannot be cancelled and would keep the process alive for
// ever: once what was printed is out, exit.
if (hungReads() > 0) process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
