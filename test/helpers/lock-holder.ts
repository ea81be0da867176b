/**
 * Child process for test/unit/store/instance/lock.test.ts: holds a data directory's lock in a process of its own.
 *
 *   node --import tsx test/helpers/lock-holder.ts <dir> <refreshMs>
 *
 * Prints the holder record as one JSON line once the lock is taken, then lives as long as its stdin is
 * open. It never releases the lock: once stdin ends, the process ends only if nothing else (the lock's
 * refresh timer included) keeps it alive.
 */
import { acquireDataDirLock } from '../../electron/store/instance/lock';

const [dir, refreshText] = process.argv.slice(2);
const refreshMs = Number(refreshText);
if (!dir || !(refreshMs > 0)) throw new Error('usage: lock-holder.ts <dir> <refreshMs>');
const lock = acquireDataDirLock(dir, { purpose: 'serve', refreshMs });
process.stdout.write(`${JSON.stringify(lock.holder)}\n`);
process.stdin.resume();
