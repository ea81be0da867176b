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
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

  app.post<{ Params: { call: string } }>('/rpc/:call', async (request, reply) => {
    if (!signedIn(request)) return sendRpcError(reply, NOT_SIGNED_IN);
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

  const streams = new Set<ServerResponse>();
  app.get('/rpc/events', (request, reply) => {
    if (!signedIn(request)) return sendRpcError(reply, NOT_SIGNED_IN);
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
  // Open streams would hold the server's close forever.
  app.addHook('preClose', async () => {
    for (const stream of streams) stream.end();
  });
}
