/**
 * The remote Dataset Health service, simulated: a Fastify app (it never listens; `server.ts` does)
 * serving a live `SimulatedOrg` at the spec's v2 paths, for trying and testing the sync against
 * something that changes, fails and misbehaves on demand. Each request goes: log, latency, key
 * (401), queued fault, random transient fault, then the endpoint.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import type { SupplierOutage } from '../outages';
import { Rng, hash32 } from '../random';
import { type SimClock, createSimClock } from './clock';
import { SimError, sendSimError } from './errors';
import { type Fault, FaultQueue, type SimRoute, transientFault } from './faults';
import { SimulatedOrg } from './org';
import { DEFAULT_MAX_PAGE_SIZE, PARAMETER_RULES } from './params';
import { SIM_PATHS, registerSimRoutes } from './routes';

export interface SimulatorOptions {
  /** Datasets of the org (default 500), its seed (default 1), id, fail rate and history depth. */
  datasets?: number;
  seed?: number;
  orgId?: string;
  failRate?: number;
  historyDepth?: number;
  /** Supplier outages beside the seeded ones (see SimulatedOrgOptions). */
  outages?: readonly SupplierOutage[];
  /** An org built beforehand (then the six options above are not used): tests share a large one. */
  org?: SimulatedOrg;
  /** Simulated time (default: real time). */
  clock?: SimClock;
  /** The key every request must carry as `Authorization: Bearer <apiKey>`. */
  apiKey: string;
  /** Real milliseconds each answer is delayed by, through `sleep`. */
  latencyMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Share of requests (0–1) answered with a random transient fault (503, 500, 429). */
  errorRate?: number;
  /** Largest `pageSize` accepted; larger ones get 400 (default 1000). */
  maxPageSize?: number;
  /** Refuse every `filter` with 400, like a service without filtering. */
  rejectFilter?: boolean;
  /** Add an unknown field (`x-sim`) to every record, event and task. */
  extraFields?: boolean;
}

/** One request as the simulator saw it; `status` stays 0 when it got no answer (hang, reset). */
export interface RequestLogEntry {
  method: string;
  url: string;
  status: number;
  /** Simulated time of arrival. */
  at: number;
}

const MAX_LOGGED_REQUESTS = 10_000;

export interface SimulatorState {
  org: SimulatedOrg;
  clock: SimClock;
  faults: FaultQueue;
  requests: RequestLogEntry[];
}

export type SimulatorApp = FastifyInstance & { simulator: SimulatorState };

const ROUTES: Record<string, SimRoute> = {
  [SIM_PATHS.list]: 'list',
  [SIM_PATHS.dataset]: 'dataset',
  [SIM_PATHS.tasks]: 'tasks',
};

const CHALLENGE = { 'WWW-Authenticate': 'Bearer' };

const FAULT_MESSAGES: Record<number, string> = {
  429: 'too many requests (simulated fault): retry later',
  500: 'internal error (simulated fault)',
  503: 'the service is temporarily unavailable (simulated fault)',
};

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** Checks the bearer key in constant time (comparing digests, so lengths never leak either). */
function authenticate(header: string | undefined, expected: Buffer): void {
  if (header === undefined || header === '')
    throw new SimError(
      401,
      'missing Authorization header: send "Authorization: Bearer <key>"',
      undefined,
      CHALLENGE,
    );
  const match = /^Bearer +(\S+)$/i.exec(header.trim());
  if (match === null)
    throw new SimError(401, 'malformed Authorization header: expected "Bearer <key>"', undefined, CHALLENGE);
  if (!timingSafeEqual(digest(match[1]!), expected))
    throw new SimError(401, 'the API key is not valid for this org', undefined, CHALLENGE);
}

