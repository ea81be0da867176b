/**
 * The team server's exchange of operations (docs/decisions.md "On call as a team: operations"),
 * beside its v2 API: a member pushes the operations of its outbox and pulls the team's, by cursor.
 *
 * - `POST /team/v1/operations` `{ "operations": [...] }`: stored whole or not at all. Each must be of
 *   the token's org and by its member (a viewer pushes nothing); a retried push stores nothing new.
 *   Answers the operations stored, with their numbers.
 * - `GET /team/v1/operations?after=N&limit=M`: the token's org's operations after number N, oldest
 *   first, and the cursor to ask after next.
 * - `GET /team/v1/me`: who the token speaks for (org, member, role): what `team join` asks first.
 * - `GET /team/v1/events`: a server-sent event stream that says `operations` each time the org has new
 *   ones, pushed through this server or any other on the database (NOTIFY): a member pulls then,
 *   instead of polling.
 *
 * Every request carries a team token (`Authorization: Bearer dht_…`); the token, not the request,
 * says which org and which member.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { TEAM_PATHS, TeamOperation, operationProblem } from '../../shared/team';
import type { TeamDatabase } from '../store/teamDb/driver';
import {
  OPERATIONS_CHANNEL,
  OperationConflict,
  appendOperations,
  operationsAfter,
} from '../store/teamDb/operations';
import type { ServerResponse } from 'node:http';
import { type TeamCaller, authenticateTeamToken } from '../store/teamDb/tokens';
import { pushProblem } from '../team/access';
import { MAX_AHEAD_MS, parseReading } from '../team/clock';
import { ApiError } from './errors';

export const TEAM_OPERATIONS_PATH = TEAM_PATHS.operations;
export const TEAM_EVENTS_PATH = TEAM_PATHS.events;
const TEAM_ME_PATH = TEAM_PATHS.me;
/** Comments keep idle proxies from closing a member's stream (and a revoked token's stream ends then). */
const HEARTBEAT_MS = 25_000;
/** Event streams one token may hold open at once. */
export const MAX_STREAMS_PER_TOKEN = 4;
/** Most operations one push carries (a member's outbox after a long offline stretch goes in several). */
export const MAX_PUSH = 500;
/** Most operations one pull answers, and the default. */
export const MAX_PULL = 1000;

const PushBody = Type.Object(
  { operations: Type.Array(TeamOperation, { maxItems: MAX_PUSH }) },
  { additionalProperties: false },
);
const checkPush = Compile(PushBody);

export interface TeamRouteOptions {
  db: TeamDatabase;
  now: () => Date;
  /** How often a stream's heartbeat is sent, its token checked again (tests: shorter). */
  heartbeatMs?: number;
}

/** The schema's first complaint about a push, where it is. */
function pushError(body: unknown): ApiError {
  const [first] = [...checkPush.Errors(body)];
  const where = first?.instancePath ? `at ${first.instancePath}` : 'in the body';
  return new ApiError(
    'INVALID_ARGUMENT',
    `not a push of team operations: ${first?.message ?? 'expected { "operations": [...] }'} ${where}`,
    'operations',
  );
}

/**
 * Why a push's clock readings cannot be taken, or null: each must be a real time, and not over an hour
 * past the server's clock. A reading far ahead would win every later-writer comparison (team/converge.ts)
 * for as long as it stays ahead, so a colleague's withdrawal could not undo it (one computer with its
 * date set a year on would pin a failure's state for a year).
 */
function clockProblem(operations: readonly TeamOperation[], now: Date): string | null {
  for (const op of operations) {
    const reading = parseReading(op.at);
    if (reading === null) return `operation ${op.opId} has no real time: ${JSON.stringify(op.at)}`;
    if (reading.wall > now.getTime() + MAX_AHEAD_MS)
      return `operation ${op.opId} is dated ${op.at}, over an hour after the team server's clock (${now.toISOString()}): check this computer's date and time`;
  }
  return null;
}

/** A whole non-negative number from the query, or `fallback` when absent. */
function wholeNumber(value: unknown, field: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number > max)
    throw new ApiError('INVALID_ARGUMENT', `${field} must be a whole number from 0 to ${max}`, field);
  return number;
}

/** Who a team token speaks for on the v2 API (ApiOptions.teamTokens): its org, as a key would. */
export function teamTokenAuth(
  db: TeamDatabase,
  now: () => Date,
): (token: string) => Promise<{ keyId: string; orgId: string } | null> {
  return async (token) => {
    const who = await authenticateTeamToken(db, token, now());
    return who === null ? null : { keyId: `team:${who.tokenId}`, orgId: who.orgId };
  };
}

