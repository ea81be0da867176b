import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  FILTER_FIELDS,
  FILTER_OPERATORS,
  FilterError,
  isFilterField,
  likeToMatcher,
  parseFilter,
  printFilter,
  type Filter,
  type FilterField,
  type FilterOperator,
} from '../../../shared/filter';
import { DELIVERY_STATUSES } from '../../../shared/status';

const FIELDS = Object.keys(FILTER_FIELDS) as FilterField[];
const ALLOWED_STATUSES = 'allowed: FAILED, MISSING, DELIVERED_LATE, HEALTHY';

/** A valid value for a field (deliveryStatus needs a real status). */
function sampleValue(field: FilterField): string {
  return field === 'deliveryStatus' ? 'FAILED' : 'x1';
}

function parseError(text: string): FilterError {
  try {
    parseFilter(text);
  } catch (error) {
    expect(error).toBeInstanceOf(FilterError);
    const message = (error as FilterError).message;
    expect(message.startsWith(`filter '`)).toBe(true);
    expect(message).not.toContain('\n');
    return error as FilterError;
  }
  throw new Error(`expected '${text}' to be rejected`);
}

describe('FILTER_FIELDS', () => {
  it('is exactly the table of the spec', () => {
    expect(FILTER_FIELDS).toEqual({
      legacyDatasetId: ['eq', 'neq', 'in'],
      datasetId: ['eq', 'neq', 'in', 'like', 'ilike'],
      datasetName: ['eq', 'neq', 'in', 'like', 'ilike'],
      deliveryStatus: ['eq', 'neq', 'in'],
      dataProduct: ['eq', 'neq', 'in', 'like', 'ilike'],
      supplierId: ['eq', 'neq', 'in', 'like', 'ilike'],
      deliveryId: ['eq', 'neq', 'in'],
    });
  });

  it('isFilterField accepts the fields only (case-sensitive, no inherited names)', () => {
    for (const field of FIELDS) expect(isFilterField(field)).toBe(true);
    for (const name of ['DatasetName', 'datasetname', '', 'toString', '__proto__', 'constructor', 'foo']) {
      expect(isFilterField(name)).toBe(false);
    }
  });
});

describe('parseFilter: field × operator', () => {
  const allowedPairs = FIELDS.flatMap((field) =>
    (FILTER_FIELDS[field] as readonly FilterOperator[]).map((op) => [field, op] as const),
  );
  const disallowedPairs = FIELDS.flatMap((field) =>
    FILTER_OPERATORS.filter((op) => !(FILTER_FIELDS[field] as readonly string[]).includes(op)).map(
      (op) => [field, op] as const,
    ),
  );

  it.each(allowedPairs)('%s.%s parses', (field, op) => {
    const value = sampleValue(field);
    if (op === 'in') {
      expect(parseFilter(`${field}.in.(${value})`)).toEqual({ field, op, values: [value] });
    } else {
      expect(parseFilter(`${field}.${op}.${value}`)).toEqual({ field, op, value });
    }
  });

  it.each(disallowedPairs)('%s.%s is rejected naming the allowed operators', (field, op) => {
    const text = `${field}.${op}.${sampleValue(field)}`;
    expect(parseError(text).message).toBe(
      `filter '${text}': operator '${op}' is not allowed for ${field} (allowed: ${FILTER_FIELDS[field].join(', ')})`,
    );
  });

  it.each(['gt', 'EQ', 'Eq', 'IN', 'Like', '', 'eq ', ' eq'])(
    'unknown or wrong-case operator %j is rejected',
    (op) => {
      const text = `datasetName.${op}.x`;
      expect(parseError(text).message).toBe(
        `filter '${text}': operator '${op}' is not allowed for datasetName (allowed: eq, neq, in, like, ilike)`,
      );
    },
  );

  it('gives the documented message for datasetName.gt.x', () => {
    expect(parseError('datasetName.gt.x').message).toBe(
      "filter 'datasetName.gt.x': operator 'gt' is not allowed for datasetName (allowed: eq, neq, in, like, ilike)",
    );
  });
});

