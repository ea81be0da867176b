/** A plain aligned table on stdout, a header row first (the `list` commands without `--json`). */
import type { CommandOutput } from '../command';

export function printTable(out: CommandOutput, rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) {
    out.stdout(
      `${row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
}
