/**
 * Progress lines of a long export or import (control/commands/progress.ts): none in the first two
 * seconds, then one about every two, each with what is done, MiB, the rate and the time left — on an
 * injected clock, so the lines are the same on any machine.
 */
import { describe, expect, it } from 'vitest';
import {
  FIRST_LINE_MS,
  LINE_EVERY_MS,
  ProgressLine,
  progressText,
} from '../../../electron/control/commands/progress';

const MiB = 1024 * 1024;

function progress(start = 10_000) {
  let now = start;
  const lines: string[] = [];
  const line = new ProgressLine({
    doing: 'Exporting org acme',
    unit: ['record', 'records'],
    now: () => now,
    print: (text) => lines.push(text),
  });
  return { line, lines, at: (ms: number) => (now = start + ms) };
}

describe('progress lines', () => {
  it('none while the work is short, then one per LINE_EVERY_MS however often it is told', () => {
    const { line, lines, at } = progress();
    for (let ms = 0; ms < FIRST_LINE_MS; ms += 100) {
      at(ms);
      line.update(ms, ms * 1000, { units: 100_000 });
    }
    expect(lines).toEqual([]);
    at(FIRST_LINE_MS);
    line.update(20_000, 40 * MiB, { units: 100_000 });
    expect(lines).toEqual([
      'Exporting org acme: 20,000 of 100,000 records, 40.0 MiB, 20.0 MiB/s, about 8 s left\n',
    ]);
    at(FIRST_LINE_MS + LINE_EVERY_MS - 1);
    line.update(30_000, 60 * MiB, { units: 100_000 });
    expect(lines).toHaveLength(1);
    at(FIRST_LINE_MS + LINE_EVERY_MS);
    line.update(40_000, 80 * MiB, { units: 100_000 });
    expect(lines.at(-1)).toBe(
      'Exporting org acme: 40,000 of 100,000 records, 80.0 MiB, 20.0 MiB/s, about 6 s left\n',
    );
  });

  it('the time left from bytes (a file of known size), or not at all without a whole', () => {
    const shape = { doing: 'Importing into org acme', unit: ['record', 'records'] as const };
    expect(progressText(shape, 1, 512 * MiB, { bytes: 2048 * MiB }, 64)).toBe(
      'Importing into org acme: 1 record, 512.0 of 2048.0 MiB, 8.0 MiB/s, about 3 min 12 s left',
    );
    expect(progressText(shape, 5_000, 3 * MiB, undefined, 2)).toBe(
      'Importing into org acme: 5,000 records, 3.0 MiB, 1.5 MiB/s',
    );
    expect(progressText(shape, 10, 100 * MiB, { units: 1_000_000 }, 2)).toBe(
      'Importing into org acme: 10 of 1,000,000 records, 100.0 MiB, 50.0 MiB/s, about 55 h 33 min left',
    );
    // Nothing done yet: no time left to tell.
    expect(progressText(shape, 0, 0, { units: 10 }, 3)).toBe(
      'Importing into org acme: 0 of 10 records, 0.0 MiB, 0.0 MiB/s',
    );
  });
});
