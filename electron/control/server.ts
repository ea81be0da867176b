/**
 * The control channel's server side (docs/architecture.md#hand-over-to-a-running-instance): `POST /control/v1/run` on the local API's port, for
 * the CLI of the same user. The secret sits in `<dataDir>/control.json`, readable by the owner only; a
 * request without it (or from a browser: any Origin) is refused before its body is read. The answer
 * streams what the command prints as NDJSON lines — `{"stdout":…}`, `{"stderr":…}` — and ends with
 * `{"exit":0,"result":…}` or `{"exit":1,"error":…}` (`"exit":2`: a usage error), so the CLI prints
 * exactly what it would alone. While the instance stops, new requests are refused (503) and those in
 * flight run to their end first (`ControlChannel.close`).
 */
import { timingSafeEqual } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Compile } from 'typebox/compile';
import { ApiError, sendError } from '../api/errors';
import { type CommandContext, CommandError, type CommandOutput, failureOf } from './command';
import { COMMANDS, type CommandName, isCommandName } from './commands';
import { CONTROL_HEADER, CONTROL_PATH, type ControlLine } from './protocol';

const checks = Object.fromEntries(
  Object.entries(COMMANDS).map(([name, definition]) => [name, Compile(definition.args)]),
) as Record<CommandName, ReturnType<typeof Compile>>;

export interface ControlServerOptions {
  secret: string;
  /** The context commands run in: the instance's store, clock and engine. */
  context: () => CommandContext;
  /** Bugs go to the log and the CLI gets a generic line; what the user reads is `failureOf`'s. */
  log?: (error: unknown) => void;
}

function sameSecret(given: string | string[] | undefined, secret: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

function refuse(
  reply: FastifyReply,
  message: string,
  status: 'UNAUTHENTICATED' | 'FORBIDDEN' | 'INVALID_ARGUMENT' | 'UNAVAILABLE',
) {
  return sendError(reply, new ApiError(status, `control request refused: ${message}`));
}

export interface ControlChannel {
  /**
   * Refuses new commands from now on (503 `UNAVAILABLE`: shutting down) and resolves once every command
   * in flight has ended and sent its last line, so the API closes under none of them (docs/decisions.md,
   * "Beside a running instance"). An answer its CLI stopped reading gets ANSWER_GRACE_MS to go out.
   */
  close(): Promise<void>;
}

/** How long a finished command's answer may take to reach a CLI that reads slowly, once stopping. */
const ANSWER_GRACE_MS = 10_000;

export async function registerControl(
  app: FastifyInstance,
  options: ControlServerOptions,
): Promise<ControlChannel> {
  let closing = false;
  /** From a command's start (its body read) to its last line sent: what stopping waits for. */
  const commands = new InFlight();
  /** From a command's start to its answer gone out, or its CLI gone. */
  const answers = new InFlight();
  const shuttingDown = (reply: FastifyReply) => {
    const instance = options.context().instance;
    const who = instance ? `${instance.purpose} (process ${instance.pid})` : 'instance';
    return refuse(reply, `the running ${who} is shutting down`, 'UNAVAILABLE');
  };
  await app.register(async (control) => {
    // Before the body is parsed: nothing of an unauthenticated request is read.
    control.addHook('onRequest', async (request, reply) => {
      if (request.headers.origin !== undefined)
        return refuse(reply, 'the control channel is for the command line, not for pages', 'FORBIDDEN');
      if (!sameSecret(request.headers[CONTROL_HEADER], options.secret))
        return refuse(
          reply,
          `missing or wrong ${CONTROL_HEADER} (the secret is in control.json of the data directory)`,
          'UNAUTHENTICATED',
        );
      if (closing) return shuttingDown(reply);
    });
    control.post(CONTROL_PATH, async (request, reply) => {
      // Again once the body is in: one that arrived as the instance began to stop is refused too, and
      // a body that never ends holds nothing up.
      if (closing) return shuttingDown(reply);
      const leave = commands.enter();
      reply.raw.once('close', answers.enter());
      try {
        await answer(request.body, reply);
      } finally {
        leave();
      }
    });
  });

  async function answer(requested: unknown, reply: FastifyReply): Promise<unknown> {
    const body = requested as { command?: unknown; args?: unknown } | null;
    const name = body?.command;
    if (typeof name !== 'string' || !isCommandName(name))
      return refuse(
        reply,
        `unknown command ${JSON.stringify(name ?? null)} (known: ${Object.keys(COMMANDS).join(', ')})`,
        'INVALID_ARGUMENT',
      );
    const args = body?.args ?? {};
    if (!checks[name].Check(args)) {
      const first = [...checks[name].Errors(args)][0];
      return refuse(
        reply,
        `${name}: arguments${first?.instancePath ?? ''} ${first?.message ?? 'not valid'}`,
        'INVALID_ARGUMENT',
      );
    }
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      'Content-Type': 'application/x-ndjson; charset=utf-8',
      'Cache-Control': 'no-store',
    });
    // The headers go out before the command starts: a CLI that got no byte of an answer knows nothing
    // ran here, and may take the directory over when this process is gone (cli/control.ts).
    const sent = await new Promise<boolean>((resolve) => {
      response.once('close', () => resolve(false));
      response.write('', (error) => resolve(!error));
    });
    if (!sent) return;
    const send = (line: ControlLine) => response.write(`${JSON.stringify(line)}\n`);
    const out = { ...coalesced(send), drain: () => drained(response) };
    const definition = COMMANDS[name] as { run: (...a: unknown[]) => Promise<unknown> };
    try {
      const result = await definition.run(options.context(), args, out);
      out.flush();
      send({ exit: 0, result: result ?? null });
    } catch (error) {
      const failure = failureOf(error);
      if (failure.bug) options.log?.(error);
      out.flush();
      send({
        exit: failure.exit,
        error: failure.bug
          ? 'internal error in the running instance: the details are in its log'
          : failure.message,
      });
    }
    response.end();
  }

  return {
    async close() {
      closing = true;
      await commands.idle();
      await Promise.race([
        answers.idle(),
        new Promise((resolve) => setTimeout(resolve, ANSWER_GRACE_MS).unref()),
      ]);
    },
  };
}

