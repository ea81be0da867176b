/**
 * Reads of a file that never came back (an import from a hung network or FUSE mount): the command gives
 * up on them, but libuv cannot cancel a read, and one in flight keeps a process alive. The CLI, once
 * it has said why it stopped, exits rather than wait on one (cli/main.ts); `serve` and the app carry on
 * with one thread of the pool taken.
 */
let hung = 0;

export function noteHungRead(): void {
  hung++;
}

/** How many reads this process gave up on. */
export function hungReads(): number {
  return hung;
}
