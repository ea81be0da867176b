/** The simulator's clocks: speed, lag that never runs into the future, and a manual clock for tests. */
import { describe, expect, it } from 'vitest';
import { createManualClock, createSimClock } from '../../../../electron/demo/remote/clock';

const T0 = Date.parse('2026-11-21T04:41:00.000Z');
const HOUR = 3_600_000;

/** Real time that the test moves by hand. */
function realTime(start = T0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('createSimClock', () => {
  it('runs at real speed by default, starting at real time', () => {
    const real = realTime();
    const clock = createSimClock({ now: real.now });
    expect(clock.now()).toBe(T0);
    real.advance(1234);
    expect(clock.now()).toBe(T0 + 1234);
  });

  it('with speed > 1 and no lag it runs ahead of real time', () => {
    const real = realTime();
    const clock = createSimClock({ now: real.now, speed: 60 });
    real.advance(60_000);
    expect(clock.now()).toBe(T0 + HOUR);
  });

  it.each([
    // [lagMs, speed, real ms elapsed, expected simulated offset from T0]
    [3 * HOUR, 1, 0, -3 * HOUR],
    [3 * HOUR, 1, HOUR, -2 * HOUR], // at real speed the lag stays
    [3 * HOUR, 91, 60_000, -3 * HOUR + 91 * 60_000], // catching up
    [3 * HOUR, 91, 10 * 60_000, 10 * 60_000], // caught up: pinned to real time
    [3 * HOUR, 91, HOUR, HOUR], // …and keeping pace with it
  ])('lag %d ms at speed %d after %d real ms: offset %d', (lagMs, speed, elapsed, offset) => {
    const real = realTime();
    const clock = createSimClock({ now: real.now, speed, lagMs });
    real.advance(elapsed);
    expect(clock.now()).toBe(T0 + offset);
  });

  it('with a lag it never passes real time', () => {
    const real = realTime();
    const clock = createSimClock({ now: real.now, speed: 1000, lagMs: HOUR });
    for (let i = 0; i < 100; i++) {
      real.advance(777);
      expect(clock.now()).toBeLessThanOrEqual(real.now());
    }
  });

  it('refuses a speed that is not positive and a negative lag', () => {
    const real = realTime();
    expect(() => createSimClock({ now: real.now, speed: 0 })).toThrow(RangeError);
    expect(() => createSimClock({ now: real.now, speed: Number.NaN })).toThrow(RangeError);
    expect(() => createSimClock({ now: real.now, lagMs: -1 })).toThrow(RangeError);
  });
});

describe('createManualClock', () => {
  it('reads, sets and advances', () => {
    const clock = createManualClock(T0);
    expect(clock.now()).toBe(T0);
    clock.advance(HOUR);
    expect(clock.now()).toBe(T0 + HOUR);
    clock.set(T0 - HOUR);
    expect(clock.now()).toBe(T0 - HOUR);
  });
});
