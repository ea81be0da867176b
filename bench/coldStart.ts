/** Cold start: from spawning `serve` on a pre-written data dir to the first 200 answer of the list. */
import { setTimeout as sleep } from 'node:timers/promises';
import { type ServerProcess, startNodeServer, startTsServer } from './children';
import { LATEST_DELIVERIES, PAGE_SIZE } from './inProcess';

export const LIST_PATH = `/v2/ops/health/datasets/deliveries?pageSize=${PAGE_SIZE}&latestDeliveriesCount=${LATEST_DELIVERIES}`;

class HttpError extends Error {}

export interface ColdStart {
  server: ServerProcess;
  /** Spawn to the URL line, and spawn to the first complete 200 answer, in ms. */
  urlMs: number;
  firstAnswerMs: number;
}

const SERVE_ARGS = (dataDir: string): string[] =>
  // Rate limit raised so the benchmark never trips it.
  ['serve', '--data-dir', dataDir, '--port', '0', '--rate-limit', '1000000'];

/** The CLI `serve` from the TypeScript sources under tsx (as `npm run serve`). */
export function startServe(dataDir: string): Promise<ServerProcess> {
  return startTsServer('electron/cli/main.ts', SERVE_ARGS(dataDir));
}

/** The CLI `serve` from a JavaScript bundle (as the built `dataset-health` command runs). */
export function startBundledServe(cli: string, dataDir: string): Promise<ServerProcess> {
  return startNodeServer('bundled CLI', [cli, ...SERVE_ARGS(dataDir)]);
}

/** Spawns a server with `start` and times it to its first complete 200 answer of the list page. */
export async function coldStart(start: () => Promise<ServerProcess>, apiKey: string): Promise<ColdStart> {
  const server = await start();
  try {
    const deadline = performance.now() + 30_000;
    let last = '';
    while (performance.now() < deadline) {
      try {
        const response = await fetch(`${server.url}${LIST_PATH}`, {
          headers: { authorization: `Bearer ${apiKey}` },
        });
        const body = await response.text();
        if (response.status === 200) {
          return {
            server,
            urlMs: server.urlAt - server.spawnedAt,
            firstAnswerMs: performance.now() - server.spawnedAt,
          };
        }
        // The URL is printed once the server listens: any answer but 200 is final.
        throw new HttpError(`the first list answer was HTTP ${response.status}: ${body.slice(0, 200)}`);
      } catch (error) {
        if (error instanceof HttpError) throw error;
        last = (error as Error).message;
      }
      await sleep(5);
    }
    throw new Error(`serve did not answer the list within 30 s (last: ${last})`);
  } catch (error) {
    await server.stop();
    throw error;
  }
}
