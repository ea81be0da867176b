/**
 * A member's exchange with its team server for one org (docs/decisions.md "On call as a team:
 * members"): push the outbox, pull what is new after the cursor, and keep a server-sent event stream
 * open so the server can say when to pull. A round is push then pull; rounds never overlap, and one
 * asked for while another runs runs right after it. With the server unreachable the outbox waits and
 * the round is tried again, a second later, then two, up to half a minute; the window reads the status.
 *
 * - A push the server answered is marked pushed; one whose answer was lost is sent again (the server
 *   stores an id once). Operations the server refuses for good (400, 403, 409: the member became a
 *   viewer, say) are pushed one by one to find which, and those are taken back with what they decided.
 * - A refused token (401) stops the exchange's hurry: it is tried again every few minutes, and the
 *   status says so.
 * - Nothing is pulled before the org's first mirror from the team server has finished: whether a
 *   pulled acknowledgement holds is read from the mirrored health.
 */
import { createParser } from 'eventsource-parser';
import { Compile } from 'typebox/compile';
import { TEAM_PATHS, TeamOperation, operationProblem } from '../../shared/team';
import type { TeamStatus } from '../../shared/teamStatus';
import type { Store } from '../store/database';
import { getOrg } from '../store/tables/orgs';
import { type TeamLink, teamLinkOf } from '../store/tables/teamLinks';
import { dropOperations, markPushed, outboxCount, outboxOf } from '../store/tables/teamLog';
import { recordPulled } from './localOperations';

const checkOperation = Compile(TeamOperation);

/** Most operations in one push: the server takes 500; notes of 2,000 characters keep it under its body limit. */
const PUSH_BATCH = 200;
const PULL_LIMIT = 1000;
const REFUSED_RETRY_MS = 5 * 60_000;

export interface ExchangeOptions {
  store: Store;
  link: TeamLink;
  /** The team token, unsealed. */
  token: string;
  now: () => Date;
  fetch?: typeof fetch;
  /** Operations from the team changed what this member shows (the alerts redraw). */
  onApplied?: (added: number) => void;
  onStatus?: (status: TeamStatus) => void;
  /** Waits between attempts while the server does not answer. */
  backoff?: { minMs: number; maxMs: number };
  /** A pull this often even while the stream is quiet (a proxy may hold events back). */
  pullEveryMs?: number;
  log?: (message: string) => void;
}

/** A refusal from the team server, with its status and words. */
class Refused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The operation a refusal is about, when the team server refused it for good itself: its answer (our
 * error shape, 400, 403 or 409) names the operation. Anything else — a viewer's push, a proxy's 403, a
 * Host the server does not serve, a body too large — refuses no operation in particular, and the outbox
 * keeps them all.
 */
function refusedOperation(error: unknown, batch: readonly TeamOperation[]): TeamOperation | undefined {
  if (!(error instanceof Refused) || ![400, 403, 409].includes(error.status)) return undefined;
  return batch.find((op) => error.message.includes(`operation ${op.opId}`));
}

