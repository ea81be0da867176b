/**
 * Sync intervals (DESIGN.md §4): the defaults, and the range `serve --poll-seconds / --crawl-minutes`
 * accepts. (Stored settings arrive with the settings window.)
 */
export const DEFAULT_INTERVALS = { pollSeconds: 60, crawlMinutes: 15 } as const;

export const INTERVAL_LIMITS = {
  pollSeconds: [10, 3600],
  crawlMinutes: [1, 1440],
} as const;
