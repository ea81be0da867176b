/**
 * Export → import round-trips byte for byte on every snapshot import accepts (README "The CLI", snapshots; the format is
 * docs/decisions.md "Snapshots: the local knowledge"), as a property over random small snapshots
 * (helpers/snapshotFile.ts: every time form import reads, ties, knowledge) and retentions that drop
 * deliveries. Each is imported into a fresh store in a temp data directory, exported, that export
 * imported into another fresh store and exported again: the two exports are the same bytes.
 *
 * Import accepts exactly the generated files whose times all lie in years 0000 to 9999 of UTC (the
 * generator breaks no other rule); the others it refuses for that.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { exportSnapshot } from '../../../electron/query/exportSnapshot';
import { Store } from '../../../electron/store/database';
import { SnapshotError, importSnapshotFile } from '../../../electron/store/snapshot/importSnapshot';
import { snapshotFile, written } from '../../helpers/snapshotFile';

const ORG = 'acme';
const NOW = new Date('2026-11-21T06:00:00.000Z');

/** `use` given a fresh store in a temp data directory, both gone afterwards. */
async function withFreshStore<T>(use: (store: Store) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'dh-roundtrip-'));
  try {
    const store = await Store.open({ dataDir: dir });
    try {
      return await use(store);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function* chunks(text: string, size: number): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

function exported(store: Store): string {
  let text = '';
  exportSnapshot(store, ORG, (chunk) => (text += chunk));
  return text;
}

const RUNS = 50;

it('export → import → export is the same bytes for every snapshot import accepts', async () => {
  let roundTrips = 0;
  await fc.assert(
    fc.asyncProperty(
      snapshotFile,
      fc.constantFrom(1, 2, 3, 100),
      fc.integer({ min: 512, max: 65_536 }),
      async (file, retention, size) => {
        const { text, inRange: accepted } = written(file);
        const options = { now: NOW, deliveriesPerDataset: retention };
        /** The file imported into a fresh store, and that store's export. */
        const roundTrip = (input: string) =>
          withFreshStore(async (store) => {
            await importSnapshotFile(store, ORG, chunks(input, size), options);
            return exported(store);
          });
        const once = await roundTrip(text).catch((error: unknown) => error);
        if (!accepted) {
          expect(once).toBeInstanceOf(SnapshotError);
          expect((once as Error).message).toMatch(
            / in UTC: times must lie between 0000-01-01T00:00:00\.000Z and 9999-12-31T23:59:59\.999Z$/,
          );
          return;
        }
        if (typeof once !== 'string') throw once;
        expect(await roundTrip(once)).toBe(once);
        roundTrips++;
      },
    ),
    { numRuns: RUNS, seed: 15 },
  );
  // Most files are accepted: the property is about what they become, not about refusals.
  expect(roundTrips).toBeGreaterThan(RUNS / 2);
}, 120_000);
