/** The database's files in a data directory: the image, its backup and the journals (docs/storage.md). */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SqlValue } from 'sql.js';
import { loadSqlJs } from '../../electron/store/database';

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

/**
 * Runs `sql` on `health.sqlite` as any SQLite tool reads it: the file's bytes alone, without the
 * journals (docs/storage.md: a clean stop leaves it current). Checks its integrity first.
 */
export async function queryImage(
  dataDir: string,
  sql: string,
  params: SqlValue[] = [],
): Promise<SqlValue[][]> {
  const SQL = await loadSqlJs();
  const image = new SQL.Database(readFileSync(join(dataDir, 'health.sqlite')));
  try {
    const integrity = image.exec('PRAGMA integrity_check')[0]?.values;
    if (JSON.stringify(integrity) !== '[["ok"]]')
      throw new Error(`health.sqlite: ${JSON.stringify(integrity)}`);
    return image.exec(sql, params)[0]?.values ?? [];
  } finally {
    image.close();
  }
}
