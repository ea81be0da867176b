import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { SORT_FIELDS, SortError, parseSort, printSort, type SortKey } from '../../../shared/sort';

const ALLOWED_FIELDS = '(allowed: latestDeliveryStatus, latestDeliveryTimestamp)';

function sortError(text: string): SortError {
  try {
    parseSort(text);
  } catch (error) {
    expect(error).toBeInstanceOf(SortError);
    expect((error as SortError).message).not.toContain('\n');
    return error as SortError;
  }
  throw new Error(`expected sort '${text}' to be rejected`);
}

describe('parseSort', () => {
  it.each<[string, SortKey[]]>([
    ['', []],
    ['latestDeliveryStatus', [{ field: 'latestDeliveryStatus', direction: 'asc' }]],
    ['latestDeliveryStatus.asc', [{ field: 'latestDeliveryStatus', direction: 'asc' }]],
    ['latestDeliveryStatus.desc', [{ field: 'latestDeliveryStatus', direction: 'desc' }]],
    ['latestDeliveryTimestamp', [{ field: 'latestDeliveryTimestamp', direction: 'asc' }]],
    ['latestDeliveryTimestamp.desc', [{ field: 'latestDeliveryTimestamp', direction: 'desc' }]],
    [
      'latestDeliveryStatus.asc,latestDeliveryTimestamp.desc',
      [
        { field: 'latestDeliveryStatus', direction: 'asc' },
        { field: 'latestDeliveryTimestamp', direction: 'desc' },
      ],
    ],
    [
      'latestDeliveryTimestamp.desc,latestDeliveryStatus',
      [
        { field: 'latestDeliveryTimestamp', direction: 'desc' },
        { field: 'latestDeliveryStatus', direction: 'asc' },
      ],
    ],
  ])('%j → %j', (text, keys) => {
    expect(parseSort(text)).toEqual(keys);
  });

  it.each<[string, string]>([
    ['foo', `unknown field 'foo' ${ALLOWED_FIELDS}`],
    ['foo.asc', `unknown field 'foo' ${ALLOWED_FIELDS}`],
    ['datasetName', `unknown field 'datasetName' ${ALLOWED_FIELDS}`],
    ['LatestDeliveryStatus', `unknown field 'LatestDeliveryStatus' ${ALLOWED_FIELDS}`],
    [' latestDeliveryStatus', `unknown field ' latestDeliveryStatus' ${ALLOWED_FIELDS}`],
    ['.asc', `unknown field '' ${ALLOWED_FIELDS}`],
    [
      'latestDeliveryStatus.ASC',
      "direction 'ASC' is not allowed for latestDeliveryStatus (allowed: asc, desc; omitted means asc)",
    ],
    [
      'latestDeliveryStatus.Desc',
      "direction 'Desc' is not allowed for latestDeliveryStatus (allowed: asc, desc; omitted means asc)",
    ],
    [
      'latestDeliveryStatus.',
      "direction '' is not allowed for latestDeliveryStatus (allowed: asc, desc; omitted means asc)",
    ],
    [
      'latestDeliveryStatus.ascending',
      "direction 'ascending' is not allowed for latestDeliveryStatus (allowed: asc, desc; omitted means asc)",
    ],
    [
      'latestDeliveryStatus.asc.desc',
      "direction 'asc.desc' is not allowed for latestDeliveryStatus (allowed: asc, desc; omitted means asc)",
    ],
    [
      'latestDeliveryStatus.asc ',
      "direction 'asc ' is not allowed for latestDeliveryStatus (allowed: asc, desc; omitted means asc)",
    ],
    [
      'latestDeliveryTimestamp.-',
      "direction '-' is not allowed for latestDeliveryTimestamp (allowed: asc, desc; omitted means asc)",
    ],
    [',', 'sort key 1 is empty (separate keys with single commas, no trailing comma)'],
    [',latestDeliveryStatus', 'sort key 1 is empty (separate keys with single commas, no trailing comma)'],
    ['latestDeliveryStatus,', 'sort key 2 is empty (separate keys with single commas, no trailing comma)'],
    [
      'latestDeliveryStatus,,latestDeliveryTimestamp',
      'sort key 2 is empty (separate keys with single commas, no trailing comma)',
    ],
    ['latestDeliveryStatus,latestDeliveryStatus', 'field latestDeliveryStatus is given more than once'],
    [
      'latestDeliveryStatus.asc,latestDeliveryStatus.desc',
      'field latestDeliveryStatus is given more than once',
    ],
    [
      'latestDeliveryTimestamp,latestDeliveryStatus,latestDeliveryTimestamp.desc',
      'field latestDeliveryTimestamp is given more than once',
    ],
  ])('%j is rejected: %s', (text, reason) => {
    expect(sortError(text).message).toBe(`sort '${text}': ${reason}`);
  });

  it('gives the documented message for an unknown field', () => {
    expect(sortError('foo').message).toBe(
      "sort 'foo': unknown field 'foo' (allowed: latestDeliveryStatus, latestDeliveryTimestamp)",
    );
  });

  it('on any input either returns keys or throws SortError', () => {
    const unit = fc.oneof(
      fc.constantFrom(...SORT_FIELDS, '.asc', '.desc', '.ASC', ',', '.', ''),
      fc.string({ unit: 'binary', maxLength: 1 }),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 6 }), (input) => {
        let keys: SortKey[];
        try {
          keys = parseSort(input);
        } catch (error) {
          expect(error).toBeInstanceOf(SortError);
          return;
        }
        expect(parseSort(printSort(keys))).toEqual(keys);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('printSort', () => {
  it('always writes the direction', () => {
    expect(printSort([])).toBe('');
    expect(
      printSort([
        { field: 'latestDeliveryStatus', direction: 'asc' },
        { field: 'latestDeliveryTimestamp', direction: 'desc' },
      ]),
    ).toBe('latestDeliveryStatus.asc,latestDeliveryTimestamp.desc');
    expect(printSort(parseSort('latestDeliveryTimestamp'))).toBe('latestDeliveryTimestamp.asc');
  });

  it('round-trips any list of distinct keys', () => {
    const keysArb = fc
      .uniqueArray(fc.constantFrom(...SORT_FIELDS), { maxLength: SORT_FIELDS.length })
      .chain((fields) =>
        fc.tuple(
          ...fields.map((field) =>
            fc.constantFrom<SortKey>({ field, direction: 'asc' }, { field, direction: 'desc' }),
          ),
        ),
      );
    fc.assert(
      fc.property(keysArb, (keys) => {
        expect(parseSort(printSort(keys))).toStrictEqual(keys);
      }),
    );
  });
});
