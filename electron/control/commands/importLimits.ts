/**
 * The import's limits on reading (docs/decisions.md "Import"), in their own file so the CLI's help loads
 * none of the import. What one record of a file may be is store/snapshot/snapshotLimits.ts.
 */

/**
 * The highest `import --max-size` in MiB: 1 TiB. The option is an upper bound a user may ask for (scripts
 * that set it keep working); without it any size is read. A bound is needed for the option's check only:
 * a 1M-dataset snapshot is about 20 GB.
 */
export const MAX_IMPORT_MIB = 1024 * 1024;

/**
 * A read that brings nothing for this long stops the import: a hung network or FUSE mount. A local disk
 * answers in milliseconds, and a slow remote one still brings some of a 1 MiB chunk well within it.
 */
export const IMPORT_STALL_MS = 30_000;

/** A long import prints a progress line once it has run this long, and again each time this passes. */
export const PROGRESS_EVERY_MS = 2_000;
