/**
 * DNS-rebinding and cross-site defences (docs/api.md#host-and-origin): only loopback Host values with our port are
 * served, and a request carrying an Origin other than our own UI's is refused.
 */
import { ApiError } from './errors';

export function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

export function loopbackOrigins(port: number): Set<string> {
  return new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`]);
}

/**
 * `extra`, for a team server that listens beyond loopback (`team serve --listen`): the address it listens
 * on, served with its port, and the names members reach it by (`--host-name`), served with the port or
 * without one (a TLS proxy in front forwards `Host: team.example`).
 */
export function checkHostAndOrigin(
  host: string | undefined,
  origin: string | undefined,
  port: number,
  extra: { address?: string; names?: readonly string[] } = {},
): void {
  const served = (name: string) =>
    loopbackHosts(port).has(name) ||
    (extra.address !== undefined && name === `${extra.address}:${port}`) ||
    (extra.names ?? []).some((each) => name === each || name === `${each}:${port}`);
  if (host === undefined || !served(host.toLowerCase())) {
    throw new ApiError(
      'FORBIDDEN',
      `Host '${host ?? ''}' is not served: use http://127.0.0.1:${port} or http://localhost:${port}`,
    );
  }
  if (origin !== undefined && !loopbackOrigins(port).has(origin.toLowerCase())) {
    throw new ApiError(
      'FORBIDDEN',
      `requests from origin '${origin}' are refused: this API serves local scripts only`,
    );
  }
}