/**
 * Resolves once the answer's queued bytes went out to the CLI (`'drain'`), at once when few are queued;
 * rejects when the CLI went away, so a command waiting here (a large `export -`) ends instead of holding
 * the instance's memory, or its store, for a reader that is gone.
 */
function drained(response: ServerResponse): Promise<void> {
  const gone = () => new CommandError('the command line stopped reading the answer');
  if (response.destroyed || response.writableEnded) return Promise.reject(gone());
  if (!response.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (): void => {
      off();
      resolve();
    };
    const closed = (): void => {
      off();
      reject(gone());
    };
    const off = (): void => {
      response.off('drain', done);
      response.off('close', closed);
    };
    response.once('drain', done);
    response.once('close', closed);
  });
}

/** A count of work under way, and a promise for when none is. */
class InFlight {
  private count = 0;
  private waiting: (() => void)[] = [];

  /** One more under way; the function returned ends it (calling it again does nothing). */
  enter(): () => void {
    this.count++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (--this.count === 0) for (const resolve of this.waiting.splice(0)) resolve();
    };
  }

  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }
}

/** Text of one stream sent once it reaches this size, or when the other stream speaks, or at the end. */
const CHUNK = 64 * 1024;

/**
 * An export writes a snapshot in thousands of small pieces: one line each would cost more than the
 * export. Consecutive text of one stream goes out as one line of about CHUNK characters (a slice of an
 * export is cut into such lines, so the CLI never gathers a long one); stdout and stderr keep their
 * order. At most CHUNK waits here; what went out waits in the response until the CLI reads it (`drained`).
 */
function coalesced(send: (line: ControlLine) => void): CommandOutput & { flush(): void } {
  let stream: 'stdout' | 'stderr' = 'stdout';
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    send(stream === 'stdout' ? { stdout: pending } : { stderr: pending });
    pending = '';
  };
  const write = (to: 'stdout' | 'stderr', text: string) => {
    if (to !== stream) flush();
    stream = to;
    pending += text;
    // Progress lines show as they happen; bulk output goes in chunks.
    if (to === 'stderr') return flush();
    while (pending.length >= CHUNK) {
      // Never between the two halves of a surrogate pair: the CLI writes each line out as UTF-8 alone.
      const cut = isHighSurrogate(pending.charCodeAt(CHUNK - 1)) ? CHUNK - 1 : CHUNK;
      send({ stdout: pending.slice(0, cut) });
      pending = pending.slice(cut);
    }
  };
  return { stdout: (text) => write('stdout', text), stderr: (text) => write('stderr', text), flush };
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