export class TeamExchange {
  private readonly fetch: typeof fetch;
  private readonly backoff: { minMs: number; maxMs: number };
  private state: TeamStatus['state'] = 'offline';
  private problem: string | null = null;
  private lastContactAt: string | null = null;
  /** The outbox's size when last read (read between the store's chunked commits, never during one). */
  private waiting = 0;
  /** The last change the team server refused and this desktop took back: said until the exchange restarts. */
  private dropped: string | null = null;
  private applied = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private failures = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private periodic: ReturnType<typeof setInterval> | undefined;
  private readonly stream = new AbortController();
  private streamDone: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: ExchangeOptions) {
    this.fetch = options.fetch ?? fetch;
    this.backoff = options.backoff ?? { minMs: 1_000, maxMs: 30_000 };
  }

  get orgId(): string {
    return this.options.link.orgId;
  }

  start(): void {
    this.streamDone = this.keepStreamOpen();
    this.periodic = setInterval(() => this.nudge(), this.options.pullEveryMs ?? 60_000);
    this.nudge();
  }

  /** Something may wait to be exchanged (a change made here, a sync finished, an event): a round soon. */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.round().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.nudge();
      }
    });
  }

  /** Resolves once no round runs (tests, stopping). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  status(): TeamStatus {
    const { link } = this.options;
    return {
      orgId: link.orgId,
      url: link.url,
      member: link.member,
      role: link.role,
      state: this.state,
      waiting: this.waiting,
      lastContactAt: this.lastContactAt,
      problem: this.problem,
      applied: this.applied,
    };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    clearInterval(this.periodic);
    this.stream.abort();
    await this.streamDone;
    await this.idle();
  }

  private async round(): Promise<void> {
    clearTimeout(this.retry);
    const { store } = this.options;
    try {
      const synced = await store.whenIdle(() => {
        this.waiting = outboxCount(store, this.orgId);
        return getOrg(store, this.orgId)?.lastSyncedAt != null;
      });
      if (!synced) {
        this.setState('syncing', null);
        return;
      }
      await this.pushAll();
      await this.pullAll();
      this.failures = 0;
      this.setState('online', null);
    } catch (error) {
      if (this.stopped) return;
      // The server answered, and refuses (a revoked token, a viewer's push, a Host it does not serve):
      // trying again every few seconds would change nothing.
      const refused =
        error instanceof Refused && error.status >= 400 && error.status < 500 && error.status !== 429;
      this.failures += 1;
      const wait = refused
        ? REFUSED_RETRY_MS
        : Math.min(this.backoff.maxMs, this.backoff.minMs * 2 ** (this.failures - 1));
      this.setState(refused ? 'refused' : 'offline', (error as Error).message);
      this.retry = setTimeout(() => this.nudge(), wait);
    }
  }

  private setState(state: TeamStatus['state'], problem: string | null): void {
    if (state === 'online') this.lastContactAt = this.options.now().toISOString();
    this.state = state;
    this.problem = problem ?? (state === 'online' ? this.dropped : this.problem);
    this.options.onStatus?.(this.status());
  }

  /** What this desktop shows of the org changed: the alerts redraw, windows reload. */
  private changed(count: number): void {
    this.applied += count;
    this.options.onApplied?.(count);
    this.options.onStatus?.(this.status());
  }

  private async pushAll(): Promise<void> {
    const { store, now } = this.options;
    for (;;) {
      const batch = await store.whenIdle(() => outboxOf(store, this.orgId, PUSH_BATCH));
      if (batch.length === 0) break;
      try {
        await this.push(batch);
      } catch (error) {
        const refused = refusedOperation(error, batch);
        if (refused === undefined) throw error;
        // That one can never be taken: taken back here too, with what it decided; the rest is sent again.
        await store.whenIdle(() => dropOperations(store, [refused.opId], now()));
        const message = (error as Error).message;
        this.options.log?.(`the team server refused a change, taken back: ${message}`);
        this.dropped = `a change was refused by the team server and taken back: ${message}`;
        this.changed(1);
        continue;
      }
      await store.whenIdle(() => {
        markPushed(
          store,
          batch.map((op) => op.opId),
        );
        this.waiting = outboxCount(store, this.orgId);
      });
    }
    this.waiting = await store.whenIdle(() => outboxCount(store, this.orgId));
  }

  private async push(operations: readonly TeamOperation[]): Promise<void> {
    await this.request(TEAM_PATHS.operations, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ operations }),
    });
  }

  private async pullAll(): Promise<void> {
    const { store, now } = this.options;
    for (;;) {
      const cursor = await store.whenIdle(() => teamLinkOf(store, this.orgId)?.cursor ?? 0);
      const answer = (await this.request(`${TEAM_PATHS.operations}?after=${cursor}&limit=${PULL_LIMIT}`)) as {
        operations: unknown[];
        cursor: number;
      };
      const operations: (TeamOperation & { seq: number })[] = [];
      for (const each of answer.operations) {
        const { seq, ...op } = each as { seq: number };
        if (checkOperation.Check(op) && operationProblem(op) === null && op.orgId === this.orgId)
          operations.push({ ...op, seq });
        else
          this.options.log?.(
            `skipped an operation the team server sent that is not one: ${JSON.stringify(each).slice(0, 200)}`,
          );
      }
      const added = await store.whenIdle(() =>
        recordPulled(store, this.orgId, operations, answer.cursor, now(), this.options.link.url),
      );
      if (added > 0) this.changed(added);
      if (answer.operations.length < PULL_LIMIT) return;
    }
  }

  private async request(path: string, init: RequestInit = {}): Promise<unknown> {
    const response = await this.fetch(new URL(path, this.options.link.url), {
      ...init,
      headers: { ...(init.headers as Record<string, string>), Authorization: `Bearer ${this.options.token}` },
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    if (!response.ok) {
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { message?: string }).message ?? message;
      } catch {
        // Not our error shape (a proxy's page): its first words.
      }
      throw new Refused(response.status, `${response.status}: ${message}`);
    }
    return JSON.parse(text) as unknown;
  }

  /** Keeps the event stream open: each `operations` event asks for a round; a lost stream is opened again. */
  private async keepStreamOpen(): Promise<void> {
    let failures = 0;
    let refusedStream = false;
    while (!this.stopped) {
      try {
        const response = await this.fetch(new URL(TEAM_PATHS.events, this.options.link.url), {
          headers: { Accept: 'text/event-stream', Authorization: `Bearer ${this.options.token}` },
          signal: this.stream.signal,
        });
        if (!response.ok || response.body === null) throw new Refused(response.status, 'no event stream');
        refusedStream = false;
        failures = 0;
        // Whatever was pushed while the stream was down went unheard: a round now.
        this.nudge();
        const parser = createParser({ onEvent: (event) => event.event === 'operations' && this.nudge() });
        const decoder = new TextDecoder();
        for await (const chunk of response.body)
          parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }));
      } catch (error) {
        // Down, refused or aborted: tried again below, unless stopping.
        refusedStream = error instanceof Refused && error.status >= 400 && error.status < 500;
      }
      if (this.stopped) return;
      // The stream is down: a round now finds out whether the server is (and the status says so).
      if (!refusedStream) this.nudge();
      failures += 1;
      // A refused token stays refused: asked again every few minutes, not every few seconds.
      const wait = refusedStream
        ? REFUSED_RETRY_MS
        : Math.min(this.backoff.maxMs, this.backoff.minMs * 2 ** Math.min(failures - 1, 10));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.stream.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }
}
