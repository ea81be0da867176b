/** parseSelection's bounds on a request's size (issue 15): each limit holds exactly, and its 400 names it. */
import { describe, expect, it } from 'vitest';
import { InvalidArgument } from '../../../electron/query/errors';
import { SELECTION_LIMITS, parseSelection } from '../../../electron/query/selection';

const parse =
  (filters: string[], search = '') =>
  () =>
    parseSelection({ orgId: 'acme', filters, sort: '', search });
const refusal = (run: () => unknown): InvalidArgument => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidArgument);
    return error as InvalidArgument;
  }
  throw new Error('expected a refusal');
};
/** One filter of exactly `length` characters. */
const filterOf = (length: number) => `datasetName.eq.${'a'.repeat(length - 15)}`;

describe('parseSelection limits', () => {
  it("keeps the bound variables of any accepted request under SQLite 3.54's 32,766", () => {
    // Each in item is one variable; every other filter one; the search six; a page cursor at most four.
    expect(SELECTION_LIMITS.inItems + SELECTION_LIMITS.filters + 6 + 4).toBeLessThan(32_766);
  });

  it.each([
    [
      'filters',
      Array(50).fill('datasetId.eq.x'),
      Array(51).fill('datasetId.eq.x'),
      /^filter: at most 50 filters are allowed \(51 given\)$/,
    ],
    [
      'characters',
      Array(16).fill(filterOf(4096)),
      [...Array(16).fill(filterOf(4096)), 'd'],
      /^filter: the filters may hold at most 65,536 characters in all \(65,537 given\)$/,
    ],
    [
      'in items',
      Array(5).fill(`datasetId.in.(${Array(1000).fill('x').join(',')})`),
      [...Array(5).fill(`datasetId.in.(${Array(1000).fill('x').join(',')})`), 'datasetId.in.(y)'],
      /^filter: the 'in' lists may hold at most 5,000 items in all \(5,001 given\)$/,
    ],
  ] as const)('%s: the limit passes, one more is refused naming it', (_name, atLimit, over, message) => {
    expect(() => parse([...atLimit])()).not.toThrow();
    const error = refusal(parse([...over]));
    expect(error.field).toBe('filter');
    expect(error.message).toMatch(message);
  });

  it.each(['\u0000', 'Close\u0000', '\u007f', 'a\tb'])('search %j is refused naming the field', (search) => {
    const error = refusal(parse([], search));
    expect(error.field).toBe('search');
    expect(error.message).toMatch(/^search: the text contains the control character /);
  });
});
