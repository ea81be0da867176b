/**
 * A throwaway PostgreSQL server for a test file: a cluster made with Debian's `initdb` in a temp
 * directory, started with `pg_ctl` on a free loopback port, stopped and removed by `stop`. As root (CI
 * runs as root, and PostgreSQL refuses to) it runs as the `postgres` user the Debian package makes.
 * `.ci/run` installs the package when it is missing; a machine without it fails here, saying so.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPostgres {
  url: string;
  /** Stops the server at once, as a crash would (no clean shutdown), and starts it again. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The directory of `initdb` and `pg_ctl`: Debian keeps them off the PATH, by version. */
function binaries(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0)
    throw new Error(
      "no PostgreSQL server here (/usr/lib/postgresql/*/bin/initdb): install Debian's postgresql package (.ci/run does)",
    );
  return join(root, versions[0]!, 'bin');
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * `durable`: a commit is acknowledged only once its WAL is written (PostgreSQL's default), so a server
 * killed at once loses nothing it acknowledged. Without it, commits are acknowledged before (faster, for
 * tests that never kill the server): killed, it would lose the last ones, as a real server so set would.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  const bin = binaries();
  const dir = mkdtempSync(join(tmpdir(), 'dh-postgres-'));
  const asRoot = process.getuid?.() === 0;
  const run = (command: string, args: string[]): void => {
    const [file, all] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]]
      : [join(bin, command), args];
    execFileSync(file, all, { stdio: 'pipe', timeout: 60_000 });
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  const start = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-o',
      `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=${options.durable ? 'on' : 'off'}`,
      'start',
    ]);
  const stopNow = () => run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  try {
    run('initdb', ['-D', data, '-U', 'team', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--no-instructions']);
    start();
  } catch (error) {
    // A start that timed out may have left a server running: stopped before its directory goes.
    try {
      stopNow();
    } catch {
      // Not running.
    }
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `postgres://team@127.0.0.1:${port}/postgres`,
    async restart() {
      stopNow();
      start();
    },
    async stop() {
      try {
        stopNow();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
