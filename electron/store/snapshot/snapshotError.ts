/** A snapshot file refused: the message names the JSON path (or line and column) of the first problem. */
export class SnapshotError extends Error {}
