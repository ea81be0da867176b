/** The demo's defaults that the CLI's options name: a file that imports nothing, for the CLI's help. */

/** The org `demo` fills when none is given. */
export const DEMO_ORG = 'demo';
/** Share of deliveries that fail in generated data. */
export const DEFAULT_FAIL_RATE = 0.06;
/** The port `simulate-remote` listens on when none is given. */
export const DEFAULT_SIMULATOR_PORT = 47900;
