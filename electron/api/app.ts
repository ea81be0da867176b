/**
 * The local v2 API (and the read-only /local/v1 endpoints) as a Fastify app built by a factory that never listens (tests use inject(); the
 * server entry listens on 127.0.0.1). Order of checks: Host/Origin (403), method (405), key (401),
 * rate limit (429), parameters (400), then the query (404 or 200).
 */
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
} from 'fastify';
import type { Authenticated } from '../store/tables/apiKeys';
import type { Store } from '../store/database';
import { InvalidArgument } from '../query/errors';
import type { TasksReadThrough } from '../query/tasks';
import { Authenticator } from './auth';
import type { Socket } from 'node:net';
import {
  ApiError,
  bodyTooLarge,
  methodNotAllowed,
  parserRefusal,
  quote,
  rawErrorResponse,
  sendError,
} from './errors';
import { checkHostAndOrigin } from './guards';
import { OnCallKnowledge } from '../knowledge/service';
import { LOCAL_PATHS, registerLocalRoutes } from './localRoutes';
import { type RuleSet, defaultRuleSet } from '../../shared/rules';
import { registerRoutes, V2_PATHS } from './routes';
import { PARAMETER_RULES } from './schemas';
import { DEFAULT_RATE_LIMIT, type RateLimitOptions } from './rateLimit';
import { lazyCompilers } from './lazyCompilers';

declare module 'fastify' {
  interface FastifyRequest {
    auth?: Authenticated;
  }
}

export interface ApiOptions {
  store: Store;
  /** The port the server is reachable on (Host checks); a function when it is known only after listen. */
  port: number | (() => number);
  now?: () => Date;
  rateLimit?: RateLimitOptions;
  readThrough?: TasksReadThrough;
  logger?: FastifyBaseLogger | false;
  /** The on-call layer's answers (docs/architecture.md#the-on-call-layer); default: one of its own over the store, with no source states. */
  knowledge?: OnCallKnowledge;
  /**
   * On a team server: who a team token (`dht_…`) speaks for, so a member's desktop mirrors the org
   * through this API with its token (docs/decisions.md "On call as a team: members"); null for none.
   */
  teamTokens?: (token: string) => Promise<Authenticated | null>;
  /** Hosts served besides the loopback ones (`team serve --listen … --host-name …`), lower case. */
  extraHosts?: { address?: string; names?: readonly string[] };
  /** The default rules of an org that saved none (recoveries follow the settings; default: none). */
  ruleDefaults?: () => RuleSet;
  /** The user's zone, for the rules' replay (default: the system's). */
  timeZone?: string;
  /** More routes on the same server (the web UI of `serve --ui`), registered at the root. */
  extend?: (app: FastifyInstance, port: () => number) => Promise<void>;
}

const ALLOW = 'GET, HEAD';
/** The v2 and local paths as patterns (one path segment per id). */
const API_PATTERNS = [...Object.values(V2_PATHS), ...Object.values(LOCAL_PATHS)].map(
  (path) => new RegExp(`^${path.replace(/:[A-Za-z]+/g, '[^/]+')}$`),
);

