/**
 * A clock for the processes a test starts — `serve` and the CLI as child processes, the window in
 * Chromium — so that data generated at a fixed instant meets a clock at that instant whatever today's
 * date: it reads `at` when it is made and moves on with the wall clock. The child CLI takes it from the
 * environment (`clockedCli.ts`); Chromium's pages from Playwright's clock (`installClock`).
 */
import type { BrowserContext } from 'playwright-core';

export const TEST_CLOCK_ENV = 'DATASET_HEALTH_TEST_CLOCK';

export interface TestClock {
  /** What the clock read when it was made. */
  readonly at: Date;
  /** The wall clock then (epoch ms). */
  readonly wallMs: number;
}

/** A clock reading `at` now, moving with the wall clock from here on. */
export function testClock(at: Date): TestClock {
  return { at, wallMs: Date.now() };
}

/** What the clock reads now. */
export function clockNow(clock: TestClock): Date {
  return new Date(clock.at.getTime() + (Date.now() - clock.wallMs));
}

/** The clock for a child process: `<at>@<wall ms>` (read by `clockedCli.ts`). */
export function clockEnv(clock: TestClock): NodeJS.ProcessEnv {
  return { [TEST_CLOCK_ENV]: `${clock.at.toISOString()}@${clock.wallMs}` };
}

/** Reads `clockEnv`'s value back: the offset from the wall clock to the test's clock, in ms. */
export function clockOffsetMs(value: string): number {
  const match = /^(.+)@(\d+)$/.exec(value);
  const at = match ? Date.parse(match[1]!) : Number.NaN;
  if (!match || Number.isNaN(at))
    throw new Error(`${TEST_CLOCK_ENV}: '${value}' is not <ISO time>@<epoch ms>`);
  return at - Number(match[2]);
}

/** Pages of the context read the test's clock (Date, timers and all, moving in real time). */
export async function installClock(context: BrowserContext, clock: TestClock): Promise<void> {
  await context.clock.install({ time: clockNow(clock) });
}
