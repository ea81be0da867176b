/**
 * `serve`: the engine without a window — the local API on 127.0.0.1, `runtime.json` for scripts, until
 * SIGINT/SIGTERM, then persist, remove the runtime file and exit 0 (DESIGN.md §7).
 */
import { Command } from 'commander';
import { DEFAULT_RATE_LIMIT } from '../../api/app';
import { DEFAULT_API_PORT, PortInUseError, startApiServer } from '../../api/server';
import { DEMO_ORG, describeDemo, loadDemo } from '../../demo/load';
import { createApiKey } from '../../store/apiKeys';
import { listOrgs } from '../../store/orgs';
import { removeRuntimeFile, writeRuntimeFile } from '../../store/runtimeFile';
import { resolveDataDir } from '../../store/dataDir';
import { CliError, type CliIo } from '../io';
import { cliLogger } from '../logger';
import { openDataDir } from '../openStore';
import { dataDirOption, integerOption } from '../options';

interface ServeOptions {
  dataDir?: string;
  port: number;
  demo?: boolean;
  rateLimit: number;
}

export function serveCommand(io: CliIo): Command {
  return new Command('serve')
    .description('run the engine without a window: the local v2 API until Ctrl+C')
    .addOption(dataDirOption())
    .option('--port <n>', 'port on 127.0.0.1 (0 picks a free one)', integerOption(0, 65535), DEFAULT_API_PORT)
    .option('--demo', 'with an empty data directory, fill a demo org and print a ready-to-use key')
    .option(
      '--rate-limit <n>',
      'requests per second per key (bursts of twice as many)',
      integerOption(1, 1_000_000),
      DEFAULT_RATE_LIMIT.perSecond,
    )
    .action((options: ServeOptions) => serve(options, io));
}

async function serve(options: ServeOptions, io: CliIo): Promise<void> {
  const dataDir = resolveDataDir(options.dataDir, io.env);
  const opened = await openDataDir(dataDir, 'serve', io);
  const { store } = opened;
  let server;
  try {
    if (options.demo && listOrgs(store).length === 0) {
      io.stderr('Empty data directory: generating the demo org…\n');
      const summary = loadDemo(store, { orgId: DEMO_ORG, datasets: 500, seed: 1, now: io.now() });
      const key = createApiKey(store, DEMO_ORG, 'demo', io.now());
      io.stderr(`${describeDemo(summary, DEMO_ORG)}\nDemo API key (shown once): ${key.key}\n`);
    }
    server = await startApiServer({
      store,
      port: options.port,
      now: () => io.now(),
      logger: cliLogger(io),
      rateLimit: { perSecond: options.rateLimit, burst: options.rateLimit * 2 },
    });
  } catch (error) {
    await opened.close();
    if (error instanceof PortInUseError) throw new CliError(error.message);
    throw error;
  }
  writeRuntimeFile(dataDir, { apiUrl: server.url, pid: process.pid, startedAt: io.now().toISOString() });
  io.stdout(`Local API listening on ${server.url}\n`);
  io.stderr(`Data directory: ${dataDir}\n`);
  const signal = await io.stopRequested();
  io.stderr(`${signal}: stopping…\n`);
  try {
    await server.close();
  } finally {
    removeRuntimeFile(dataDir);
    await opened.close();
  }
}
