/**
 * The team's clock (electron/team/clock.ts): readings that sort as text, never go back, come after
 * everything seen, and are not dragged ahead by a computer whose clock is far off.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HybridClock, MAX_AHEAD_MS, formatReading, parseReading } from '../../../electron/team/clock';

const T = Date.parse('2026-11-29T12:00:00.000Z');

describe('the hybrid clock', () => {
  it('reads the wall clock, and counts within one millisecond', () => {
    let now = T;
    const clock = new HybridClock(() => now);
    expect(clock.next()).toBe('2026-11-29T12:00:00.000Z#0000');
    expect(clock.next()).toBe('2026-11-29T12:00:00.000Z#0001');
    now += 5;
    expect(clock.next()).toBe('2026-11-29T12:00:00.005Z#0000');
  });

  it('never goes back when the wall clock does, and starts after its last reading kept', () => {
    let now = T;
    const clock = new HybridClock(() => now, '2026-11-29T12:00:10.000Z#0007');
    expect(clock.next()).toBe('2026-11-29T12:00:10.000Z#0008');
    now -= 60_000;
    expect(clock.next()).toBe('2026-11-29T12:00:10.000Z#0009');
  });

  it("reads later than a colleague's reading it has seen, though its own wall clock is behind", () => {
    const clock = new HybridClock(() => T);
    clock.observe('2026-11-29T12:00:03.000Z#0002');
    expect(clock.next()).toBe('2026-11-29T12:00:03.000Z#0003');
  });

  it('orders by, but does not follow, a reading from over an hour ahead (a clock set wrong)', () => {
    const clock = new HybridClock(() => T);
    clock.observe(formatReading({ wall: T + MAX_AHEAD_MS + 1, counter: 0 }));
    expect(clock.next()).toBe('2026-11-29T12:00:00.000Z#0000');
    clock.observe('not a reading');
    expect(clock.latest).toBe('2026-11-29T12:00:00.000Z#0000');
  });

  it('moves a millisecond ahead after ten thousand readings in one', () => {
    const clock = new HybridClock(() => T, '2026-11-29T12:00:00.000Z#9999');
    expect(clock.next()).toBe('2026-11-29T12:00:00.001Z#0000');
  });

  it('parses what it formats, and nothing else', () => {
    expect(parseReading('2026-11-29T12:00:00.123Z#0042')).toEqual({ wall: T + 123, counter: 42 });
    for (const bad of [
      '2026-11-29T12:00:00Z#0001',
      '2026-02-30T12:00:00.000Z#0001',
      '2026-11-29T12:00:00.000Z#1',
    ])
      expect(parseReading(bad)).toBeNull();
  });

  it('makes readings that sort as text in the order they were made, whatever the wall clock and what it saw', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({ step: fc.integer({ min: -5_000, max: 5_000 }) }),
            fc.record({
              seen: fc.integer({ min: -10_000, max: 10_000 }),
              counter: fc.integer({ min: 0, max: 9999 }),
            }),
          ),
          { maxLength: 60 },
        ),
        (events) => {
          let now = T;
          const clock = new HybridClock(() => now);
          const made: string[] = [];
          let latestSeen = '';
          for (const event of events) {
            if ('step' in event) {
              now += event.step;
              made.push(clock.next());
              // After a colleague's reading, the next one is later than it.
              expect(made.at(-1)! > latestSeen).toBe(true);
            } else {
              const seen = formatReading({ wall: T + event.seen, counter: event.counter });
              clock.observe(seen);
              if (seen > latestSeen) latestSeen = seen;
            }
          }
          expect([...made].sort()).toEqual(made);
          expect(new Set(made).size).toBe(made.length);
        },
      ),
    );
  });
});
