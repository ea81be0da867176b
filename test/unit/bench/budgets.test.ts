/**
 * The bench's budgets by org size (docs/architecture.md#performance-budgets) and how the table judges a
 * figure against them: which limit applies at 1k, 10k, 100k and past it, and when a row is `info`.
 */
import { describe, expect, it } from 'vitest';
import {
  coldStartBudget,
  fullSyncBudget,
  judgedAt,
  p99Budget,
  rssBudget,
  stallBudget,
  throughputBudget,
  viewBudget,
  windowFilterBudget,
  windowOpenBudget,
} from '../../../bench/budgets';
import { Report, megabytes, ms, ratio } from '../../../bench/report';

const MB = 1024 * 1024;

describe('budgets by org size', () => {
  it('holds the 10k limits up to 10k and the 100k ones above it', () => {
    const at = (size: number) => ({
      memory: rssBudget(size).limit / MB,
      coldStart: coldStartBudget(size).limit,
      fullSync: fullSyncBudget(size).limit,
      throughput: throughputBudget(size).limit,
      p99: p99Budget(size).limit,
    });
    const at10k = { memory: 250, coldStart: 1_000, fullSync: 6_000, throughput: 1.5, p99: 1.5 };
    expect(at(1_000)).toEqual(at10k);
    expect(at(10_000)).toEqual(at10k);
    const at100k = { memory: 800, coldStart: 2_000, fullSync: 30_000, throughput: 1.0, p99: 1.5 };
    expect(at(10_001)).toEqual(at100k);
    expect(at(100_000)).toEqual(at100k);
  });

  it('judges the budgets stated at 100k up to 100k, the 10k-only ones up to 10k', () => {
    const stated = [rssBudget, coldStartBudget, fullSyncBudget, throughputBudget, p99Budget, viewBudget];
    for (const budget of [...stated, windowOpenBudget, windowFilterBudget]) {
      expect(budget(100_000).judged).toBe(true);
      expect(budget(1_000_000).judged).toBe(false);
    }
    expect(judgedAt(10_000)).toBe(true);
    expect(judgedAt(100_000)).toBe(false);
  });

  it('judges the window and the views at 100k with their 10k limits', () => {
    expect([windowOpenBudget, windowFilterBudget, viewBudget].map((b) => b(100_000).limit)).toEqual([
      1_000, 150, 500,
    ]);
  });

  it('judges the longest stall at every size', () => {
    for (const size of [1_000, 100_000, 1_000_000])
      expect(stallBudget(size)).toEqual({ limit: 50, judged: true });
  });
});

describe('the table against sized budgets', () => {
  it('says over budget at 100k what was within the old one (1.09 GB against 1.3 GB)', () => {
    const report = new Report();
    report.atMostSized('engine: peak RSS', 100_000, 1_090 * MB, rssBudget(100_000), megabytes);
    report.atMostSized('engine: peak RSS', 10_000, 240 * MB, rssBudget(10_000), megabytes);
    expect(report.rows.map((row) => [row.budget, row.verdict])).toEqual([
      ['≤ 800 MB', 'OVER BUDGET'],
      ['≤ 250 MB', 'ok'],
    ]);
  });

  it('judges throughput from below, stated at 100k apart from 10k', () => {
    const report = new Report();
    report.atLeastSized('throughput', 10_000, 1.2, throughputBudget(10_000), ratio);
    report.atLeastSized('throughput', 100_000, 1.2, throughputBudget(100_000), ratio);
    report.atLeastSized('throughput', 1_000_000, 0.5, throughputBudget(1_000_000), ratio);
    expect(report.rows.map((row) => [row.budget, row.verdict])).toEqual([
      ['≥ 1.50×', 'OVER BUDGET'],
      ['≥ 1.00×', 'ok'],
      ['(100k: ≥ 1.00×)', 'info'],
    ]);
  });

  it('prints a figure past 100k beside the 100k budget, not judged', () => {
    const report = new Report();
    report.atMostSized('first sync', 1_000_000, 90_000, fullSyncBudget(1_000_000), ms);
    expect(report.rows[0]).toMatchObject({ budget: '(100k: ≤ 30.00 s)', verdict: 'info' });
    expect(report.format()).toContain('All judged figures are within budget.');
  });
});
