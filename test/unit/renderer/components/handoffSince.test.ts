/**
 * The Handoff view's since as the URL keeps it (renderer/src/components/handoff/since.ts): the grammar
 * the CLI and the API read, the default left out of the URL, a choice's words, a picked time to the
 * second in UTC, and every link it cannot use said with the forms allowed.
 */
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SINCE,
  durationWords,
  sinceFromQuery,
  sinceOfPicked,
  sinceToQuery,
} from '../../../../renderer/src/components/handoff/since';

const NOW = new Date('2026-11-26T14:00:00.000Z');

describe('since in the URL', () => {
  it.each([
    [undefined, '8h'],
    ['', '8h'],
    ['4h', '4h'],
    ['24h', '24h'],
    ['90m', '90m'],
    ['2d', '2d'],
    ['2026-11-26T06:00:00Z', '2026-11-26T06:00:00Z'],
    ['2026-11-26T08:00:00+02:00', '2026-11-26T08:00:00+02:00'],
  ])('%s is asked as %s', (value, since) => {
    expect(sinceFromQuery(value, NOW)).toEqual({ since, problem: null });
  });

  it.each([
    ['soon', "'soon' is not a duration back from now"],
    ['0h', "'0h' is an empty window"],
    ['2026-11-26T15:00:00Z', 'is in the future'],
    ['2026-11-26', "'2026-11-26' is not a duration back from now"],
    [['4h', '8h'], 'gives since more than once'],
  ])('%s is said not to be understood, and the last 8 h are shown', (value, why) => {
    const { since, problem } = sinceFromQuery(value, NOW);
    expect(since).toBe(DEFAULT_SINCE);
    expect(problem).toContain(why);
    expect(problem).toContain('90m, 8h, 2d');
    expect(problem).toContain('Showing the last 8 hours.');
  });

  it('leaves the default out of the URL and keeps any other choice as it is', () => {
    expect(sinceToQuery('8h')).toBeUndefined();
    expect(sinceToQuery('12h')).toBe('12h');
    expect(sinceToQuery('2026-11-26T06:00:00Z')).toBe('2026-11-26T06:00:00Z');
  });

  it('words a duration and knows a fixed time has none', () => {
    expect(durationWords('4h')).toBe('Last 4 h');
    expect(durationWords('90m')).toBe('Last 90 min');
    expect(durationWords('1d')).toBe('Last 1 day');
    expect(durationWords('2d')).toBe('Last 2 days');
    expect(durationWords('2026-11-26T06:00:00Z')).toBeNull();
  });

  it('writes a picked time in UTC, to the second', () => {
    expect(sinceOfPicked(Date.parse('2026-11-26T06:00:30.750Z'))).toBe('2026-11-26T06:00:30Z');
  });
});
