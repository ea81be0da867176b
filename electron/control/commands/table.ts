/** A plain aligned table on stdout, a header row first (the `list` commands without `--json`). */
import type { CommandOutput } from '../command';

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A cell as one line of plain text: control characters (C0, DEL, C1) are shown escaped (`\n`,
 * `\u001b`), so stored text can neither break the table nor drive the terminal. `--json` is exact.
 */
export function printableCell(cell: string): string {
  return cell.replace(
    /\p{Cc}/gu,
    (char) => NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function printTable(out: CommandOutput, rows: string[][]): void {
  const cells = rows.map((row) => row.map(printableCell));
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
