/**
 * Figures of an engine process seen from outside (bench/engineProcess.ts): its first sync and what the
 * engine does after it (the on-call layer's history, the alerts), judged with their longest event-loop
 * stall; the bytes it writes to disk per steady-state poll cycle against the records those cycles
 * changed; the views' answers once its history is warm; and its peak RSS over all of it: a first sync, a
 * checkpoint, polls, list traffic and the views (docs/architecture.md#performance-budgets). The remote is
 * the simulator in its own process, its clock running fast (`simSpeed`) so that polls a few seconds
 * apart see what polls a minute apart (the default interval) would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REMOTE_KEY_ENV } from '../electron/sync/secrets';
import { BUDGET, fullSyncBudget, rssBudget, stallBudget, viewBudget } from './budgets';
import { PROJECT_ROOT, startSimulator } from './children';
import { makeTempDir, removeTempDir, stopChild, trackChild } from './cleanup';
import { LIST_PATH } from './coldStart';
import type { EngineEvent, PollCycle } from './engineProcess';
import { load, pagesAcrossTheOrg } from './http';
import { NO_PROC } from './proc';
import { type Report, bytes, megabytes, ms } from './report';
import { summarize } from './stats';
import { askViews } from './viewCalls';

const KEY = 'bench-remote-key';
const POLLS = 10;
const MINUTE_MS = 60_000;

/**
 * Simulated seconds per real second: a poll gap of 60 / speed seconds is the default minute between
 * polls. Above 10k, slower: what each poll sets off takes the engine seconds there, and the clock runs
 * on meanwhile; at 60× that would be simulated minutes, the next poll carrying their changes too.
 */
const simSpeed = (size: number): number => (size > 10_000 ? 6 : 60);

export interface EngineOptions {
  quick: boolean;
  /** The engine process bundled as plain JavaScript; null runs it under tsx. */
  bundledEngine: string | null;
  log: (line: string) => void;
}

export async function engineFigures(size: number, report: Report, options: EngineOptions): Promise<void> {
  const { log } = options;
  const speed = simSpeed(size);
  log(`  engine process: simulator (${size} datasets, clock ${speed}×) and engine…`);
  process.env[REMOTE_KEY_ENV] = KEY;
  const simulator = await startSimulator(size, ['--speed', String(speed)]);
  const root = makeTempDir(`dataset-health-bench-engine-${size}-`);
  let engine: EngineChild | undefined;
  try {
    const entry = options.bundledEngine;
    engine = new EngineChild(
      [
        ...(entry ? [entry] : ['--import', 'tsx', join(PROJECT_ROOT, 'bench', 'engineProcess.ts')]),
        '--data-dir',
        root,
        '--remote',
        simulator.url,
        '--polls',
        String(POLLS),
        '--poll-gap-ms',
        String(Math.round(MINUTE_MS / speed)),
      ],
      log,
    );
    const first = await engine.next('firstSync');
    const c = first.counts;
    const how = entry ? '' : ' (tsx)';
    report.atMostSized(
      `engine: first sync${how}`,
      size,
      first.ms,
      fullSyncBudget(size),
      ms,
      `${c.received} datasets, ${c.tasksFetched} tasks records; ${bytes(first.journalBytes)} of journal appended, ${first.writeBytes === null ? 'disk writes n/a' : `${bytes(first.writeBytes)} written to disk`}`,
    );
    report.atMostSized('  longest event-loop stall during it', size, first.stallMs, stallBudget(size), ms);
    report.info(
      '  then the on-call layer and the alerts',
      size,
      ms(first.afterMs),
      "the org's history read and the default statistics (the views' warm-up), the alerts' decisions",
    );
    report.atMostSized(
      '  longest stall in the on-call layer and the alerts after it',
      size,
      first.afterStallMs,
      stallBudget(size),
      ms,
    );
    const checkpoint = await engine.next('checkpoint');
    report.info(
      'engine: checkpoint after it',
      size,
      ms(checkpoint.ms),
      `image ${bytes(checkpoint.imageBytes)}; fold ${ms(checkpoint.foldMs)} (it may start by itself at the sync's commit, past the threshold)`,
    );
    report.atMostSized(
      '  longest event-loop stall during it',
      size,
      checkpoint.stallMs,
      stallBudget(size),
      ms,
    );

    const cycles: PollCycle[] = [];
    for (let i = 0; i < POLLS; i++) {
      const { cycle } = await engine.next('poll');
      log(
        `    poll ${i + 1}: ${cycle.written} written (${bytes(cycle.jsonBytes)} JSON), ${cycle.writeBytes === null ? 'n/a' : bytes(cycle.writeBytes)} to disk, journal ${bytes(cycle.journalBytes)}`,
      );
      cycles.push(cycle);
    }
    reportPollWrites(size, report, cycles, speed);
    const polls = await engine.next('polls');
    const settles = summarize(cycles.map((cycle) => cycle.settleMs));
    report.atMostSized(
      'engine: longest event-loop stall over the polls',
      size,
      polls.stallMs,
      stallBudget(size),
      ms,
      `${cycles.length} polls and what each set off (the on-call layer's reading of what changed, the alerts' decisions), the gaps included; that work took ${ms(settles.p50)} p50, ${ms(settles.max)} max after a poll`,
    );

    const ready = await engine.next('ready');
    const target = {
      name: 'engine',
      url: `${ready.url}${LIST_PATH}`,
      headers: { authorization: `Bearer ${ready.apiKey}` },
    };
    const seconds = options.quick ? 2 : 5;
    log(`  list traffic, ${seconds} s same page and ${seconds} s across the org…`);
    const same = await load(target, seconds);
    const spread = await pagesAcrossTheOrg(target);
    const across = await load({ ...target, paths: spread.ours }, seconds);
    if (same.failures + across.failures > 0) throw new Error('list requests to the engine failed');
    log("  the views' answers (Triage, Upcoming, Reliability, Handoff)…");
    const views = await askViews(ready.url, ready.apiKey);
    for (const view of views) {
      report.atMostSized(
        `engine: ${view.name} view's answer, history warm`,
        size,
        view.ms,
        viewBudget(size),
        ms,
        `the first ask after the sync, over the local API (${bytes(view.bytes)}); the engine's part of the view's first content`,
      );
    }
    const memory = await engine.stop();
    const peaks = [
      `first sync and after ${megabytes(first.peakRssBytes)}`,
      `checkpoint ${megabytes(checkpoint.peakRssBytes)}`,
      `polls ${megabytes(polls.peakRssBytes)}`,
    ].join(', ');
    report.atMostSized(
      'engine: peak RSS (first sync, checkpoint, polls, list traffic, views)',
      size,
      memory.maxRssBytes,
      rssBudget(size),
      megabytes,
      `maxRSS; peak by the end of: ${peaks}; ${same.rps.toFixed(0)} req/s same page, ${across.rps.toFixed(0)} req/s over ${spread.ours.length} pages`,
    );
  } finally {
    await engine?.kill();
    await simulator.stop();
    removeTempDir(root);
  }
}

