/** How many deliveries a dataset keeps by default (`import --retention`): imports nothing, for the CLI's help. */
export const DEFAULT_DELIVERIES_PER_DATASET = 100;
