/**
 * The database file on disk (store/durability/pageFile.ts): it reads back exactly what a file in memory
 * would (written pages, the base image's pages, zeros past what was cut), whatever the order of writes,
 * cuts and checkpoints, and a checkpoint's image takes over the pages written before it.
 */
import { closeSync, ftruncateSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  type BaseImage,
  MAX_MEMORY_BYTES,
  MEMORY_BYTES,
  PageFile,
  memoryBytesFor,
} from '../../../../electron/store/durability/pageFile';

const PAGE = 512;
let root: string;
const opened: PageFile[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dh-pagefile-'));
});

afterEach(() => {
  for (const file of opened.splice(0)) file.close();
  rmSync(root, { recursive: true, force: true });
});

let images = 0;
/** An image file holding `bytes`, opened as a base. */
function image(bytes: Uint8Array): BaseImage {
  const path = join(root, `image-${images++}`);
  const fd = openSync(path, 'w');
  writeSync(fd, bytes);
  closeSync(fd);
  return PageFile.openBase(path);
}

/** A page file; `memoryPages`: how many of its pages memory holds before the scratch file (none by default here). */
function pageFile(base: BaseImage | null = null, memoryPages = 0): PageFile {
  const file = PageFile.create(root, PAGE, base, memoryPages * PAGE);
  opened.push(file);
  return file;
}

function contents(file: PageFile): Uint8Array {
  const bytes = new Uint8Array(file.size);
  expect(file.read(bytes, 0, file.size, 0)).toBe(file.size);
  return bytes;
}

const filled = (length: number, value: number): Uint8Array => new Uint8Array(length).fill(value);

it('reads the base where nothing was written, the written bytes elsewhere, and nothing past the end', () => {
  const base = new Uint8Array(4 * PAGE).map((_, i) => i % 251);
  const file = pageFile(image(base));
  file.write(filled(PAGE, 7), 0, PAGE, 2 * PAGE);
  const expected = base.slice();
  expected.set(filled(PAGE, 7), 2 * PAGE);
  expect(contents(file)).toEqual(expected);
  // A read across the end stops there; a read past it reads nothing.
  const tail = new Uint8Array(2 * PAGE);
  expect(file.read(tail, 0, 2 * PAGE, 3 * PAGE)).toBe(PAGE);
  expect(file.read(tail, 0, PAGE, 4 * PAGE)).toBe(0);
});

it('a page written in part keeps the rest of its bytes; a cut page reads as zeros when the file grows again', () => {
  const file = pageFile(image(filled(3 * PAGE, 1)));
  file.write(filled(10, 9), 0, 10, PAGE + 5);
  const bytes = contents(file);
  expect([...bytes.subarray(PAGE, PAGE + 16)]).toEqual([1, 1, 1, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 1]);

  file.truncate(PAGE + 100);
  file.write(filled(PAGE, 4), 0, PAGE, 4 * PAGE);
  const grown = contents(file);
  expect(grown.length).toBe(5 * PAGE);
  expect(grown.subarray(PAGE + 100, 4 * PAGE).every((b) => b === 0)).toBe(true);
  expect(grown.subarray(4 * PAGE).every((b) => b === 4)).toBe(true);
});

it('after a checkpoint, its image holds the pages written before it and only later pages keep a place', () => {
  const file = pageFile(null);
  for (let page = 0; page < 8; page++) file.write(filled(PAGE, page + 1), 0, PAGE, page * PAGE);
  expect(file.scratchPages).toBe(8);
  const mark = file.markSnapshot();
  const snapshot = contents(file);
  // Written after the checkpoint's moment: newer than its image.
  file.write(filled(PAGE, 42), 0, PAGE, 3 * PAGE);
  file.rebase(image(snapshot), mark);
  expect(file.scratchPages).toBe(1);
  const expected = snapshot.slice();
  expected.set(filled(PAGE, 42), 3 * PAGE);
  expect(contents(file)).toEqual(expected);

  const next = file.markSnapshot();
  file.rebase(image(contents(file)), next);
  expect(file.scratchPages).toBe(0);
  expect(contents(file)).toEqual(expected);
});

it('holds the first pages written since a checkpoint in memory, later ones in the scratch file', () => {
  const file = pageFile(null, 4);
  for (let page = 0; page < 6; page++) file.write(filled(PAGE, page + 1), 0, PAGE, page * PAGE);
  expect([file.memoryPages, file.scratchPages]).toEqual([4, 2]);
  // Written again: each page stays where it is.
  file.write(filled(PAGE, 9), 0, PAGE, 0);
  file.write(filled(PAGE, 9), 0, PAGE, 5 * PAGE);
  expect([file.memoryPages, file.scratchPages]).toEqual([4, 2]);
  const expected = contents(file);
  expect(Array.from(expected.subarray(0, PAGE)).every((b) => b === 9)).toBe(true);
  // A checkpoint frees both; the next writes (a poll's) are held in memory again.
  const mark = file.markSnapshot();
  file.rebase(image(contents(file)), mark);
  expect([file.memoryPages, file.scratchPages]).toEqual([0, 0]);
  expect(contents(file)).toEqual(expected);
  file.write(filled(PAGE, 3), 0, PAGE, 2 * PAGE);
  file.write(filled(PAGE, 4), 0, 10, 7 * PAGE);
  expect([file.memoryPages, file.scratchPages]).toEqual([2, 0]);
  expected.set(filled(PAGE, 3), 2 * PAGE);
  // The file grows to the end of that write; the page between reads as zeros.
  const grown = new Uint8Array(7 * PAGE + 10);
  grown.set(expected);
  grown.set(filled(10, 4), 7 * PAGE);
  expect(contents(file)).toEqual(grown);
});

