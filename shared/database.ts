/**
 * The local database as the window, the tray and `serve` describe it (docs/storage.md, issue 12): still
 * opening (the app shows its window before a large data directory is open), or open; and whether the
 * disk takes its writes. When the disk refuses (full, folder removed), committed changes wait in memory
 * and are written once it accepts them, and everything else keeps working meanwhile.
 */

/** What the disk refuses, as the store reports it. */
export interface WriteProblem {
  /** The store's own account: what was refused, where, and how much waits in memory. */
  message: string;
  /** When the disk first refused (RFC 3339). */
  since: string;
  /** Committed changes waiting in memory, in bytes. */
  pendingBytes: number;
}

export interface DatabaseStatus {
  /** `opening`: the app's window is up while the data directory is read; calls wait for it. */
  state: 'opening' | 'open';
  dataDir: string;
  /** While opening: the bytes to read (the database file and its journals; 0 in a new folder), since when. */
  opening: { bytes: number; since: string } | null;
  /** What the disk refuses now, or null while writes succeed (always null for a database kept in memory). */
  writeProblem: WriteProblem | null;
}

/** "4.0 KB", "1.2 GB": sizes as people read them (decimal units, as file managers show them). */
export function bytesText(bytes: number): string {
  if (bytes < 1000) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
