/**
 * `import --org ORG FILE` and `export --org ORG FILE` (DESIGN.md §7 snapshot format). Paths arrive
 * absolute (the CLI resolves them against its own working directory), so the running instance reads
 * and writes the same files the user named.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import Type from 'typebox';
import { exportSnapshot } from '../../query/exportSnapshot';
import { writeFileAtomicSync } from '../../store/atomicFile';
import { getOrg } from '../../store/orgs';
import { SnapshotError, importSnapshot, parseSnapshot } from '../../store/snapshot';
import { CommandError, command } from '../command';
import { checkOrg } from './org';

export const importData = command({
  args: Type.Object(
    {
      org: Type.String(),
      /** As the user typed it, for messages. */
      file: Type.String(),
      path: Type.String(),
      retention: Type.Integer({ minimum: 1, maximum: 100_000 }),
    },
    { additionalProperties: false },
  ),
  async run({ store, now }, args, out) {
    checkOrg(args.org);
    absolute(args.path);
    let text: string;
    try {
      text = readFileSync(args.path, 'utf8');
    } catch (error) {
      throw new CommandError(`cannot read ${args.file}: ${(error as Error).message}`);
    }
    const refused = (error: unknown): never => {
      if (error instanceof SnapshotError)
        throw new CommandError(`${args.file}: ${error.message} (nothing was imported)`);
      throw error;
    };
    let snapshot;
    try {
      snapshot = parseSnapshot(text);
    } catch (error) {
      refused(error);
    }
    const parsed = snapshot!;
    await store.whenIdle(() => {
      try {
        importSnapshot(store, args.org, parsed, { now: now(), deliveriesPerDataset: args.retention });
      } catch (error) {
        refused(error);
      }
    });
    out.stderr(
      `Imported ${parsed.datasets.length} datasets and the tasks of ${parsed.tasks.size} deliveries into org ${args.org}.\n`,
    );
  },
});

export const exportData = command({
  args: Type.Object(
    {
      org: Type.String(),
      /** Absolute, or `-` for stdout. */
      path: Type.String(),
    },
    { additionalProperties: false },
  ),
  async run({ store }, { org, path }, out) {
    checkOrg(org);
    if (path !== '-') absolute(path);
    await store.whenIdle(() => {
      if (!getOrg(store, org)) throw new CommandError(`no org '${org}' in this data directory`);
      if (path === '-') {
        exportSnapshot(store, org, (text) => out.stdout(text));
        return;
      }
      // Written beside the target and renamed, so an interrupted export never leaves half a file.
      const counts = writeFileAtomicSync(path, (append) => exportSnapshot(store, org, append));
      out.stderr(
        `Exported ${counts.datasets} datasets and the tasks of ${counts.tasks} deliveries to ${path}.\n`,
      );
    });
  },
});

/** The instance's working directory is not the user's: only paths the CLI resolved are taken. */
function absolute(path: string): void {
  if (!isAbsolute(path)) throw new CommandError(`'${path}' is not an absolute path`);
}
