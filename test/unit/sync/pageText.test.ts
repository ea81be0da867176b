/** The item splitter of list pages: it must agree with JSON.parse on every page, and fail where it fails. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PageSplitter, type SplitPage } from '../../../electron/sync/pageText';

/** A whole page pushed at once. */
function splitPage(text: string): SplitPage | null {
  const splitter = new PageSplitter();
  splitter.push(text);
  return splitter.end();
}

/** Strings full of what a naive splitter trips on. */
const tricky = fc.string({
  unit: fc.constantFrom('a', '"', '\\', ',', '[', ']', '{', '}', ':', ' ', 'é', '\n', '😀'),
});
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    tricky,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(tricky, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Parses a page the way the sync does: the envelope, then each item on its own. */
function readPage(text: string): { envelope: unknown; items: unknown[] | null } {
  const split = splitPage(text);
  if (split === null) throw new Error('not split');
  return {
    envelope: JSON.parse(split.envelope),
    items: split.items?.map((item) => JSON.parse(item)) ?? null,
  };
}

describe('splitPage', () => {
  it('gives the same items and envelope as JSON.parse, whatever the values and the member order', () => {
    fc.assert(
      fc.property(
        fc.array(json, { maxLength: 6 }),
        fc.dictionary(
          tricky.filter((k) => k !== 'items'),
          json,
          { maxKeys: 3 },
        ),
        fc.boolean(),
        fc.constantFrom('', ' ', '\n  '),
        (items, others, itemsFirst, space) => {
          const page = itemsFirst ? { items, ...others } : { ...others, items };
          const text = JSON.stringify(page, null, space);
          const { envelope, items: parsed } = readPage(text);
          expect(parsed).toEqual(JSON.parse(text).items);
          expect(envelope).toEqual({ ...JSON.parse(text), items: [] });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('gives the same result however the text is cut into chunks (as it arrives from the network)', () => {
    fc.assert(
      fc.property(
        fc.array(json, { maxLength: 5 }),
        fc.dictionary(
          tricky.filter((k) => k !== 'items'),
          json,
          { maxKeys: 3 },
        ),
        fc.array(fc.nat(), { maxLength: 12 }),
        (items, others, cuts) => {
          const text = JSON.stringify({ ...others, items, kind: 'ops#datasetHealthList' });
          const splitter = new PageSplitter();
          let at = 0;
          for (const cut of [...cuts.map((n) => n % (text.length + 1))].sort((a, b) => a - b)) {
            splitter.push(text.slice(at, cut));
            at = cut;
          }
          splitter.push(text.slice(at));
          expect(splitter.end()).toEqual(splitPage(text));
          expect(splitter.text).toBe(text);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('leaves pages without an items array to JSON.parse', () => {
    expect(splitPage('{"items":{}}')).toEqual({ envelope: '{"items":{}}', items: null });
    expect(splitPage('{"items":"x","kind":"k"}')?.items).toBeNull();
    expect(splitPage('{"items":"x","other":[1]}')?.items).toBeNull();
    expect(splitPage('{"items":7,"other":[1]}')?.items).toBeNull();
    expect(splitPage('{"kind":"k"}')).toBeNull();
    expect(splitPage('<html>oops</html>')).toBeNull();
    expect(splitPage('{"items":[1],"items":[2]}')).toBeNull();
    // A key named items deeper down, or a string value "items", is not the page's items.
    expect(splitPage('{"a":{"items":[1]},"b":"items","items":[2]}')?.items).toEqual(['2']);
  });

  it('keeps invalid JSON invalid: some piece fails to parse', () => {
    for (const text of [
      '{"items":[{"a":1},]}',
      '{"items":[{"a":1} {"b":2}]}',
      '{"items":[{"a":1}],}',
      '{"items":[{"a":]}',
    ]) {
      expect(() => readPage(text)).toThrow();
    }
  });
});