export function buildSimulatorApp(options: SimulatorOptions): SimulatorApp {
  const org =
    options.org ??
    new SimulatedOrg({
      datasets: options.datasets ?? 500,
      seed: options.seed ?? 1,
      orgId: options.orgId,
      failRate: options.failRate,
      historyDepth: options.historyDepth,
      outages: options.outages,
    });
  const clock = options.clock ?? createSimClock({ now: Date.now });
  const latencyMs = options.latencyMs ?? 0;
  const sleep = options.sleep ?? sleepFor;
  const errorRate = options.errorRate ?? 0;
  if (!(errorRate >= 0 && errorRate <= 1)) throw new RangeError('errorRate must be between 0 and 1');
  if (!(latencyMs >= 0)) throw new RangeError('latencyMs must be non-negative');
  if (options.apiKey === '') throw new RangeError('apiKey must not be empty');
  const expectedKey = digest(options.apiKey);
  const rng = new Rng(hash32(org.seed, 0xe77e));
  const state: SimulatorState = { org, clock, faults: new FaultQueue(), requests: [] };
  const logged = new WeakMap<IncomingMessage, RequestLogEntry>();
  const bodyFaults = new WeakMap<IncomingMessage, Fault>();
  let releaseHangs: () => void = () => {};
  const closing = new Promise<void>((resolve) => (releaseHangs = resolve));

  // The state rides on the root instance (no plugins here, so no encapsulation to decorate through).
  const app: SimulatorApp = Object.assign(
    Fastify({
      logger: false,
      // Hung requests must not hold close() forever: their connections are destroyed.
      forceCloseConnections: true,
      routerOptions: { maxParamLength: 2048 },
    }),
    { simulator: state },
  );

  app.addHook('onRequest', async (request, reply) => {
    const entry: RequestLogEntry = { method: request.method, url: request.url, status: 0, at: clock.now() };
    state.requests.push(entry);
    // A long-running simulator (the app's built-in demo) keeps only the newest entries.
    if (state.requests.length > MAX_LOGGED_REQUESTS)
      state.requests.splice(0, state.requests.length - MAX_LOGGED_REQUESTS);
    logged.set(request.raw, entry);
    if (latencyMs > 0) await sleep(latencyMs);
    authenticate(request.headers.authorization, expectedKey);
    const route = ROUTES[request.routeOptions.url ?? ''];
    if (route === undefined) return;
    const hasPageToken = Boolean((request.query as { pageToken?: unknown }).pageToken);
    const fault =
      state.faults.take(route, { hasPageToken }) ??
      (errorRate > 0 && rng.chance(errorRate) ? transientFault(rng) : undefined);
    if (fault !== undefined) return applyFault(fault, request.raw, reply);
  });
  app.addHook('onSend', async (request, reply, payload) => {
    const entry = logged.get(request.raw);
    if (entry !== undefined) entry.status = reply.statusCode;
    return payload;
  });
  app.addHook('preClose', async () => releaseHangs());

  /** Answers (or drops) the request for a fault; body faults are left to the endpoint. */
  async function applyFault(fault: Fault, raw: IncomingMessage, reply: FastifyReply) {
    switch (fault.kind) {
      case 'status': {
        const headers: Record<string, string> =
          fault.retryAfter === undefined ? {} : { 'Retry-After': String(fault.retryAfter) };
        const message = FAULT_MESSAGES[fault.status] ?? `simulated fault: HTTP ${fault.status}`;
        throw new SimError(fault.status, message, undefined, headers);
      }
      case 'hang':
        await closing;
        reply.hijack();
        reply.raw.destroy();
        return reply;
      case 'reset':
        reply.hijack();
        reply.raw.destroy();
        return reply;
      case 'non-json':
        return reply
          .code(200)
          .type('text/html; charset=utf-8')
          .send('<!doctype html><html><body><h1>Service maintenance</h1></body></html>');
      case 'wrong-shape':
        return reply.code(200).type('application/json; charset=utf-8').send('{"items":{}}');
      case 'repeat-token':
      case 'drop-dataset-id':
        bodyFaults.set(raw, fault);
        return undefined;
    }
  }

  app.setErrorHandler((error: FastifyError | SimError, _request, reply) => {
    if (error instanceof SimError) return sendSimError(reply, error);
    if (error.validation) {
      const first = error.validation[0];
      const field = first?.instancePath.split('/')[1] || String(first?.params?.missingProperty ?? 'query');
      return sendSimError(reply, new SimError(400, PARAMETER_RULES[field] ?? `${field} is not valid`, field));
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendSimError(reply, new SimError(status, error.message));
    return sendSimError(reply, new SimError(500, 'internal error of the simulator'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendSimError(
      reply,
      new SimError(404, `no such endpoint: ${request.method} ${request.url.split('?')[0]}`),
    ),
  );

  registerSimRoutes(app, {
    org,
    clock,
    maxPageSize: options.maxPageSize ?? DEFAULT_MAX_PAGE_SIZE,
    rejectFilter: options.rejectFilter ?? false,
    extraFields: options.extraFields ?? false,
    bodyFault: (request) => bodyFaults.get(request.raw),
  });
  return app;
}