export async function registerTeamRoutes(app: FastifyInstance, options: TeamRouteOptions): Promise<void> {
  const { db, now } = options;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;

  const caller = async (request: FastifyRequest): Promise<TeamCaller> => {
    const match = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '');
    if (match === null)
      throw new ApiError(
        'UNAUTHENTICATED',
        'a team token is needed: Authorization: Bearer dht_…',
        undefined,
        {
          'WWW-Authenticate': 'Bearer',
        },
      );
    const who = await authenticateTeamToken(db, match[1]!, now());
    if (who === null)
      throw new ApiError('UNAUTHENTICATED', 'this team token is unknown or was revoked', undefined, {
        'WWW-Authenticate': 'Bearer',
      });
    return who;
  };

  app.post(TEAM_OPERATIONS_PATH, async (request) => {
    const who = await caller(request);
    const body = request.body;
    if (!checkPush.Check(body)) throw pushError(body);
    for (const op of body.operations) {
      const wrong = operationProblem(op);
      if (wrong !== null) throw new ApiError('INVALID_ARGUMENT', wrong, 'operations');
    }
    const problem = pushProblem(who, body.operations);
    if (problem !== null) throw new ApiError('FORBIDDEN', problem);
    const late = clockProblem(body.operations, now());
    if (late !== null) throw new ApiError('INVALID_ARGUMENT', late, 'at');
    try {
      const stored = await appendOperations(db, body.operations);
      return { stored: stored.map(({ opId, seq }) => ({ opId, seq })) };
    } catch (error) {
      if (error instanceof OperationConflict)
        throw new ApiError('INVALID_ARGUMENT', error.message, 'operations', {}, 409);
      throw error;
    }
  });

  // One listener for the server; each stream is told of its own org's operations only.
  const streams = new Map<ServerResponse, string>();
  /** Open streams per token: a member's desktop needs one; a runaway script must not hold thousands. */
  const perToken = new Map<string, number>();
  const wake = (stream: ServerResponse, orgId: string): void =>
    void stream.write(`event: operations\ndata: ${JSON.stringify({ orgId })}\n\n`);
  const stopListening = await db.listen(
    OPERATIONS_CHANNEL,
    (orgId) => {
      for (const [stream, org] of streams) if (org === orgId) wake(stream, org);
    },
    // Listening again after a lost connection: what was pushed meanwhile went unheard, so every member pulls.
    () => {
      for (const [stream, org] of streams) wake(stream, org);
    },
  );
  // Open streams would hold the server's close forever.
  app.addHook('preClose', async () => {
    for (const stream of streams.keys()) stream.end();
  });
  app.addHook('onClose', async () => stopListening());

  app.get(TEAM_EVENTS_PATH, async (request, reply) => {
    const who = await caller(request);
    const open = perToken.get(who.tokenId) ?? 0;
    if (open >= MAX_STREAMS_PER_TOKEN)
      throw new ApiError(
        'RATE_LIMITED',
        `this token has ${open} event streams open already (at most ${MAX_STREAMS_PER_TOKEN}): close one first`,
        undefined,
        { 'Retry-After': String(HEARTBEAT_MS / 1000) },
      );
    perToken.set(who.tokenId, open + 1);
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')![1]!;
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    response.write(': connected\n\n');
    // Each heartbeat asks again whether the token holds: a revoked token's stream ends within one.
    const heartbeat = setInterval(() => {
      authenticateTeamToken(db, token, now()).then(
        (still) => (still === null ? response.end() : response.write(': keep-alive\n\n')),
        () => response.write(': keep-alive\n\n'),
      );
    }, heartbeatMs);
    streams.set(response, who.orgId);
    request.raw.on('close', () => {
      clearInterval(heartbeat);
      streams.delete(response);
      const left = (perToken.get(who.tokenId) ?? 1) - 1;
      if (left === 0) perToken.delete(who.tokenId);
      else perToken.set(who.tokenId, left);
    });
  });

  app.get(TEAM_ME_PATH, async (request) => {
    const { orgId, member, role } = await caller(request);
    return { orgId, member, role };
  });

  app.get(TEAM_OPERATIONS_PATH, async (request) => {
    const who = await caller(request);
    const query = request.query as Record<string, unknown>;
    const after = wholeNumber(query.after, 'after', 0, Number.MAX_SAFE_INTEGER);
    const limit = Math.max(1, wholeNumber(query.limit, 'limit', MAX_PULL, MAX_PULL));
    const operations = await operationsAfter(db, who.orgId, after, limit);
    return { orgId: who.orgId, operations, cursor: operations.at(-1)?.seq ?? after };
  });
}
