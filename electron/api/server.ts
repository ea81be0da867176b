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
  options: Omit<ApiOptions, 'port'> & { port: number },
): Promise<ApiServer> {
  let port = options.port;
  const app = await buildApi({ ...options, port: () => port });
  try {
    await app.listen({ host: '127.0.0.1', port: options.port });
  } catch (error) {
    await app.close();
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new PortInUseError(
        `port ${options.port} is in use on 127.0.0.1; pass --port 0 to pick a free one`,
      );
    }
    throw error;
  }
  port = (app.server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, close: () => app.close() };
}
