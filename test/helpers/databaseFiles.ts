/** The database's files in a data directory: the image, its backup and the journals (DESIGN.md §3). */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const names = (dataDir: string): string[] =>
  readdirSync(dataDir)
    .filter((name) => name.startsWith('health.sqlite'))
    .sort();

/** Each database file's name and SHA-256: equal digests mean nothing on disk changed. */
export function databaseDigests(dataDir: string): Record<string, string> {
  return Object.fromEntries(
    names(dataDir).map((name) => [
      name,
      createHash('sha256')
        .update(readFileSync(join(dataDir, name)))
        .digest('hex'),
    ]),
  );
}

/** Every database file's bytes, one after the other (to search for what must never be stored). */
export function databaseBytes(dataDir: string): Buffer {
  return Buffer.concat(names(dataDir).map((name) => readFileSync(join(dataDir, name))));
}
