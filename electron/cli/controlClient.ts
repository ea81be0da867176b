/**
 * The CLI's side of the control channel: hands one command to the running instance and prints its
 * answer as it streams. Node's own HTTP client, not fetch: a fetch whose connection is reset at the
 * wrong moment (the instance killed while the request is sent) can stay unsettled, and the CLI then
 * exits 13 without a word.
 */
import { type IncomingMessage, request } from 'node:http';
import { CommandError, type CommandOutput, CommandUsageError } from '../control/command';
import type { CommandName } from '../control/commands';
import { COMMAND_MODULES } from './commandModules';
import { CONTROL_HEADER, CONTROL_PATH, type ControlLine } from '../control/protocol';
import type { ControlInfo } from '../store/instance/controlFile';

/**
 * How a hand-over went: the command's result, or not a byte of an answer — the instance is shutting
 * down (503), or its connection failed first. Then nothing ran there: it sends its answer's headers
 * before it starts a command (control/server.ts).
 */
export type HandOver =
  { answered: true; result: unknown } | { answered: false; shuttingDown: boolean; detail: string };

/** Runs the command in the instance; its failure, a refusal, or a cut-off answer is a `CommandError`. */
export async function handOver(
  out: CommandOutput,
  control: ControlInfo,
  name: CommandName,
  args: unknown,
): Promise<HandOver> {
  let response: IncomingMessage;
  try {
    response = await post(control, JSON.stringify({ command: name, args }));
  } catch (error) {
    return { answered: false, shuttingDown: false, detail: describe(error) };
  }
  const who = `the running ${control.purpose} (process ${control.pid})`;
  if (response.statusCode === 503) {
    // Ours while the instance stops (or Fastify's own, once its API closes).
    response.resume();
    return { answered: false, shuttingDown: true, detail: 'shutting down' };
  }
  if (response.statusCode !== 200) {
    const text = await textOf(response).catch(() => '');
    let message = text.trim() || String(response.statusMessage);
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // Not our error shape: the text as it came.
    }
    throw new CommandError(`${who} refused the command: ${message}`);
  }
  const unknown = async (cause: string): Promise<CommandError> => {
    const definition = (await COMMAND_MODULES[name]()) as { ifOutcomeUnknown(args: unknown): string };
    return new CommandError(
      `${who} stopped answering before the command ended (${cause}): whether it was done is unknown; ${definition.ifOutcomeUnknown(args)}`,
    );
  };
  return { answered: true, result: await readAnswer(out, response, unknown) };
}

/** The answer once its headers are in; rejected when the connection fails before them. */
function post(control: ControlInfo, body: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const sent = request(
      `${control.url}${CONTROL_PATH}`,
      {
        method: 'POST',
        // One connection per command, closed with it: nothing kept open keeps the CLI from exiting.
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          [CONTROL_HEADER]: control.secret,
        },
      },
      resolve,
    );
    // After the headers, a broken connection is the answer stream's error (readAnswer).
    sent.on('error', reject);
    sent.end(body);
  });
}

async function textOf(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response) text += String(chunk);
  return text;
}

/** Prints the streamed lines as they arrive; the last one says how the command ended. */
async function readAnswer(
  out: CommandOutput,
  body: IncomingMessage,
  unknown: (cause: string) => Promise<CommandError>,
): Promise<unknown> {
  body.setEncoding('utf8');
  let pending = '';
  const lines = async function* () {
    for await (const chunk of body as AsyncIterable<string>) {
      pending += chunk;
      const parts = pending.split('\n');
      pending = parts.pop()!;
      yield* parts;
    }
  };
  try {
    for await (const text of lines()) {
      if (text === '') continue;
      const line = JSON.parse(text) as ControlLine;
      if ('stdout' in line) {
        out.stdout(line.stdout);
        // Read no further than our own stdout takes: the instance then waits too (a large `export -`).
        if (out.drain) await out.drain();
      } else if ('stderr' in line) out.stderr(line.stderr);
      else if (line.exit === 0) return line.result;
      else if (line.exit === 2) throw new CommandUsageError(line.error);
      else throw new CommandError(line.error);
    }
  } catch (error) {
    if (error instanceof CommandError) throw error;
    throw await unknown(`its answer broke off: ${describe(error)}`);
  }
  throw await unknown('its answer ended early');
}

function describe(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' ? code : String(message ?? error);
}
