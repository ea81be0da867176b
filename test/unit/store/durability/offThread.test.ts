import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OffThread } from '../../../../electron/store/durability/offThread';

let root: string;
let worker: OffThread | null;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'dh-offthread-'));
  worker = OffThread.start();
});

afterEach(async () => {
  await worker?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the worker that opening hands its heavy work to', () => {
  it('sums an open file as zlib does here, and says when the file is shorter than asked', async () => {
    const bytes = Buffer.alloc(20 * 1024 * 1024 + 17, 'dataset health ');
    const file = join(root, 'image');
    writeFileSync(file, bytes);
    const fd = openSync(file, 'r');
    try {
      expect(await worker!.sum(fd, bytes.length)).toBe(crc32(bytes));
      expect(await worker!.sum(fd, 100)).toBe(crc32(bytes.subarray(0, 100)));
      expect(await worker!.sum(fd, bytes.length + 1)).toBeNull();
    } finally {
      closeSync(fd);
    }
  });

  it('inflates each span to its size, after a gap left for the caller; a span that is not deflate data, or inflates to another size, is marked', async () => {
    const texts = ['first record', 'second, a little longer record', 'third'].map((t) =>
      Buffer.from(t.repeat(50)),
    );
    const parts = [
      deflateRawSync(texts[0]!),
      Buffer.from('not deflate data'),
      deflateRawSync(texts[1]!),
      deflateRawSync(texts[2]!),
    ];
    const sizes = [texts[0]!.length, 10, texts[1]!.length, texts[2]!.length - 1];
    const input = Buffer.allocUnsafeSlow(parts.reduce((sum, part) => sum + part.length, 0));
    const spans: number[] = [];
    let at = 0;
    parts.forEach((part, i) => {
      part.copy(input, at);
      spans.push(at, at + part.length, sizes[i]!);
      at += part.length;
    });

    const { output, inflated } = await worker!.inflate(input, spans, 12);
    expect([...inflated]).toEqual([1, 0, 1, 0]);
    expect(output.length).toBe(sizes.reduce((sum, size) => sum + 12 + size, 0));
    expect(output.subarray(12, 12 + sizes[0]!).equals(texts[0]!)).toBe(true);
    const third = 12 + sizes[0]! + 12 + sizes[1]! + 12;
    expect(output.subarray(third, third + sizes[2]!).equals(texts[1]!)).toBe(true);
    // The input's memory went to the worker.
    expect(input.length).toBe(0);
  });

  it('refuses a buffer that shares its memory, which could not be handed over whole', async () => {
    const shared = Buffer.from('small buffers share a pool');
    await expect(worker!.inflate(shared, [0, shared.length, 5], 0)).rejects.toThrow(/memory of its own/);
  });

  it('once closed, asks fail at once (opening then does the work itself)', async () => {
    await worker!.close();
    await expect(worker!.sum(0, 1)).rejects.toThrow();
    worker = null;
  });
});
