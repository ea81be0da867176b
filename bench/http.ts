/**
 * The list page over HTTP with 10 connections: our `serve` against the native baseline, alternating
 * ours/native round by round so machine noise hits both alike (docs/architecture.md#performance-budgets).
 */
import autocannon from 'autocannon';

export const CONNECTIONS = 10;

export interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** Paths (with query) to cycle through, one per request; absent: always `url`. */
  paths?: readonly string[];
}

export interface LoadRun {
  /** 2xx answers per second over the run. */
  rps: number;
  p99: number;
  failures: number;
}

export interface Comparison {
  ours: LoadRun[];
  native: LoadRun[];
  /** Means over the rounds. */
  oursRps: number;
  nativeRps: number;
  oursP99: number;
  nativeP99: number;
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

export async function load(target: Target, seconds: number): Promise<LoadRun> {
  let next = 0;
  const paths = target.paths;
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: target.headers,
    ...(paths && paths.length > 0
      ? {
          requests: [
            {
              setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }),
            },
          ],
        }
      : {}),
  });
  return {
    rps: result['2xx'] / result.duration,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
  };
}

export async function compare(
  ours: Target,
  native: Target,
  options: { seconds: number; rounds: number; log: (line: string) => void },
): Promise<Comparison> {
  const { seconds, rounds, log } = options;
  log(`  warming up both servers…`);
  await load(ours, 1);
  await load(native, 1);
  const runs = { ours: [] as LoadRun[], native: [] as LoadRun[] };
  for (let round = 1; round <= rounds; round++) {
    for (const [which, target] of [
      ['ours', ours],
      ['native', native],
    ] as const) {
      const run = await load(target, seconds);
      runs[which].push(run);
      log(
        `  round ${round}/${rounds} ${target.name}: ${run.rps.toFixed(0)} req/s, p99 ${run.p99} ms` +
          (run.failures ? `, ${run.failures} failed requests` : ''),
      );
      if (run.failures > 0)
        throw new Error(`${target.name}: ${run.failures} requests failed or were not 2xx`);
    }
  }
  return {
    ...runs,
    oursRps: mean(runs.ours.map((r) => r.rps)),
    nativeRps: mean(runs.native.map((r) => r.rps)),
    oursP99: mean(runs.ours.map((r) => r.p99)),
    nativeP99: mean(runs.native.map((r) => r.p99)),
  };
}

/**
 * Every page of the org in default order: our paths carry page tokens, the baseline's the same keyset
 * position in plain form (`after` = [name_key, dataset_id] of the previous page's last item).
 */
export async function pagesAcrossTheOrg(ours: Target): Promise<{ ours: string[]; native: string[] }> {
  const base = new URL(ours.url);
  const paths = { ours: [`${base.pathname}${base.search}`], native: [`${base.pathname}${base.search}`] };
  let token = '';
  let lastItem: { datasetName: string | null; datasetId: string } | undefined;
  for (;;) {
    const url = new URL(ours.url);
    if (token) url.searchParams.set('pageToken', token);
    const response = await fetch(url, { headers: ours.headers });
    if (response.status !== 200) throw new Error(`walking pages: HTTP ${response.status}`);
    const page = (await response.json()) as {
      items: { datasetName: string | null; datasetId: string }[];
      nextPageToken: string;
    };
    lastItem = page.items[page.items.length - 1];
    if (!page.nextPageToken || !lastItem) return paths;
    token = page.nextPageToken;
    const next = new URL(ours.url);
    next.searchParams.set('pageToken', token);
    paths.ours.push(`${next.pathname}${next.search}`);
    const after = Buffer.from(JSON.stringify([lastItem.datasetName ?? '', lastItem.datasetId])).toString(
      'base64url',
    );
    paths.native.push(`${base.pathname}${base.search}&after=${after}`);
  }
}
