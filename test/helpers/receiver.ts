/**
 * A real HTTP receiver on loopback (port 0) for the route tests: it records every request and answers as
 * the test says — a status, no answer at all (`hang`), or a connection cut without an answer (`cut`).
 */
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** The body as JSON (null when it is not). */
  json: Record<string, unknown> | null;
}

export type Answer = 'hang' | 'cut' | { status: number; headers?: Record<string, string> };

export interface Receiver {
  url: string;
  requests: Received[];
  /** Requests answered with a 2xx. */
  accepted: Received[];
  /** Resolves when the receiver has `count` requests. */
  received(count: number): Promise<void>;
  /** Ends every hanging request by cutting its connection. */
  cutHanging(): void;
  close(): Promise<void>;
}

/** Starts a receiver whose answer to each request `answer` decides (`n` counts from 1). */
export async function startReceiver(answer: (request: Received, n: number) => Answer): Promise<Receiver> {
  const requests: Received[] = [];
  const accepted: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      let json: Record<string, unknown> | null = null;
      try {
        json = JSON.parse(body) as Record<string, unknown>;
      } catch {
        json = null;
      }
      const request: Received = { method: req.method ?? '', headers: req.headers, body, json };
      requests.push(request);
      const reply = answer(request, requests.length);
      if (reply === 'hang') hanging.add(res);
      else if (reply === 'cut') req.socket.destroy();
      else {
        if (reply.status >= 200 && reply.status < 300) accepted.push(request);
        res.writeHead(reply.status, reply.headers).end('ok');
      }
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    accepted,
    received: (count) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise((resolve) => waiters.push({ count, resolve })),
    cutHanging: () => {
      for (const res of hanging) res.socket?.destroy();
      hanging.clear();
    },
    close: async () => {
      for (const res of hanging) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An address where nothing listens: a receiver started and closed (connection refused). */
export async function refusingUrl(): Promise<string> {
  const receiver = await startReceiver(() => ({ status: 200 }));
  await receiver.close();
  return receiver.url;
}
