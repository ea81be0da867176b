/**
 * The words for a request body over the server's limit, the same on every route that reads a body (the
 * control channel in the API's error shape, the web UI's RPC in its own): the limit in the unit it is
 * set in (Fastify's default is 1 MiB).
 */
export function bodyTooLargeMessage(limitBytes: number): string {
  const KiB = 1024;
  const MiB = KiB * KiB;
  const limit =
    limitBytes % MiB === 0
      ? `${limitBytes / MiB} MiB`
      : limitBytes % KiB === 0
        ? `${limitBytes / KiB} KiB`
        : `${limitBytes} bytes`;
  return `the request body is over the limit of ${limit}`;
}