it('the scratch file leaves no name behind in the folder', () => {
  const file = pageFile(null);
  file.write(filled(PAGE, 1), 0, PAGE, 0);
  if (process.platform !== 'win32') expect(readdirSync(root)).toEqual([]);
  file.close();
  opened.length = 0;
  expect(readdirSync(root)).toEqual([]);
});

it('any sequence of writes, cuts and checkpoints reads back as the same file kept in memory', () => {
  const step = fc.oneof(
    fc.record({
      kind: fc.constant('write' as const),
      at: fc.integer({ min: 0, max: 12 * PAGE }),
      length: fc.integer({ min: 1, max: 3 * PAGE }),
      value: fc.integer({ min: 1, max: 255 }),
    }),
    fc.record({ kind: fc.constant('truncate' as const), size: fc.integer({ min: 0, max: 12 * PAGE }) }),
    fc.record({ kind: fc.constant('checkpoint' as const), writesBetween: fc.integer({ min: 0, max: 2 }) }),
  );
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 6 * PAGE }),
      fc.array(step, { maxLength: 25 }),
      // Pages memory holds before the scratch file: none, a few (both hold some), all.
      fc.constantFrom(0, 3, 64),
      (start, steps, memoryPages) => {
        const file = pageFile(start.length > 0 ? image(start) : null, memoryPages);
        let model = Uint8Array.from(start);
        const write = (at: number, length: number, value: number): void => {
          file.write(filled(length, value), 0, length, at);
          if (at + length > model.length) {
            const grown = new Uint8Array(at + length);
            grown.set(model);
            model = grown;
          }
          model.fill(value, at, at + length);
        };
        for (const s of steps) {
          if (s.kind === 'write') write(s.at, s.length, s.value);
          else if (s.kind === 'truncate') {
            file.truncate(s.size);
            const cut = new Uint8Array(s.size);
            cut.set(model.subarray(0, Math.min(s.size, model.length)));
            model = cut;
          } else {
            // A checkpoint writes the file as of its mark while writes go on, then reads from that image.
            const mark = file.markSnapshot();
            const snapshot = contents(file);
            for (let i = 0; i < s.writesBetween; i++) write(i * PAGE, PAGE, 200 + i);
            file.rebase(image(snapshot), mark);
          }
          expect(contents(file)).toEqual(model);
        }
      },
    ),
    { numRuns: 300 },
  );
});

it('keeps an eighth of its image in memory by default (32–128 MiB), and takes a new image’s measure at a checkpoint', () => {
  expect(memoryBytesFor(0)).toBe(MEMORY_BYTES);
  expect(memoryBytesFor(712 * 2 ** 20)).toBe(89 * 2 ** 20);
  expect(memoryBytesFor(4 * 2 ** 30)).toBe(MAX_MEMORY_BYTES);
  // Images of 10 MiB and 800 MiB (sparse: no disk taken), pages of 64 KiB: 512 of them are 32 MiB,
  // 1600 are 100 MiB.
  const big = 64 * 1024;
  const sparse = (bytes: number): BaseImage => {
    const path = join(root, `sparse-${images++}`);
    const fd = openSync(path, 'w');
    ftruncateSync(fd, bytes);
    closeSync(fd);
    return PageFile.openBase(path);
  };
  const page = filled(big, 9);
  const writeAll = (file: PageFile, pages: number): void => {
    for (let n = 0; n < pages; n++) file.write(page, 0, big, n * big);
  };
  const small = PageFile.create(root, big, sparse(10 * 2 ** 20));
  opened.push(small);
  writeAll(small, 600);
  expect([small.memoryPages, small.scratchPages]).toEqual([512, 88]);
  const large = PageFile.create(root, big, sparse(800 * 2 ** 20));
  opened.push(large);
  writeAll(large, 600);
  expect([large.memoryPages, large.scratchPages]).toEqual([600, 0]);
  // A checkpoint's image of 800 MiB: the small one's next pages go to memory too.
  small.rebase(sparse(800 * 2 ** 20), small.markSnapshot());
  writeAll(small, 600);
  expect([small.memoryPages, small.scratchPages]).toEqual([600, 0]);
});
