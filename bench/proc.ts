/**
 * What Linux says about a process (/proc/<pid>): its memory and the bytes it has written. Elsewhere
 * these read null, and the rows say so rather than estimate.
 */
import { readFileSync } from 'node:fs';

export interface ProcessMemory {
  /** Resident set now and at its peak (VmHWM), in bytes. */
  rss: number;
  peak: number;
}

function procFile(pid: number | 'self', name: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return null;
  }
}

/** A live process's memory; null without /proc. */
export function processMemory(pid: number | 'self'): ProcessMemory | null {
  const status = procFile(pid, 'status');
  if (status === null) return null;
  const kb = (field: string): number =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * Bytes the process has sent towards the disk so far: `write_bytes` (page-cache pages it dirtied, so
 * a pipe or socket does not count) less `cancelled_write_bytes` (dirty pages of files it truncated or
 * removed before they reached the disk). Null without /proc or without I/O accounting in the kernel.
 */
export function processWrites(pid: number | 'self'): number | null {
  const io = procFile(pid, 'io');
  if (io === null) return null;
  const field = (name: string): number | null => {
    const match = new RegExp(`^${name}:\\s+(\\d+)$`, 'm').exec(io);
    return match ? Number(match[1]) : null;
  };
  const written = field('write_bytes');
  if (written === null) return null;
  return written - (field('cancelled_write_bytes') ?? 0);
}

/** Why a /proc figure is missing, for the row's note. */
export const NO_PROC = `/proc/<pid>/io not readable here (${process.platform}); not estimated`;
