/**
 * Reads of a file that never came back (an import from a hung network or FUSE mount): the command gives
 * up on them, but libuv cannot cancel a read, and one in flight keeps a process alive. The CLI, once
 * it has said why it stopped, exits rather than wait on one (cli/main.ts); `serve` and the app carry on
 * with one thread of libuv's pool taken.
 */
let hung = 0;

export function noteHungRead(): void {
  hung++;
}

/** How many reads this process gave up on. */
export function hungReads(): number {
  return hung;
}

/**
 * The CLI's last step: with a read given up on, the process would never end, and `process.exit` would
 * not end it either (it waits for every thread of libuv's pool, the stuck one too). So once what it
 * printed is out, it kills itself: the status is that of SIGKILL (137 in a shell), which also ends a
 * thread stuck in a network or FUSE read. Without such a read it ends as usual.
 */
export function exitIfReadsHung(): void {
  if (hung === 0) return;
  process.stdout.write('', () => process.stderr.write('', () => process.kill(process.pid, 'SIGKILL')));
}
