/** Tasks records' stored form, packed on the spot or on the packer's worker thread: the same bytes. */
import { afterEach, describe, expect, it } from 'vitest';
import { TasksPacker, packTasks, unpackTasks } from '../../../../electron/store/schema/tasksBlob';
import { fixtureTasks } from '../../../helpers/fixtures';

const packers: TasksPacker<string>[] = [];
afterEach(async () => {
  for (const packer of packers.splice(0)) await packer.close();
});

describe('the stored form of a tasks record', () => {
  it('orders tasks by scheduledAt (unknown last), then taskId', () => {
    const record = fixtureTasks('d1', 'ds-1');
    record.ingest.tasks[1]!.scheduledAt = null;
    const stored = unpackTasks(packTasks(record));
    expect(stored.ingest.tasks.map((task) => task.taskId)).toEqual(['t-2', 't-1']);
    record.ingest.tasks[1]!.scheduledAt = record.ingest.tasks[0]!.scheduledAt;
    expect(unpackTasks(packTasks(record)).ingest.tasks.map((task) => task.taskId)).toEqual(['t-1', 't-2']);
  });

  it('the packer packs thousands of records, across batches, to the bytes packTasks makes', async () => {
    const packer = new TasksPacker<string>();
    packers.push(packer);
    const records = Array.from({ length: 3_000 }, (_, i) => {
      const record = fixtureTasks(`d${i}`, `ds-${i}`);
      // Sizes that vary, and text beyond ASCII (UTF-8 of several bytes per character).
      record.normalize.tasks[0]!.message = `${'é🙂'.repeat(i % 50)} ${i}`;
      return record;
    });
    const packed = new Map<string, Uint8Array>();
    records.forEach((record, i) => {
      packer.add(`d${i}`, record);
      for (const [key, blob] of packer.take()) packed.set(key, blob);
    });
    await packer.drain();
    for (const [key, blob] of packer.take()) packed.set(key, blob);
    expect(packed.size).toBe(records.length);
    records.forEach((record, i) => {
      expect(Buffer.from(packed.get(`d${i}`)!)).toEqual(Buffer.from(packTasks(record)));
    });
  });

  it('drain with nothing added, and close, end at once', async () => {
    const packer = new TasksPacker<string>();
    await packer.drain();
    expect(packer.take()).toEqual([]);
    await packer.close();
  });
});
