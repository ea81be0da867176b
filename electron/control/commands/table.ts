/** A plain aligned table on stdout, a header row first (the `list` commands without `--json`). */
import { printable } from '../../store/tables/orgs';
import type { CommandOutput } from '../command';

/** Cells are printed escaped (`printable`): stored text cannot break or reorder the table; `--json` is the same value (`printableJson`). */
export function printTable(out: CommandOutput, rows: string[][]): void {
  const cells = rows.map((row) => row.map(printable));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  for (const row of cells) {
    out.stdout(
      `${row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
}
