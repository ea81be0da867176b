/**
 * `import --org ORG FILE` and `export --org ORG FILE` (docs/architecture.md#snapshots). Paths arrive
 * absolute (the CLI resolves them against its own working directory), so the running instance reads
 * and writes the same files the user named.
 */
import { isAbsolute } from 'node:path';
import Type from 'typebox';
import { exportSnapshotInSlices } from '../../query/exportSnapshot';
import { ExportFileError, writeExportFile } from '../../store/snapshot/exportFile';
import { getOrg } from '../../store/tables/orgs';
import { SnapshotError, importSnapshotFile } from '../../store/snapshot/importSnapshot';
import type { SnapshotLimits } from '../../store/snapshot/snapshotLimits';
import { CommandError, READ_ONLY, type RunningInstance, command } from '../command';
import { incidentGapMs } from '../../../shared/settings';
import { type ImportHandle, openForImport, openImportFile } from './importFile';
import { IMPORT_STALL_MS, MAX_IMPORT_MIB } from './importLimits';
import { type ProgressClock, reportImportProgress } from './importProgress';
import { checkOrg } from './org';
import { ProgressLine } from './progress';

const MiB = 1024 * 1024;

/** What the import reads with, and when: the file system and Node's timers, or a test's. */
export interface ImportDeps {
  open(path: string): Promise<ImportHandle>;
  stallMs: number;
  /** Calls `fn` once after `ms`; returns its cancel. */
  after(ms: number, fn: () => void): () => void;
  every: ProgressClock['every'];
  /** Milliseconds for progress; by default the command's clock (`now`), which tests pin. */
  clock?: () => number;
  /** What one record may be (store/snapshot/snapshotLimits.ts); tests pass smaller ones. */
  limits?: Partial<SnapshotLimits>;
}

export const NODE_IMPORT_DEPS: ImportDeps = {
  open: openForImport,
  stallMs: IMPORT_STALL_MS,
  after: (ms, fn) => {
    // Run after the poll phase: a read that came back while the event loop was busy is seen as done
    // before the timer that would give up on it.
    const timer = setTimeout(() => setImmediate(fn), ms);
    return () => clearTimeout(timer);
  },
  every: (ms, fn) => {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** `import`, reading with `deps` (tests give a file that stalls, a clock they move). */
export function importCommand(deps: ImportDeps) {
  return command({
    args: Type.Object(
      {
        org: Type.String(),
        /** As the user typed it, for messages. */
        file: Type.String(),
        path: Type.String(),
        retention: Type.Integer({ minimum: 1, maximum: 100_000 }),
        /** `--max-size`: the largest file read, in MiB, when the user sets one (none by default). */
        maxSize: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_IMPORT_MIB })),
      },
      { additionalProperties: false },
    ),
    async run({ store, now, settings }, args, out) {
      checkOrg(args.org);
      absolute(args.path);
      const stop = watchStopSignals();
      try {
        const file = await openImportFile(args.path, args.file, {
          ...(args.maxSize === undefined ? {} : { maxBytes: args.maxSize * MiB, maxMiB: args.maxSize }),
          stallMs: deps.stallMs,
          after: deps.after,
          open: deps.open,
        });
        let records = 0;
        const stopProgress = reportImportProgress(
          args.file,
          () => ({ bytes: file.read(), records, total: file.size }),
          (line) => out.stderr(line),
          { now: deps.clock ?? (() => now().getTime()), every: deps.every },
        );
        let counts;
        try {
          // One transaction, written as the file is read: a signal while it is read and checked (seen
          // between chunks) or a bad record rolls it all back; once the last chunk is read, a signal
          // finds the import done.
          counts = await importSnapshotFile(
            store,
            args.org,
            file.chunks(stop.check),
            {
              now: now(),
              deliveriesPerDataset: args.retention,
              incidentGapMs: incidentGapMs(await settings()),
            },
            { limits: deps.limits, read: (n) => (records = n) },
          );
        } catch (error) {
          if (error instanceof SnapshotError)
            throw new CommandError(`${args.file}: ${error.message} (nothing was imported)`);
          throw error;
        } finally {
          stopProgress();
          await file.close();
        }
        // Saved while a signal is still only noted, so the file on disk is the whole import or the old
        // data (a failed save is logged by the store and retried when it closes).
        await store.flush().catch(() => {});
        // A signal that came during the write is delivered before this resumes.
        await new Promise((resolve) => setImmediate(resolve));
        out.stderr(
          `Imported ${counts.datasets} datasets and the tasks of ${counts.tasks} deliveries into org ${args.org}${knowledgeNote(counts)}.\n`,
        );
        const late = stop.received();
        if (late !== null)
          out.stderr(`${late} arrived while the import was being written; the import is complete.\n`);
      } finally {
        stop.dispose();
      }
    },
    ifOutcomeUnknown: ({ org, file }) =>
      `an import is stored whole or not at all: \`dataset-health export --org ${org} -\` shows which, and importing ${file} again is safe`,
  });
}

export const importData = importCommand(NODE_IMPORT_DEPS);

/**
 * SIGINT/SIGTERM while an import reads or parses: noted, and the import ends before it writes, so the
 * process exits with nothing changed (Node's own handling would wait for a read that never ends).
 */