describe('parseFilter: structure', () => {
  it.each(['foo.eq.x', 'DatasetName.eq.x', 'datasetname.eq.x', '.eq.x', 'toString.eq.x', '__proto__.eq.x'])(
    'unknown field in %j names the allowed fields',
    (text) => {
      const field = text.slice(0, text.indexOf('.'));
      expect(parseError(text).message).toBe(
        `filter '${text}': unknown field '${field}' (allowed: legacyDatasetId, datasetId, datasetName, deliveryStatus, dataProduct, supplierId, deliveryId)`,
      );
    },
  );

  it.each(['', 'datasetName', 'datasetName.eq', 'datasetName.', 'foo', '.', 'a.'])(
    'missing parts in %j',
    (text) => {
      expect(parseError(text).message).toBe(`filter '${text}': expected <field>.<operator>.<value>`);
    },
  );

  it.each([
    ['datasetName.eq.a.b.c', 'a.b.c'],
    ['datasetName.eq.', ''],
    ['datasetName.eq...', '..'],
    ['datasetName.neq. spaced value ', ' spaced value '],
    ['datasetName.eq.(a,b)', '(a,b)'],
    ['datasetName.eq."quoted"', '"quoted"'],
    ['datasetName.eq.back\\slash', 'back\\slash'],
    ['datasetName.like.*a.b*', '*a.b*'],
    ['datasetName.ilike.%_\\*', '%_\\*'],
    ['supplierId.like.', ''],
    ['datasetId.eq.ünïcødé 🚀', 'ünïcødé 🚀'],
  ])('%j has value %j', (text, value) => {
    const filter = parseFilter(text);
    expect(filter).toMatchObject({ value });
    expect('values' in filter).toBe(false);
  });

  it('keeps like/ilike patterns as given', () => {
    expect(parseFilter('dataProduct.ilike.**Foo*')).toEqual({
      field: 'dataProduct',
      op: 'ilike',
      value: '**Foo*',
    });
  });
});

describe('parseFilter: in lists', () => {
  it.each<[string, string[]]>([
    ['(a)', ['a']],
    ['(a,b,c)', ['a', 'b', 'c']],
    ['(a.b,c.d)', ['a.b', 'c.d']],
    ['( a , b )', [' a ', ' b ']],
    ['("a,b",c)', ['a,b', 'c']],
    ['("(x)","y)")', ['(x)', 'y)']],
    ['("")', ['']],
    ['("",a)', ['', 'a']],
    ['("say \\"hi\\"")', ['say "hi"']],
    ['("back\\\\slash")', ['back\\slash']],
    ['("\\\\\\"")', ['\\"']],
    ['(a,a)', ['a', 'a']],
    ['(a*,b\\c)', ['a*', 'b\\c']],
    ['("",",",")","(","\\"","\\\\")', ['', ',', ')', '(', '"', '\\']],
  ])('datasetId.in.%s → %j', (list, values) => {
    expect(parseFilter(`datasetId.in.${list}`)).toEqual({ field: 'datasetId', op: 'in', values });
  });

  it.each<[string, string]>([
    ['()', 'the list is empty'],
    ['', "the value of 'in' must be a parenthesised list such as (a,b,c)"],
    ['a,b', "the value of 'in' must be a parenthesised list such as (a,b,c)"],
    ['a,b)', "the value of 'in' must be a parenthesised list such as (a,b,c)"],
    [' (a)', "the value of 'in' must be a parenthesised list such as (a,b,c)"],
    ['(', "the list is missing its closing ')'"],
    ['(a', "the list is missing its closing ')'"],
    ['(a,b', "the list is missing its closing ')'"],
    ['("a"', "the list is missing its closing ')'"],
    ['("a",', "the list is missing its closing ')'"],
    ['("a)', 'item 1 of the list has an unterminated quote'],
    ['(a,"b\\")', 'item 2 of the list has an unterminated quote'],
    ['("a\\', 'item 1 of the list has an unterminated quote'],
    [
      '("a\\n")',
      "item 1 of the list has an invalid escape '\\n' (inside quotes only \\\" and \\\\ are allowed)",
    ],
    ['("a"b)', "item 1 of the list has 'b' after its closing quote (expected ',' or ')')"],
    ['("a" ,b)', "item 1 of the list has ' ' after its closing quote (expected ',' or ')')"],
    ['("a""b")', "item 1 of the list has '\"' after its closing quote (expected ',' or ')')"],
    [
      '(a"b")',
      'item 1 of the list contains \'"\'; quote an item that contains , ( ) or " (write "a,b" with \\" and \\\\ escapes)',
    ],
    [
      '( "a")',
      'item 1 of the list contains \'"\'; quote an item that contains , ( ) or " (write "a,b" with \\" and \\\\ escapes)',
    ],
    [
      '(a,(b))',
      'item 2 of the list contains \'(\'; quote an item that contains , ( ) or " (write "a,b" with \\" and \\\\ escapes)',
    ],
    ['(,)', 'item 1 of the list is empty (write "" for an empty value)'],
    ['(a,)', 'item 2 of the list is empty (write "" for an empty value)'],
    ['(a,,b)', 'item 2 of the list is empty (write "" for an empty value)'],
    ['(a)b', "unexpected text 'b' after the closing ')'"],
    ['(a))', "unexpected text ')' after the closing ')'"],
    ['("a")(b)', "unexpected text '(b)' after the closing ')'"],
  ])('datasetId.in.%s is rejected: %s', (list, reason) => {
    const text = `datasetId.in.${list}`;
    expect(parseError(text).message).toBe(`filter '${text}': ${reason}`);
  });
});

