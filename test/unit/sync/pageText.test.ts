/** The item splitter of list pages: it must agree with JSON.parse on every page, and fail where it fails. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PageMemory, PageSplitter, type SplitPage, utf8Text } from '../../../electron/sync/pageText';

/** A split page with its items as text, to compare and read. */
type SplitText = Omit<SplitPage, 'items'> & { items: string[] | null };

const asText = (split: SplitPage | null): SplitText | null =>
  split && { envelope: split.envelope, items: split.items?.map(utf8Text) ?? null };

/** A whole page pushed at once. */
function splitPage(text: string): SplitText | null {
  const splitter = new PageSplitter();
  splitter.push(Buffer.from(text));
  return asText(splitter.end());
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

  it('gives the same result however the bytes are cut into chunks (as they arrive from the network)', () => {
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
          const bytes = Buffer.from(text);
          const splitter = new PageSplitter();
          let at = 0;
          // Anywhere, the middle of a multi-byte character included.
          for (const cut of [...cuts.map((n) => n % (bytes.length + 1))].sort((a, b) => a - b)) {
            splitter.push(bytes.subarray(at, cut));
            at = cut;
          }
          splitter.push(bytes.subarray(at));
          expect(asText(splitter.end())).toEqual(splitPage(text));
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

describe('page memory', () => {
  it('a page in memory an earlier, larger page gave back holds its own bytes only', () => {
    const memory = new PageMemory();
    const first = new PageSplitter(memory.take());
    first.push(Buffer.from(JSON.stringify({ items: [{ a: 'x'.repeat(5000) }, 2, 3], nextPageToken: 't' })));
    expect(first.end()?.items).toHaveLength(3);
    memory.give(first.bytes);

    const second = new PageSplitter(memory.take());
    expect(second.bytes).toBe(first.bytes);
    const text = JSON.stringify({ items: [{ b: 'é' }], nextPageToken: '' });
    second.push(Buffer.from(text));
    expect(asText(second.end())).toEqual({
      envelope: '{"items":[],"nextPageToken":""}',
      items: ['{"b":"é"}'],
    });
    expect(second.text).toBe(text);
  });

  it('memory in use is never handed out twice', () => {
    const memory = new PageMemory();
    const a = memory.take();
    const b = memory.take();
    expect(b).not.toBe(a);
    memory.give(a);
    memory.give(a);
    expect(memory.take()).toBe(a);
    expect(memory.take()).not.toBe(a);
  });
});