function watchStopSignals(): { check: () => void; received: () => string | null; dispose: () => void } {
  let received: string | null = null;
  const note = (signal: NodeJS.Signals): void => {
    received = signal;
  };
  process.on('SIGINT', note);
  process.on('SIGTERM', note);
  return {
    check: () => {
      if (received !== null) throw new CommandError(`import stopped by ${received} (nothing was imported)`);
    },
    received: () => received,
    dispose: () => {
      process.off('SIGINT', note);
      process.off('SIGTERM', note);
    },
  };
}

export const exportData = command({
  args: Type.Object(
    {
      org: Type.String(),
      /** Absolute, or `-` for stdout. */
      path: Type.String(),
    },
    { additionalProperties: false },
  ),
  async run({ store, dataDir, now, instance }, { org, path }, out) {
    checkOrg(org);
    if (path !== '-') absolute(path);
    const noOrg = () => new CommandError(`no org '${org}' in this data directory`);
    // Before the target is looked at, as always; asked again once the writers are held.
    if (!(await store.whenReadable(() => getOrg(store, org)))) throw noOrg();
    // In slices, the writers held off (docs/decisions.md "Export in slices"): the instance answers its API
    // and window meanwhile, and a sync's commit waits for the end.
    const progress = new ProgressLine({
      doing: `Exporting org ${org}`,
      unit: ['record', 'records'],
      now: () => now().getTime(),
      print: (line) => out.stderr(line),
    });
    const stop = exportStop(instance, path);
    let bytes = 0;
    const exported = async (write: (text: string) => Promise<void>) => {
      const counts = await exportSnapshotInSlices(store, org, {
        write: async (text) => {
          stop.check();
          await write(text);
        },
        progress: ({ records, total }) => progress.update(records, bytes, { units: total }),
      });
      if (counts === null) throw noOrg();
      return counts;
    };
    try {
      if (path === '-') {
        await exported(async (text) => {
          out.stdout(text);
          bytes += Buffer.byteLength(text);
          // The reader's pace: through the instance, at most a slice waits for the CLI (control/server.ts).
          if (out.drain) await stop.race(out.drain());
        });
        return;
      }
      // Checked here, so alone and in the running instance alike: never into the data directory's own
      // files (docs/decisions.md "The data directory is the engine's alone"). Written beside the target
      // and renamed, so an interrupted export never leaves half a file.
      let counts;
      try {
        counts = await writeExportFile(dataDir, path, (append) =>
          exported(async (text) => {
            const encoded = Buffer.from(text);
            bytes += encoded.length;
            await append(encoded);
          }),
        );
      } catch (error) {
        if (error instanceof ExportFileError) throw new CommandError(error.message);
        throw error;
      }
      out.stderr(
        `Exported ${counts.datasets} datasets and the tasks of ${counts.tasks} deliveries to ${path}${knowledgeNote(counts)}.\n`,
      );
    } finally {
      stop.dispose();
    }
  },
  ifOutcomeUnknown: ({ path }) =>
    path === '-' ? READ_ONLY : 'the file is replaced whole or not at all: exporting again is safe',
});

/**
 * What ends an export before its last slice: in the instance, the instance stopping (it waits for its
 * commands); alone, SIGINT/SIGTERM while writing a file, so the temp file is removed (`export -` alone
 * keeps Node's own handling: the reader sees the output end).
 */
function exportStop(
  instance: RunningInstance | undefined,
  path: string,
): { check(): void; race<T>(waiting: Promise<T>): Promise<T>; dispose(): void } {
  const unfinished = path === '-' ? 'the export was not finished' : 'no file was written';
  let stopped: string | null = null;
  let wake: (() => void) | undefined;
  const note = (why: string): void => {
    stopped ??= why;
    wake?.();
  };
  const stopping = () => note(`the running ${instance!.purpose} is stopping`);
  const signal = (name: NodeJS.Signals) => note(`export stopped by ${name}`);
  if (instance) {
    if (instance.stopping.aborted) stopping();
    instance.stopping.addEventListener('abort', stopping, { once: true });
  } else if (path !== '-') {
    process.on('SIGINT', signal);
    process.on('SIGTERM', signal);
  }
  const check = (): void => {
    if (stopped !== null) throw new CommandError(`${stopped}: ${unfinished}`);
  };
  return {
    check,
    race: (waiting) =>
      new Promise((resolve, reject) => {
        wake = () => {
          try {
            check();
          } catch (error) {
            reject(error);
          }
        };
        waiting.then(resolve, reject).finally(() => (wake = undefined));
      }),
    dispose: () => {
      instance?.stopping.removeEventListener('abort', stopping);
      process.off('SIGINT', signal);
      process.off('SIGTERM', signal);
    },
  };
}

/** The local knowledge a snapshot carried (docs/architecture.md#snapshots), when it carried any: ` (with 3 timeline entries, …)`. */
function knowledgeNote(counts: {
  timelineEntries: number;
  acknowledgements: number;
  syncOutages: number;
  incidents: number;
}): string {
  const parts = [
    [counts.timelineEntries, 'timeline entry', 'timeline entries'],
    [counts.acknowledgements, 'acknowledgement', 'acknowledgements'],
    [counts.syncOutages, 'sync outage', 'sync outages'],
    [counts.incidents, 'incident', 'incidents'],
  ] as const;
  const given = parts.filter(([n]) => n > 0).map(([n, one, many]) => `${n} ${n === 1 ? one : many}`);
  return given.length === 0 ? '' : ` (with ${given.join(', ')})`;
}

/** The instance's working directory is not the user's: only paths the CLI resolved are taken. */
function absolute(path: string): void {
  if (!isAbsolute(path)) throw new CommandError(`'${path}' is not an absolute path`);
}
