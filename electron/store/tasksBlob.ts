/** Stored form of a tasks record: deflated JSON (fast level; records are read one at a time). */
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import type { TasksRecord } from '../../shared/schemas';

export function packTasks(tasks: TasksRecord): Uint8Array {
  return deflateRawSync(JSON.stringify(tasks), { level: constants.Z_BEST_SPEED });
}

export function unpackTasks(blob: Uint8Array): TasksRecord {
  return JSON.parse(inflateRawSync(blob).toString('utf8')) as TasksRecord;
}