export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const now = options.now ?? (() => new Date());
  // Tests and tools that build the API alone get an on-call layer of its own (no source states known).
  const knowledge =
    options.knowledge ?? new OnCallKnowledge({ store: options.store, now, sources: () => [] });
  const port = typeof options.port === 'number' ? () => options.port as number : options.port;
  const limits = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const app = Fastify({
    schemaController: { compilersFactory: lazyCompilers },
    loggerInstance: options.logger || undefined,
    routerOptions: { maxParamLength: 2048, ignoreTrailingSlash: false },
    return503OnClosing: true,
    // Quitting must not wait on a script's connection, idle or not: its sockets are closed with the server.
    forceCloseConnections: true,
    // Scripts may poll several times a second: log problems, not every request.
    logController: new LogController({ disableRequestLogging: true }),
    // A path with broken percent-encoding never reaches a route: answer it in our error shape too.
    frameworkErrors: (error, _request, reply) =>
      sendError(
        reply.header('Cache-Control', 'no-store'),
        // Fastify's message quotes the whole path: cut it to a readable length.
        new ApiError('INVALID_ARGUMENT', `the request path is not valid: ${quote(error.message)}`),
      ),
    // What Node's parser refuses (headers over 16 KB, NUL or non-ASCII in the request line, a method
    // it does not know) is answered in our error shape too, then the connection is closed.
    clientErrorHandler: (error, socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const { status, error: refusal } = parserRefusal(error);
      refuseSocket(socket, rawErrorResponse(refusal, status));
    },
  });
  // Node hands CONNECT to this event and closes the socket unanswered when nobody listens.
  app.server.on('connect', (_request, socket: Socket) =>
    refuseSocket(socket, rawErrorResponse(methodNotAllowed('CONNECT'))),
  );
  const authenticator = new Authenticator(options.store, now);

  app.addHook('onRequest', async (request) => {
    checkHostAndOrigin(request.headers.host, request.headers.origin, port(), options.extraHosts);
    // Refused here, not in the not-found handler: Fastify reads and parses the body of an unrouted
    // request before that handler runs, so an empty, broken or huge body would answer 400 instead.
    const path = request.url.split('?')[0] ?? '';
    const readOnly = request.method === 'GET' || request.method === 'HEAD';
    if (!readOnly && API_PATTERNS.some((pattern) => pattern.test(path))) {
      throw new ApiError(
        'METHOD_NOT_ALLOWED',
        `${request.method} is not allowed here: the API is read-only (GET, HEAD)`,
        undefined,
        { Allow: ALLOW },
      );
    }
    if (request.is404) throw noSuchEndpoint(request.method, path);
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('Cache-Control', 'no-store');
    return payload;
  });

  app.setErrorHandler((error: FastifyError | ApiError, request, reply) =>
    sendError(reply, toApiError(error, request.log, app.initialConfig.bodyLimit ?? 0)),
  );
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, noSuchEndpoint(request.method, request.url.split('?')[0] ?? '')),
  );

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Dataset Health local API',
        version: '2',
        description:
          'The remote Dataset Health v2 endpoints, served from the local mirror, and under /local/v1 what only the mirror knows (causes, acknowledgements, timelines), read-only. Bearer keys: `dataset-health keys create`.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
  });

  await app.register(async (v2) => {
    v2.addHook('onRequest', async (request) => {
      const team = /^Bearer +(dht_\S+)$/i.exec(request.headers.authorization?.trim() ?? '');
      if (team !== null && options.teamTokens) {
        const member = await options.teamTokens(team[1]!);
        if (member === null)
          throw new ApiError('UNAUTHENTICATED', 'this team token is unknown or was revoked', undefined, {
            'WWW-Authenticate': 'Bearer',
          });
        request.auth = member;
        return;
      }
      request.auth = await options.store.whenReadable(() =>
        authenticator.authenticate(request.headers.authorization),
      );
      // Outside the read: a write (bookkeeping) that waits for an export in progress, not the request.
      authenticator.noteUse(request.auth.keyId);
    });
    await v2.register(rateLimit, {
      hook: 'onRequest',
      // A token bucket of `burst` refilled at `perSecond`, approximated by a window of burst/perSecond seconds.
      max: limits.burst,
      timeWindow: Math.max(1, Math.round((limits.burst / limits.perSecond) * 1000)),
      keyGenerator: (request) => request.auth?.keyId ?? request.ip,
      errorResponseBuilder: (_request, context) =>
        new ApiError(
          'RATE_LIMITED',
          `rate limit of ${limits.perSecond} requests/s (bursts of ${limits.burst}) exceeded; retry after ${context.after}`,
          undefined,
          {
            'Retry-After': String(Math.max(1, Math.ceil(context.ttl / 1000))),
          },
        ),
    });
    registerRoutes(v2, { store: options.store, readThrough: options.readThrough });
    registerLocalRoutes(v2, options.store, knowledge, {
      defaults: options.ruleDefaults ?? (() => defaultRuleSet({ recoveryNotices: false })),
      timeZone: options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
  });

  app.get('/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await options.extend?.(app, port);
  return app;
}

const noSuchEndpoint = (method: string, path: string): ApiError =>
  new ApiError('NOT_FOUND', `no such endpoint: ${method} ${quote(path)}`);

/** Answers on a socket no request owns, and closes it once the answer is out. */
function refuseSocket(socket: Socket, response: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(response, () => socket.destroy());
}

function toApiError(error: FastifyError | ApiError, log: FastifyBaseLogger, bodyLimit: number): ApiError {
  if (error instanceof ApiError) return error;
  // A route that reads a body (the control channel's POST): Fastify's "Request body is too large" was a 400.
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return bodyTooLarge(bodyLimit);
  if (error instanceof InvalidArgument) return new ApiError('INVALID_ARGUMENT', error.message, error.field);
  if ('validation' in error && error.validation) {
    const first = error.validation[0];
    const field = first?.instancePath.split('/')[1] ?? first?.params?.missingProperty;
    const name = typeof field === 'string' ? field : 'query';
    // A value over its length limit is neither repeated nor malformed: say so, with the limit.
    if (first?.keyword === 'maxLength') {
      return new ApiError(
        'INVALID_ARGUMENT',
        `${name} is too long: at most ${String(first.params.limit)} characters`,
        name,
      );
    }
    return new ApiError(
      'INVALID_ARGUMENT',
      PARAMETER_RULES[name] ?? `${name}: ${first?.message ?? 'invalid'}`,
      name,
    );
  }
  const status = error.statusCode ?? 500;
  if (status === 404) return new ApiError('NOT_FOUND', error.message);
  if (status >= 400 && status < 500) return new ApiError('INVALID_ARGUMENT', error.message);
  log.error({ err: error }, 'unexpected error in the local API');
  return new ApiError('INTERNAL', 'internal error: the details are in the log');
}