describe('parseFilter: deliveryStatus values', () => {
  it.each(DELIVERY_STATUSES)('accepts %s with eq, neq and in', (status) => {
    expect(parseFilter(`deliveryStatus.eq.${status}`)).toEqual({
      field: 'deliveryStatus',
      op: 'eq',
      value: status,
    });
    expect(parseFilter(`deliveryStatus.neq.${status}`)).toEqual({
      field: 'deliveryStatus',
      op: 'neq',
      value: status,
    });
    expect(parseFilter(`deliveryStatus.in.(${status},"${status}")`)).toEqual({
      field: 'deliveryStatus',
      op: 'in',
      values: [status, status],
    });
  });

  it('gives the documented message for a wrong-case status', () => {
    expect(parseError('deliveryStatus.eq.failed').message).toBe(
      `filter 'deliveryStatus.eq.failed': 'failed' is not a delivery status (${ALLOWED_STATUSES})`,
    );
  });

  it.each([
    ['deliveryStatus.eq.Failed', 'Failed'],
    ['deliveryStatus.neq.HEALTHY ', 'HEALTHY '],
    ['deliveryStatus.eq.', ''],
    ['deliveryStatus.eq.IN_PROGRESS', 'IN_PROGRESS'],
    ['deliveryStatus.neq.FAILD', 'FAILD'],
    ['deliveryStatus.in.(FAILED,missing)', 'missing'],
    ['deliveryStatus.in.("")', ''],
    ['deliveryStatus.in.(HEALTHY, MISSING)', ' MISSING'],
  ])('%j is rejected naming the statuses', (text, bad) => {
    expect(parseError(text).message).toBe(
      `filter '${text}': '${bad}' is not a delivery status (${ALLOWED_STATUSES})`,
    );
  });
});

describe('parseFilter: messages', () => {
  it('keeps messages on one line and escapes control characters', () => {
    const message = parseError('foo\n.eq.x\u2028').message;
    expect(message).toBe(
      "filter 'foo\\n.eq.x\\u2028': unknown field 'foo\\n' (allowed: legacyDatasetId, datasetId, datasetName, deliveryStatus, dataProduct, supplierId, deliveryId)",
    );
  });

  it('cuts very long input in messages', () => {
    const text = `datasetName.gt.${'x'.repeat(10_000)}`;
    const message = parseError(text).message;
    expect(message.length).toBeLessThan(400);
    expect(message).toContain("…': operator 'gt' is not allowed");
  });
});

