/** The sync intervals' bounds (Settings, `serve --poll-seconds|--crawl-minutes`): imports nothing, for the CLI's help. */
export const INTERVAL_LIMITS = {
  pollSeconds: [10, 3600],
  crawlMinutes: [1, 1440],
} as const;