/**
 * docs/architecture.md#performance-budgets: bytes written per steady-state poll cycle ≤ 2× the changed records + 64 KiB. Judged
 * over all cycles together (the mean against the mean budget); the note says how many cycles, alone,
 * were over their own.
 */
function reportPollWrites(size: number, report: Report, cycles: PollCycle[], speed: number): void {
  const what = 'disk writes per steady-state poll cycle';
  const budgetOf = (cycle: PollCycle): number =>
    BUDGET.pollWriteFactor * cycle.jsonBytes + BUDGET.pollWriteSlackBytes;
  const sum = (values: number[]): number => values.reduce((a, b) => a + b, 0);
  const records = sum(cycles.map((cycle) => cycle.written));
  const json = sum(cycles.map((cycle) => cycle.jsonBytes));
  const journal = sum(cycles.map((cycle) => cycle.journalBytes));
  const pollMs = cycles.map((cycle) => cycle.ms);
  const apart = (sum(cycles.map((cycle) => cycle.sinceLastMs)) / cycles.length / MINUTE_MS) * speed;
  const described = `${cycles.length} polls ${apart.toFixed(1)} simulated minutes apart: ${records} records written (${bytes(json)} of JSON), ${ms(Math.min(...pollMs))}–${ms(Math.max(...pollMs))} each`;
  const written = cycles.map((cycle) => cycle.writeBytes);
  if (written.some((value) => value === null)) {
    report.info(what, size, 'n/a', `${NO_PROC}; ${described}`);
    return;
  }
  const perCycle = written as number[];
  const over = cycles.filter((cycle, i) => perCycle[i]! > budgetOf(cycle)).length;
  report.atMost(what, size, sum(perCycle) / cycles.length, sum(cycles.map(budgetOf)) / cycles.length, bytes, {
    note: `mean; max ${bytes(Math.max(...perCycle))}; ${over} of ${cycles.length} over their own budget; journal ${bytes(journal / cycles.length)} a cycle; ${described}`,
  });
}

type EventOf<K extends EngineEvent['event']> = Extract<EngineEvent, { event: K }>;

/** The engine process and its stream of events, read in order. */
class EngineChild {
  private readonly child: ChildProcess;
  private readonly events: EngineEvent[] = [];
  private waiting: (() => void) | undefined;
  private ended: Error | undefined;
  private stderr = '';
  private readonly exited: Promise<void>;

  constructor(args: string[], log: (line: string) => void) {
    this.child = spawn(process.execPath, args, { cwd: PROJECT_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    trackChild(this.child);
    // It may have exited already when told to stop: its exit is reported, not a broken pipe.
    this.child.stdin!.on('error', () => {});
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      try {
        this.events.push(JSON.parse(line) as EngineEvent);
      } catch {
        log(`    engine (stdout): ${line}`);
      }
      this.waiting?.();
    });
    createInterface({ input: this.child.stderr! }).on('line', (line) => {
      this.stderr = `${this.stderr}${line}\n`.slice(-4000);
      log(`    engine: ${line}`);
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.once('exit', (code, signal) => {
      this.ended = new Error(
        `the engine process exited (${signal ?? code}): ${this.stderr.trim().split('\n').pop() ?? ''}`,
      );
      this.waiting?.();
    });
  }

  /** The next event, which must be of kind `kind`. */
  async next<K extends EngineEvent['event']>(kind: K): Promise<EventOf<K>> {
    for (;;) {
      const event = this.events.shift();
      if (event) {
        if (event.event !== kind) throw new Error(`the engine said ${event.event}, expected ${kind}`);
        return event as EventOf<K>;
      }
      if (this.ended) throw this.ended;
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = undefined;
    }
  }

  /** Asks the engine to stop; resolves with the memory it reported, once it has closed its store. */
  async stop(): Promise<EventOf<'memory'>> {
    this.child.stdin!.end('stop\n');
    const memory = await this.next('memory');
    await this.exited;
    return memory;
  }

  /** Stops it whatever it is doing (SIGTERM, then SIGKILL); nothing if it has exited. */
  kill(): Promise<void> {
    return stopChild(this.child);
  }
}
