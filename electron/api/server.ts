/** Listens with the API app on 127.0.0.1 and closes gracefully (the app itself never listens). */
import type { AddressInfo } from 'node:net';
import { type ApiOptions, buildApi } from './app';

export const DEFAULT_API_PORT = 47800;

export interface ApiServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export class PortInUseError extends Error {}

export async function startApiServer(
  options: Omit<ApiOptions, 'port'> & {
    port: number;
    /** The address to listen on (default 127.0.0.1: this machine only; `team serve --listen`). */
    host?: string;
  },
): Promise<ApiServer> {
  let port = options.port;
  const host = options.host ?? '127.0.0.1';
  const everywhere = host === '0.0.0.0' || host === '::';
  // Where this machine reaches it: loopback when it listens everywhere, else the address it listens on.
  const local = everywhere ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const app = await buildApi({
    ...options,
    port: () => port,
    extraHosts: { ...options.extraHosts, address: everywhere ? undefined : local.toLowerCase() },
  });
  try {
    await app.listen({ host, port: options.port });
  } catch (error) {
    await app.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new PortInUseError(`port ${options.port} is in use on ${host}; pass --port 0 to pick a free one`);
    }
    throw error;
  }
  port = (app.server.address() as AddressInfo).port;
  return { url: `http://${local}:${port}`, port, close: () => app.close() };
}
