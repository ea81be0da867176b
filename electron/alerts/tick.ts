/**
 * How often held failures, reminders, contact, digests and the tray's "synced N min ago" are looked at
 * again. Ticks fall on this grid since the epoch, so a replay of the rules (replay.ts) ticks when the
 * live alerts did.
 */
export const TICK_MS = 30_000;
