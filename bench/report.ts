/** The benchmark table: each figure beside its budget (docs/architecture.md#performance-budgets) and a verdict. */
import type { SizedBudget } from './budgets';

export type Verdict = 'ok' | 'OVER BUDGET' | 'info' | 'FAILED';

export interface Row {
  what: string;
  size: number;
  value: string;
  budget: string;
  verdict: Verdict;
  note?: string;
}

export function sizeLabel(size: number): string {
  return size >= 1000 && size % 1000 === 0 ? `${size / 1000}k` : String(size);
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Number.isInteger(value) && value < 1000) return `${value} ms`;
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  return `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;
}

export function ratio(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}×` : 'n/a';
}

export function megabytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return 'n/a';
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

/** Byte counts from a few bytes up: B, KiB, MiB (binary units, as the budgets are stated). */
export function bytes(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (value < 1024) return `${value.toFixed(0)} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(value < 10 * 1024 ? 1 : 0)} KiB`;
  return `${(value / 1024 / 1024).toFixed(1)} MiB`;
}

/** How a bound is judged: not at all where it is stated at another size (`statedAt`). */
interface BoundOptions {
  judged?: boolean;
  note?: string;
  statedAt?: string;
}

export class Report {
  readonly rows: Row[] = [];

  add(row: Row): void {
    this.rows.push(row);
  }

  /** A figure that must stay at or below `limit` (both in the same unit, `format` prints either). */
  atMost(
    what: string,
    size: number,
    value: number,
    limit: number,
    format: (v: number) => string,
    options: BoundOptions = {},
  ): void {
    this.bounded('≤', what, size, value, limit, format, options);
  }

  /** A figure whose budget is stated at 10k and at 100k (cold start, memory, sync, the window). */
  atMostSized(
    what: string,
    size: number,
    value: number,
    budget: SizedBudget,
    format: (v: number) => string,
    note?: string,
  ): void {
    this.atMost(what, size, value, budget.limit, format, sizedOptions(size, budget, note));
  }

  /** A figure that must stay at or above `limit`. */
  atLeast(
    what: string,
    size: number,
    value: number,
    limit: number,
    format: (v: number) => string,
    options: BoundOptions = {},
  ): void {
    this.bounded('≥', what, size, value, limit, format, options);
  }

  /** A figure against its limit on one side; unjudged (stated at another size), printed as `info`. */
  private bounded(
    side: '≤' | '≥',
    what: string,
    size: number,
    value: number,
    limit: number,
    format: (v: number) => string,
    options: BoundOptions,
  ): void {
    const judged = options.judged ?? true;
    const ok = Number.isFinite(value) && (side === '≤' ? value <= limit : value >= limit);
    const statedAt = options.statedAt ?? '10k';
    this.add({
      what,
      size,
      value: format(value),
      budget: `${judged ? '' : `(${statedAt}: `}${side} ${format(limit)}${judged ? '' : ')'}`,
      verdict: judged ? (ok ? 'ok' : 'OVER BUDGET') : 'info',
      note: options.note,
    });
  }

  /** A figure that must stay at or above a budget stated at 10k and at 100k (throughput). */
  atLeastSized(
    what: string,
    size: number,
    value: number,
    budget: SizedBudget,
    format: (v: number) => string,
    note?: string,
  ): void {
    this.atLeast(what, size, value, budget.limit, format, sizedOptions(size, budget, note));
  }

  info(what: string, size: number, value: string, note?: string): void {
    this.add({ what, size, value, budget: '', verdict: 'info', note });
  }

  failed(what: string, size: number, message: string): void {
    this.add({ what, size, value: 'n/a', budget: '', verdict: 'FAILED', note: message });
  }

  /** An indented row ("  longest stall during it") named with the row it belongs to, for the summary. */
  private fullName(row: Row): string {
    if (!row.what.startsWith(' ')) return row.what;
    const parent = this.rows
      .slice(0, this.rows.indexOf(row))
      .reverse()
      .find((r) => r.size === row.size && !r.what.startsWith(' '));
    return parent ? `${parent.what} › ${row.what.trim()}` : row.what.trim();
  }

  /** Aligned text, one section per org size. */
  format(): string {
    const lines: string[] = [];
    const labels = this.rows.map((r) => `${r.what} @${sizeLabel(r.size)}`);
    const width = (values: string[]): number => Math.max(0, ...values.map((v) => v.length));
    const w = {
      label: width(labels),
      value: width(this.rows.map((r) => r.value)),
      budget: width(this.rows.map((r) => (r.budget ? `budget ${r.budget}` : ''))),
      verdict: width(this.rows.map((r) => r.verdict)),
    };
    let size: number | undefined;
    this.rows.forEach((row, i) => {
      if (row.size !== size) {
        if (size !== undefined) lines.push('');
        lines.push(`── ${sizeLabel(row.size)} datasets ${'─'.repeat(Math.max(4, w.label - 12))}`);
        size = row.size;
      }
      const budget = row.budget ? `budget ${row.budget}` : '';
      const cells = [
        labels[i]!.padEnd(w.label),
        row.value.padStart(w.value),
        budget.padEnd(w.budget),
        row.verdict.padEnd(w.verdict),
        row.note ?? '',
      ];
      lines.push(cells.join('   ').trimEnd());
    });
    const over = this.rows.filter((r) => r.verdict === 'OVER BUDGET');
    const failed = this.rows.filter((r) => r.verdict === 'FAILED');
    lines.push('');
    if (over.length === 0) lines.push('All judged figures are within budget.');
    else
      lines.push(
        `${over.length} figure(s) over budget:`,
        ...over.map((r) => `  - ${this.fullName(r)} @${sizeLabel(r.size)}: ${r.value} (budget ${r.budget})`),
      );
    if (failed.length > 0) lines.push(`${failed.length} measurement(s) failed (see notes).`);
    return `${lines.join('\n')}\n`;
  }
}

/** How a sized budget is judged at `size`, and the size it is stated at. */
function sizedOptions(size: number, budget: SizedBudget, note: string | undefined): BoundOptions {
  return { judged: budget.judged, note, statedAt: size > 10_000 ? '100k' : '10k' };
}
