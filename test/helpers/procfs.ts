/**
 * What Linux's /proc tells about a child process, for tests that signal it at a chosen moment: whether
 * it has a file open, whether a client is connected to a port. Elsewhere both say false.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** Whether the process has the file open (its /proc/<pid>/fd links). */
export function hasFileOpen(pid: number, file: string): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/**
 * Whether some client's TCP connection to this port on 127.0.0.1 is established (the kernel completes
 * it even while the listening process is stopped: the request then waits in its backlog).
 */
export function connectedTo(port: number): boolean {
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return false;
  }
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  // Columns: sl, local_address, rem_address, st (01: ESTABLISHED), …
  return table
    .split('\n')
    .slice(1)
    .some((line) => {
      const [, , rem, state] = line.trim().split(/\s+/);
      return rem === remote && state === '01';
    });
}
