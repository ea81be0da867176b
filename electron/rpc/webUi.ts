/**
 * The HTTP transport of the RPC contract and the built renderer, on the local API's port (`serve --ui`):
 * `GET /?token=…` trades the one-time token for the session cookie; `POST /rpc/<call>` runs a call;
 * `GET /rpc/events` streams the engine's events as server-sent events. Without the cookie every RPC
 * request is 401. The API's Host/Origin checks run first (app.ts), and a SameSite=Strict cookie is
 * never sent by another site, so no other page can drive the engine.
 */
import type { ServerResponse } from 'node:http';
import cookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { bodyTooLargeMessage } from '../../shared/bodyLimit';
import { RpcError, type RpcErrorCode } from '../../shared/rpc';
import { type Dispatch, errorBody, toRpcError } from './dispatch';
import type { EventHub } from './events';
import { type UiSessions, sessionCookie } from './sessions';

export interface WebUiOptions {
  rendererDir: string;
  dispatch: Dispatch;
  events: EventHub;
  sessions: UiSessions;
  /** The port the server listens on (known once it listens). */
  port: () => number;
}

const HTTP_STATUS: Record<RpcErrorCode, number> = {
  'invalid-argument': 400,
  unauthenticated: 401,
  'not-found': 404,
  'too-large': 413,
  unavailable: 503,
  internal: 500,
};

const EVENT_STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-store',
};

/** Comments keep idle proxies and browsers from closing the stream. */
const HEARTBEAT_MS = 25_000;

/** The window recognises this answer by its start, "not signed in" (renderer/src/lib/errors.ts). */
const NOT_SIGNED_IN = new RpcError(
  'unauthenticated',
  'not signed in: open the Web UI link that `dataset-health serve --ui` printed',
);

function sendRpcError(reply: FastifyReply, error: RpcError): FastifyReply {
  return reply.code(HTTP_STATUS[error.code]).type('application/json').send(errorBody(error));
}

export async function registerWebUi(app: FastifyInstance, options: WebUiOptions): Promise<void> {
  const { sessions } = options;
  const signedIn = (request: FastifyRequest): boolean =>
    sessions.isValid(request.cookies[sessionCookie(options.port())]);
  await app.register(cookie);

  // The token link: set the cookie and drop the token from the address bar (and history).
  app.addHook('onRequest', async (request, reply) => {
    if (request.method !== 'GET') return;
    const url = new URL(request.url, 'http://localhost');
    const token = url.searchParams.get('token');
    if (url.pathname !== '/' || token === null) return;
    const session = sessions.exchange(token);
    if (session === null) {
      if (signedIn(request)) return reply.redirect('/', 303);
      return reply
        .code(401)
        .type('text/plain; charset=utf-8')
        .send(
          'This Web UI link was already used or is not valid. Run `dataset-health ui` for a new one (with the --data-dir serve was given, if any; --open opens it here).\n',
        );
    }
    reply.setCookie(sessionCookie(options.port()), session, {
      httpOnly: true,
      sameSite: 'strict',
      path: '/',
    });
    return reply.redirect('/', 303);
  });

  await app.register(fastifyStatic, {
    root: options.rendererDir,
    prefix: '/',
    wildcard: false,
    // The page's own meta policy cannot forbid framing; the header can.
    setHeaders: (response) => response.setHeader('Content-Security-Policy', "frame-ancestors 'none'"),
  });

  const streams = new Set<ServerResponse>();
  await app.register(async (rpc) => {
    // The cookie is checked before the body is read: a stranger's broken or huge body is still a 401.
    rpc.addHook('onRequest', async (request, reply) => {
      if (!signedIn(request)) return sendRpcError(reply, NOT_SIGNED_IN);
    });
    rpc.removeContentTypeParser('application/json');
    rpc.addContentTypeParser(
      'application/json',
      { parseAs: 'string' },
      async (_request: FastifyRequest, body: string) => parseRequestBody(body),
    );
    // Whatever Fastify refuses here (body too large, wrong type) is answered in the RPC's shape.
    rpc.setErrorHandler((error: FastifyError | RpcError, request, reply) => {
      // The API's Host/Origin guard (403) keeps its own shape: rethrown, the API's handler answers it.
      if (!(error instanceof RpcError) && error.statusCode === 403) throw error;
      return sendRpcError(reply, rpcErrorOf(error, app.initialConfig.bodyLimit ?? 0, request.log));
    });

    rpc.post<{ Params: { call: string } }>('/rpc/:call', async (request, reply) => {
      try {
        const result = await options.dispatch(request.params.call, request.body);
        return reply.type('application/json').send({ result: result ?? null });
      } catch (error) {
        return sendRpcError(
          reply,
          toRpcError(error, (e) => request.log.error({ err: e }, 'RPC call failed')),
        );
      }
    });

    rpc.get('/rpc/events', (request, reply) => {
      // HEAD (Fastify answers it with this handler) gets the stream's headers and ends at once: it has
      // no body to stream, and a hijacked HEAD would never end.
      if (request.method === 'HEAD') return reply.code(200).headers(EVENT_STREAM_HEADERS).send();
      reply.hijack();
      const response = reply.raw;
      response.writeHead(200, { ...EVENT_STREAM_HEADERS, Connection: 'keep-alive' });
      response.write(': connected\n\n');
      const unsubscribe = options.events.subscribe((name, payload) =>
        response.write(`event: ${name}\ndata: ${JSON.stringify(payload)}\n\n`),
      );
      const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
      streams.add(response);
      request.raw.on('close', () => {
        clearInterval(heartbeat);
        unsubscribe();
        streams.delete(response);
      });
    });
  });
  // Open streams would hold the server's close forever.
  app.addHook('preClose', async () => {
    for (const stream of streams) stream.end();
  });
}

/**
 * A request body as JSON. Keys that could reach an object's prototype (`__proto__`,
 * `constructor.prototype`) are refused by name: no call takes them, and "not valid JSON" would be wrong.
 */
function parseRequestBody(body: string): unknown {
  if (body.trim() === '') {
    throw new RpcError('invalid-argument', 'the request body is empty: send JSON (null for no request)');
  }
  try {
    return JSON.parse(body, (key, value: unknown) => {
      const prototype =
        key === '__proto__' ||
        (key === 'constructor' &&
          typeof value === 'object' &&
          value !== null &&
          Object.hasOwn(value, 'prototype'));
      if (prototype) throw new RpcError('invalid-argument', `the request may not contain the key '${key}'`);
      return value;
    });
  } catch (error) {
    if (error instanceof RpcError) throw error;
    throw new RpcError('invalid-argument', `the request body is not valid JSON: ${(error as Error).message}`);
  }
}

function rpcErrorOf(error: FastifyError | RpcError, bodyLimit: number, log: FastifyBaseLogger): RpcError {
  if (error instanceof RpcError) return error;
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new RpcError('too-large', bodyTooLargeMessage(bodyLimit));
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new RpcError('invalid-argument', error.message);
  return toRpcError(error, (e) => log.error({ err: e }, 'RPC request failed'));
}