describe('parseFilter: control characters', () => {
  const CONTROL = ['\u0000', '\u0001', '\t', '\n', '\r', '\u001b', '\u001f', '\u007f'];
  const texts = CONTROL.flatMap((ch) =>
    FIELDS.flatMap((field) =>
      (FILTER_FIELDS[field] as readonly FilterOperator[]).map((op) =>
        op === 'in'
          ? `${field}.in.(${sampleValue(field)},"${ch}")`
          : `${field}.${op}.${sampleValue(field)}${ch}`,
      ),
    ),
  );
  it.each(texts)('%j is refused, whatever the operator', (text) => {
    expect(parseError(text).message).toMatch(
      /: the value contains the control character '\\(u00[01][0-9a-f]|u007f|t|n|r)' at position \d+ \(control characters U\+0000–U\+001F and U\+007F are not allowed\)$/,
    );
  });
  it('other characters beyond ASCII are values like any other', () => {
    expect(parseFilter('datasetName.like.*\u0085\u2028🙂')).toEqual({
      field: 'datasetName',
      op: 'like',
      value: '*\u0085\u2028🙂',
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

/** Characters the grammar treats specially, mixed into arbitrary Unicode text. */
const special = fc.constantFrom(',', '(', ')', '"', '\\', '.', '*', ' ', '');
const text = fc.string({
  unit: fc.oneof(
    { weight: 3, arbitrary: special },
    // Control characters are refused (tested below), so values that round-trip have none.
    {
      weight: 2,
      arbitrary: fc
        .string({ unit: 'binary', maxLength: 1 })
        // eslint-disable-next-line no-control-regex
        .map((ch) => ch.replace(/[\u0000-\u001f\u007f]/g, '~')),
    },
  ),
  maxLength: 12,
});
const status = fc.constantFrom(...DELIVERY_STATUSES);

const filterArb: fc.Arbitrary<Filter> = fc.constantFrom(...FIELDS).chain((field) => {
  const value = field === 'deliveryStatus' ? status : text;
  const ops = FILTER_FIELDS[field] as readonly FilterOperator[];
  return fc.constantFrom(...ops).chain((op): fc.Arbitrary<Filter> => {
    if (op === 'in') {
      return fc.array(value, { minLength: 1, maxLength: 5 }).map((values) => ({ field, op, values }));
    }
    return value.map((v) => ({ field, op, value: v }));
  });
});

describe('parseFilter / printFilter properties', () => {
  it('round-trips: parseFilter(printFilter(f)) deep-equals f', () => {
    fc.assert(
      fc.property(filterArb, (filter) => {
        expect(parseFilter(printFilter(filter))).toStrictEqual(filter);
      }),
      { numRuns: 2000 },
    );
  });

  it('printFilter is canonical: printing a parsed filter again gives the same text', () => {
    fc.assert(
      fc.property(filterArb, (filter) => {
        const printed = printFilter(filter);
        expect(printFilter(parseFilter(printed))).toBe(printed);
      }),
    );
  });

  it('quotes in-items only when needed', () => {
    expect(printFilter({ field: 'datasetId', op: 'in', values: ['a', ' b', 'c.d', 'x*'] })).toBe(
      'datasetId.in.(a, b,c.d,x*)',
    );
    expect(
      printFilter({ field: 'datasetId', op: 'in', values: ['a,b', '(', ')', '', 'say "hi"', 'c\\d'] }),
    ).toBe('datasetId.in.("a,b","(",")","","say \\"hi\\"","c\\\\d")');
    expect(printFilter({ field: 'datasetName', op: 'eq', value: 'a.b' })).toBe('datasetName.eq.a.b');
  });

  const anyInput = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.string({
      unit: fc.constantFrom('.', ',', '(', ')', '"', '\\', 'a', 'e', 'q', 'i', 'n'),
      maxLength: 30,
    }),
    fc
      .tuple(
        fc.constantFrom(...FIELDS, 'foo', ''),
        fc.constantFrom(...FILTER_OPERATORS, 'gt', ''),
        fc.string({ unit: fc.oneof(special, fc.constantFrom('a', 'FAILED', 'HEALTHY')), maxLength: 15 }),
      )
      .map(([field, op, value]) => `${field}.${op}.${value}`),
  );

  it('on any input either returns a filter or throws FilterError', () => {
    fc.assert(
      fc.property(anyInput, (input) => {
        let filter: Filter;
        try {
          filter = parseFilter(input);
        } catch (error) {
          expect(error).toBeInstanceOf(FilterError);
          expect((error as Error).message).not.toMatch(/[\n\r\u2028\u2029]/);
          return;
        }
        // Whatever parses prints back to something that parses to the same filter.
        expect(parseFilter(printFilter(filter))).toStrictEqual(filter);
      }),
      { numRuns: 3000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// likeToMatcher
// ---------------------------------------------------------------------------------------------

/** Reference semantics by regex (fine for short inputs). */
function referenceLike(pattern: string, subject: string, caseInsensitive: boolean): boolean {
  const p = caseInsensitive ? pattern.toLowerCase() : pattern;
  const s = caseInsensitive ? subject.toLowerCase() : subject;
  const source = p
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))
    .join('[\\s\\S]*');
  return new RegExp(`^${source}$`).test(s);
}

describe('likeToMatcher', () => {
  it.each<[string, string, boolean, boolean]>([
    ['abc', 'abc', false, true],
    ['abc', 'abcd', false, false],
    ['abc', 'ABC', false, false],
    ['abc', 'ABC', true, true],
    ['*', '', false, true],
    ['*', 'anything', false, true],
    ['', '', false, true],
    ['', 'a', false, false],
    ['a*', 'a', false, true],
    ['*a', 'ba', false, true],
    ['*a', 'ab', false, false],
    ['a*a', 'a', false, false],
    ['a*a', 'aa', false, true],
    ['a**b', 'ab', false, true],
    ['*b*d*', 'abcde', false, true],
    ['*d*b*', 'abcde', false, false],
    ['%', 'x', false, false],
    ['_', 'x', false, false],
    ['a%b', 'a%b', false, true],
    ['a\\*', 'a\\xyz', false, true],
    ['a.c', 'abc', false, false],
    ['ß*', 'SS', true, false],
    ['STRASSE', 'strasse', true, true],
    ['ΑΣ*', 'ασ', true, false],
    ['\u0130*', 'i\u0307x', true, true],
    ['\u0130', 'I', true, false],
  ])('%j against %j (ci=%s) → %s', (pattern, subject, ci, expected) => {
    expect(likeToMatcher(pattern, ci)(subject)).toBe(expected);
    expect(referenceLike(pattern, subject, ci)).toBe(expected);
  });

  it('agrees with a regex reference on random short inputs', () => {
    const unit = fc.constantFrom('a', 'b', 'A', 'B', '*', '.', 'İ', 'i', 'Σ', 'σ', 'ς', '😀', '\\');
    fc.assert(
      fc.property(
        fc.string({ unit, maxLength: 8 }),
        fc.string({
          unit: fc.constantFrom('a', 'b', 'A', 'B', '.', 'İ', 'i', 'Σ', 'σ', 'ς', '😀', '*'),
          maxLength: 12,
        }),
        fc.boolean(),
        (pattern, subject, ci) => {
          expect(likeToMatcher(pattern, ci)(subject)).toBe(referenceLike(pattern, subject, ci));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('agrees with the reference on arbitrary Unicode', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.oneof(fc.constant('*'), fc.string({ unit: 'binary', maxLength: 1 })),
          maxLength: 6,
        }),
        fc.string({ unit: 'binary', maxLength: 10 }),
        fc.boolean(),
        (pattern, subject, ci) => {
          expect(likeToMatcher(pattern, ci)(subject)).toBe(referenceLike(pattern, subject, ci));
        },
      ),
    );
  });

  it('does not blow up on many wildcards', () => {
    const pattern = '*a'.repeat(60);
    const subject = `${'a'.repeat(20_000)}b`;
    expect(likeToMatcher(pattern, false)(subject)).toBe(false);
    expect(likeToMatcher(pattern, true)(subject)).toBe(false);
    expect(likeToMatcher(`${pattern}*`, false)(subject)).toBe(true);
    expect(likeToMatcher(`${pattern}b`, false)(subject)).toBe(true);
  });
});
