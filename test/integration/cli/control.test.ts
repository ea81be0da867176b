/**
 * The CLI beside a running instance (docs/architecture.md#hand-over-to-a-running-instance): while `serve` or the app holds the data directory,
 * `keys`, `sources`, `import`, `export`, `sync --once` and `ui` are handed to it over the control
 * channel and print and exit as they do alone; a dead holder's files are ignored; a refused or malformed
 * control request gets a clear error and changes nothing.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../electron/demo/remote/clock';
import { type RemoteSimulator, startRemoteSimulator } from '../../../electron/demo/remote/server';
import { CONTROL_HEADER, CONTROL_PATH } from '../../../electron/control/protocol';
import { listApiKeys } from '../../../electron/store/tables/apiKeys';
import {
  CONTROL_FILE,
  readControlFile,
  writeControlFile,
} from '../../../electron/store/instance/controlFile';
import { Store } from '../../../electron/store/database';
import { LOCK_FILE, acquireDataDirLock, readDataDirLock } from '../../../electron/store/instance/lock';
import { writeRuntimeFile } from '../../../electron/store/instance/runtimeFile';
import { REMOTE_KEY_ENV } from '../../../electron/sync/secrets';
import { runCli } from '../../../electron/cli/program';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { until } from '../../helpers/process';
import { startInstance as startServe, stopInstances } from '../../helpers/instance';
import { fixtureRecords, fixtureTasks } from '../../helpers/fixtures';

const NOW = new Date('2026-11-21T04:41:00.000Z');
const SIM_KEY = 'sim-control-key';

const simulators = new Set<RemoteSimulator>();

/** A running serve whose sync has the simulator's key (unless told otherwise). */
const startInstance = (dataDir: string, options: { ui?: boolean; remoteKeys?: NodeJS.ProcessEnv } = {}) =>
  startServe(dataDir, { now: () => NOW, remoteKeys: { [REMOTE_KEY_ENV]: SIM_KEY }, ...options });

async function simulator(): Promise<RemoteSimulator> {
  const started = await startRemoteSimulator({
    port: 0,
    apiKey: SIM_KEY,
    datasets: 30,
    seed: 5,
    clock: createManualClock(NOW.getTime()),
  });
  simulators.add(started);
  return started;
}

afterEach(async () => {
  await stopInstances();
  await Promise.all([...simulators].map((sim) => sim.close()));
  simulators.clear();
  removeTempDirs();
});

function snapshotFile(dir: string, count = 12): string {
  const datasets = fixtureRecords(count, 3);
  const failed = datasets.find((d) => d.latestDeliveryStatus === 'FAILED') ?? datasets[0]!;
  const tasks = { [failed.deliveryId!]: fixtureTasks(failed.deliveryId!, failed.datasetId) };
  const file = join(dir, 'snapshot.json');
  writeFileSync(file, JSON.stringify({ datasets, tasks }));
  return file;
}

/** Keys and times differ from run to run: the words around them must not. */
const shape = (text: string) =>
  text.replace(/dhk_[A-Za-z0-9_-]{43}/g, '<key>').replace(/key_[0-9a-f]+/g, '<id>');

describe('a command while serve holds the data directory', () => {
  it('keys create|list|revoke run in the instance, print as alone, and the key works on its API at once', async () => {
    const dataDir = tempDir();
    const alone = await cli([
      ...['keys', 'create', '--org', 'acme', '--new-org', '--name', 'first', '--data-dir', dataDir],
    ]);
    expect(alone.code).toBe(0);
    const instance = await startInstance(dataDir);

    const created = await cli(['keys', 'create', '--org', 'acme', '--name', 'ci', '--data-dir', dataDir]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^dhk_[A-Za-z0-9_-]{43}\n$/);
    expect(shape(created.stderr)).toBe(shape(alone.stderr).replace("'first'", "'ci'"));
    const answer = await fetch(`${instance.engine.api.url}/v2/ops/health/datasets/deliveries`, {
      headers: { authorization: `Bearer ${created.stdout.trim()}` },
    });
    expect(answer.status).toBe(200);

    const listed = await cli(['keys', 'list', '--data-dir', dataDir]);
    const listedJson = await cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    const id = (JSON.parse(listedJson.stdout) as { id: string; name: string }[]).find(
      (key) => key.name === 'ci',
    )!.id;
    const revoked = await cli(['keys', 'revoke', id, '--data-dir', dataDir]);
    expect(revoked).toMatchObject({ code: 0, stdout: '', stderr: `Revoked key ${id}.\n` });
    const again = await cli(['keys', 'revoke', id, '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `dataset-health: no active key with id '${id}' (see \`dataset-health keys list\`)\n`,
    );
    const refused = await fetch(`${instance.engine.api.url}/v2/ops/health/datasets/deliveries`, {
      headers: { authorization: `Bearer ${created.stdout.trim()}` },
    });
    expect(refused.status).toBe(401);

    // The same listing alone, once the instance has stopped (revocation aside).
    await instance.stop();
    expect(readControlFile(dataDir)).toBeNull();
    const aloneList = await cli(['keys', 'list', '--data-dir', dataDir]);
    expect(aloneList.stdout.split('\n')[0]).toBe(listed.stdout.split('\n')[0]);
    expect(aloneList.stdout.split('\n').length).toBe(listed.stdout.split('\n').length);
    expect(listed.stdout).toMatch(/^ID\s+ORG\s+NAME\s+CREATED\s+LAST USED\s+REVOKED\n/);
  });

  it('import and export run in the instance: the same files and words as alone', async () => {
    const dataDir = tempDir();
    const file = snapshotFile(dataDir);
    const instance = await startInstance(dataDir);
    const imported = await cli(['import', '--org', 'acme', file, '--data-dir', dataDir]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toBe('Imported 12 datasets and the tasks of 1 deliveries into org acme.\n');
    // The running API serves what was imported, without a restart.
    const toStdout = await cli(['export', '--org', 'acme', '-', '--data-dir', dataDir]);
    expect(toStdout.code).toBe(0);
    const exported = JSON.parse(toStdout.stdout) as { datasets: unknown[] };
    expect(exported.datasets).toHaveLength(12);
    // Outside the data directory: nothing may be written among its files (hostile/dataDir.test.ts).
    const target = join(tempDir(), 'out.json');
    const toFile = await cli(['export', '--org', 'acme', target, '--data-dir', dataDir]);
    expect(toFile.stderr).toBe(`Exported 12 datasets and the tasks of 1 deliveries to ${target}.\n`);
    expect(readFileSync(target, 'utf8')).toBe(toStdout.stdout);
    const unknown = await cli(['export', '--org', 'nobody', '-', '--data-dir', dataDir]);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe("dataset-health: no org 'nobody' in this data directory\n");
    const broken = join(dataDir, 'broken.json');
    writeFileSync(broken, '{"datasets": [');
    const refused = await cli(['import', '--org', 'acme', broken, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/broken\.json: .*\(nothing was imported\)\n$/);

    await instance.stop();
    const aloneStdout = await cli(['export', '--org', 'acme', '-', '--data-dir', dataDir]);
    expect(aloneStdout.stdout).toBe(toStdout.stdout);
  });

  it('sources add/list/remove change what the running sync syncs; sync --once waits for its cycle', async () => {
    const dataDir = tempDir();
    const remote = await simulator();
    const instance = await startInstance(dataDir);
    expect(instance.engine.sync.states()).toEqual([]);

    const added = await cli(
      ['sources', 'add', '--org', 'acme', '--remote', remote.url, '--data-dir', dataDir],
      {
        [REMOTE_KEY_ENV]: SIM_KEY,
      },
    );
    expect(added.code, added.stderr).toBe(0);
    // The instance syncs with its own key (its environment), not the CLI's: the message says so.
    expect(added.stderr).toBe(
      `Source acme: org acme from ${remote.url}. The running serve has a remote key for it and syncs it now.\n`,
    );
    expect(instance.engine.sync.states().map((s) => s.sourceId)).toEqual(['acme']);
    const listed = await cli(['sources', 'list', '--data-dir', dataDir]);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^ID\\s+ORG\\s+NAME\\s+REMOTE\\s+ENABLED\\nacme\\s+acme\\s+acme\\s+${remote.url}\\s+yes\\n$`,
      ),
    );

    const synced = await cli(['sync', '--once', '--org', 'acme', '--data-dir', dataDir]);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stderr).toMatch(
      /^Syncing org acme from http:\/\/127\.0\.0\.1:\d+ \(the running serve\)…\n/,
    );
    expect(synced.stderr).toMatch(
      /Synced 30 datasets into org acme in [\d.]+ s: \d+ written, 0 removed, 0 skipped/,
    );
    const other = await cli(
      ['sync', '--once', '--org', 'acme', '--remote', 'http://127.0.0.1:1', '--data-dir', dataDir],
      {},
    );
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/org 'acme' is synced from .* by the running serve \(process \d+\)/);

    const removed = await cli(['sources', 'remove', 'acme', '--data-dir', dataDir]);
    expect(removed).toMatchObject({ code: 0, stderr: 'Removed source acme.\n' });
    expect(instance.engine.sync.states()).toEqual([]);
    const missing = await cli(['sources', 'remove', 'acme', '--data-dir', dataDir]);
    expect(missing.stderr).toBe("dataset-health: no source 'acme' (see `dataset-health sources list`)\n");

    // An org the instance does not sync: the same one-off sync the CLI runs alone, done by the instance.
    const oneOff = await cli(
      ['sync', '--once', '--org', 'beta', '--remote', remote.url, '--data-dir', dataDir],
      { [REMOTE_KEY_ENV]: SIM_KEY },
    );
    expect(oneOff.code, oneOff.stderr).toBe(0);
    expect(oneOff.stderr).toMatch(new RegExp(`^Syncing org beta from ${remote.url}…\\n`));
    expect(oneOff.stderr).toMatch(/Synced 30 datasets into org beta/);
    const noKey = await cli([
      'sync',
      '--once',
      '--org',
      'gamma',
      '--remote',
      remote.url,
      '--data-dir',
      dataDir,
    ]);
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toMatch(/no remote API key: set DATASET_HEALTH_REMOTE_KEY/);
  });

  it('ui prints a fresh one-time link of serve --ui; --open opens it; the used link says to run ui', async () => {
    const dataDir = tempDir();
    const instance = await startInstance(dataDir, { ui: true });
    const base = instance.engine.api.url;
    const first = await cli(['ui', '--data-dir', dataDir]);
    expect(first.code, first.stderr).toBe(0);
    const url = /^Web UI: (\S+)\n$/.exec(first.stdout)![1]!;
    expect(url).toMatch(new RegExp(`^${base}/\\?token=[A-Za-z0-9_-]{43}$`));
    expect(url).not.toBe(instance.engine.uiUrl);

    const signIn = await fetch(url, { redirect: 'manual' });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('set-cookie')).toMatch(/^dh_session_\d+=/);
    const reused = await fetch(url, { redirect: 'manual' });
    expect(reused.status).toBe(401);
    expect(await reused.text()).toMatch(/already used .* Run `dataset-health ui` for a new one/);
    // The link serve printed at start still works: links are independent.
    expect((await fetch(instance.engine.uiUrl!, { redirect: 'manual' })).status).toBe(303);

    const opened = await cli(['ui', '--open', '--data-dir', dataDir]);
    expect(opened.code).toBe(0);
    expect(opened.opened).toEqual([/^Web UI: (\S+)\n$/.exec(opened.stdout)![1]]);
  });

  it('ui without serve --ui: a clear error, exit 1', async () => {
    const dataDir = tempDir();
    const none = await cli(['ui', '--data-dir', dataDir]);
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toMatch(/no `dataset-health serve --ui` is running on this data directory/);
    // Nothing was created for asking.
    expect(() => statSync(join(dataDir, 'health.sqlite'))).toThrow();
    await startInstance(dataDir);
    const noUi = await cli(['ui', '--data-dir', dataDir]);
    expect(noUi.code).toBe(1);
    expect(noUi.stderr).toMatch(/the running serve \(process \d+\) has no web UI: restart it with --ui/);
  });
});

describe('the control file and a dead instance', () => {
  it('control.json is owner-only while serve runs and gone after', async () => {
    const dataDir = tempDir();
    const instance = await startInstance(dataDir);
    const info = readControlFile(dataDir)!;
    expect(info).toMatchObject({ url: instance.engine.api.url, pid: process.pid, purpose: 'serve' });
    expect(statSync(join(dataDir, CONTROL_FILE)).mode & 0o777).toBe(0o600);
    await instance.stop();
    expect(readControlFile(dataDir)).toBeNull();
  });

  it('a stale lock, runtime.json and control.json of a dead process: the command runs alone', async () => {
    const dataDir = tempDir();
    const dead = 2 ** 22 + 12345;
    writeFileSync(
      join(dataDir, LOCK_FILE),
      JSON.stringify({ pid: dead, purpose: 'app', startedAt: NOW.toISOString() }),
    );
    writeRuntimeFile(dataDir, { apiUrl: 'http://127.0.0.1:1', pid: dead, startedAt: NOW.toISOString() });
    writeControlFile(dataDir, { url: 'http://127.0.0.1:1', pid: dead, purpose: 'app', secret: 'x' });
    const created = await cli(['keys', 'create', '--org', 'acme', '--new-org', '--data-dir', dataDir]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^dhk_/);
    // The stale lock was taken over and released again.
    expect(readDataDirLock(dataDir)).toBeNull();
    const store = await Store.open({ dataDir });
    expect(listApiKeys(store).map((key) => key.orgId)).toEqual(['acme']);
    await store.close();
  });

  it('a directory held by another CLI command (no control channel): refused, naming the holder', async () => {
    const dataDir = tempDir();
    const lock = acquireDataDirLock(dataDir, { purpose: 'import', now: () => NOW });
    try {
      const run = await cli(['keys', 'list', '--data-dir', dataDir]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`in use by process ${process.pid} \\(import, started`));
    } finally {
      lock.release();
    }
  });
});

describe('refused and malformed control requests change nothing', () => {
  const post = (url: string, body: string, headers: Record<string, string>) =>
    fetch(`${url}${CONTROL_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  it.each([
    [
      'no secret',
      {},
      JSON.stringify({ command: 'keys.create', args: { org: 'acme', name: 'x' } }),
      401,
      /missing or wrong/,
    ],
    [
      'a wrong secret',
      { secret: 'nope' },
      JSON.stringify({ command: 'keys.create', args: { org: 'acme', name: 'x' } }),
      401,
      /missing or wrong/,
    ],
    [
      'a page of the web UI (its own origin)',
      { secret: true, origin: 'same' },
      JSON.stringify({ command: 'keys.create', args: { org: 'acme', name: 'x' } }),
      403,
      /not for pages/,
    ],
    // Refused before the body is read: neither a broken nor a huge body gets an answer about itself.
    ['no secret, a broken body', {}, '{"command": ', 401, /missing or wrong/],
    [
      'no secret, a 3 MB body',
      {},
      JSON.stringify({ command: 'x'.repeat(3_000_000) }),
      401,
      /missing or wrong/,
    ],
    ['malformed JSON', { secret: true }, '{"command": "keys.create", "args": {', 400, /JSON|body/i],
    [
      'a body over the limit (413, in the error shape, naming the limit)',
      { secret: true },
      JSON.stringify({ command: 'keys.create', args: { org: 'acme', name: 'x'.repeat(1_100_000) } }),
      413,
      /^\{"status":413,"code":"INVALID_ARGUMENT","message":"the request body is over the limit of 1 MiB"\}$/,
    ],
    [
      'an unknown command',
      { secret: true },
      JSON.stringify({ command: 'db.drop', args: {} }),
      400,
      /unknown command \\"db.drop\\"/,
    ],
    [
      'an unknown argument',
      { secret: true },
      JSON.stringify({ command: 'keys.create', args: { org: 'acme', name: 'x', admin: true } }),
      400,
      /keys.create: arguments/,
    ],
    [
      'a wrong type',
      { secret: true },
      JSON.stringify({ command: 'keys.revoke', args: { id: 42 } }),
      400,
      /keys.revoke: arguments\/id/,
    ],
    [
      'a bad org',
      { secret: true },
      JSON.stringify({ command: 'keys.create', args: { org: '../x', name: 'x' } }),
      200,
      /not a valid org id/,
    ],
  ] as const)('%s', async (_name, who, body, status, message) => {
    const dataDir = tempDir();
    const instance = await startInstance(dataDir);
    const control = readControlFile(dataDir)!;
    const headers: Record<string, string> = {};
    if ('secret' in who) headers[CONTROL_HEADER] = who.secret === true ? control.secret : who.secret;
    if ('origin' in who) headers.origin = control.url;
    const before = listApiKeys(instance.store).length;
    const answer = await post(control.url, body, headers);
    expect(answer.status).toBe(status);
    const text = await answer.text();
    expect(text).toMatch(message);
    if (status !== 200) {
      expect(JSON.parse(text)).toMatchObject({ status, message: expect.any(String) });
    } else {
      expect(text.trim().split('\n').at(-1)).toMatch(/^\{"exit":1,"error":/);
    }
    expect(listApiKeys(instance.store)).toHaveLength(before);
  });

  it('the CLI says why when the instance refuses (a secret that no longer matches)', async () => {
    const dataDir = tempDir();
    await startInstance(dataDir);
    const control = readControlFile(dataDir)!;
    writeControlFile(dataDir, { ...control, secret: 'replaced' });
    const run = await cli(['keys', 'list', '--data-dir', dataDir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /^dataset-health: the running serve \(process \d+\) refused the command: control request refused: missing or wrong/,
    );
  });
});

describe("keys: the instance's own, and the CLI's where the instance has none", () => {
  it("sources add says when the running serve has no key; sync --once then uses the CLI's key, as alone", async () => {
    const dataDir = tempDir();
    const remote = await simulator();
    await startInstance(dataDir, { remoteKeys: {} });
    const added = await cli(
      ['sources', 'add', '--org', 'acme', '--remote', remote.url, '--data-dir', dataDir],
      {
        [REMOTE_KEY_ENV]: SIM_KEY,
      },
    );
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toBe(
      `Source acme: org acme from ${remote.url}. The running serve has no remote key for it: ` +
        `set ${REMOTE_KEY_ENV} (or ${REMOTE_KEY_ENV}_<SOURCE ID>) for serve, and restart it.\n`,
    );
    const synced = await cli(['sync', '--once', '--org', 'acme', '--data-dir', dataDir], {
      [REMOTE_KEY_ENV]: SIM_KEY,
    });
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stderr).toMatch(new RegExp(`^Syncing org acme from ${remote.url}…\\n`));
    expect(synced.stderr).toMatch(/Synced 30 datasets into org acme/);
  });
});

describe('an instance quitting while a command waits for it', () => {
  it('stopping: the command in flight ends first; one sent meanwhile is refused (503), its CLI waits and runs it here', async () => {
    const dataDir = tempDir();
    const seed = await cli([
      'keys',
      'create',
      '--org',
      'acme',
      '--new-org',
      '--name',
      'seed',
      '--data-dir',
      dataDir,
    ]);
    expect(seed.code).toBe(0);
    const instance = await startInstance(dataDir);
    const control = readControlFile(dataDir)!;
    const send = (name: string) =>
      fetch(`${control.url}${CONTROL_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [CONTROL_HEADER]: control.secret },
        body: JSON.stringify({ command: 'keys.create', args: { org: 'acme', name } }),
      });
    // A long commit in the store (a big sync's): a command handed over now waits for it.
    let release!: () => void;
    const committed = instance.store.transactionInChunks(
      () => new Promise<void>((resolve) => (release = resolve)),
    );
    // Its answer's headers are in: the command has started (they go out first).
    const inFlight = await send('in-flight');
    expect(inFlight.status).toBe(200);

    const stopped = instance.stop();
    const refused = await send('refused');
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({
      status: 503,
      code: 'UNAVAILABLE',
      message: `control request refused: the running serve (process ${process.pid}) is shutting down`,
    });
    // A CLI that read control.json just before the stop began.
    writeControlFile(dataDir, control);
    let stdout = '';
    let stderr = '';
    const late = runCli(['keys', 'create', '--org', 'acme', '--name', 'late', '--data-dir', dataDir], {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      env: {},
      now: () => NOW,
      stopRequested: () => new Promise(() => {}),
      openUrl: async () => {},
    });
    await until(() => stderr !== '');
    expect(stderr).toBe(
      `The running serve (process ${process.pid}) is shutting down: waiting for it to release the data directory…\n`,
    );

    release();
    await committed;
    // The command in flight ran to its end and its last line arrived before the API closed.
    const lines = (await inFlight.text()).trim().split('\n');
    expect(JSON.parse(lines.at(-1)!)).toEqual({ exit: 0, result: null });
    expect(lines[0]).toMatch(/^\{"stdout":"dhk_/);
    await stopped;
    expect(await late).toBe(0);
    expect(stdout).toMatch(/^dhk_[A-Za-z0-9_-]{43}\n$/);
    expect(stderr).toMatch(/\nCreated key key_[0-9a-f]+ \('late'\) for org acme\./);
    const store = await Store.open({ dataDir });
    expect(
      listApiKeys(store)
        .map((key) => key.name)
        .sort(),
    ).toEqual(['in-flight', 'late', 'seed']);
    await store.close();
  });

  it('runs the command alone once the holder lets go (no wait for the full start timeout)', async () => {
    const dataDir = tempDir();
    // Held by a "serve" with no control channel: what a CLI sees while serve quits (control.json goes first).
    const lock = acquireDataDirLock(dataDir, { purpose: 'serve', now: () => NOW });
    const started = Date.now();
    const run = cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    setTimeout(() => lock.release(), 300);
    const done = await run;
    expect(done).toMatchObject({ code: 0, stdout: '[]\n' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('damaged files of a running instance (docs/decisions.md "A damaged lock file")', () => {
  it('a damaged lock file: the command is handed to the instance, never run beside it as a second writer', async () => {
    const dataDir = tempDir();
    const instance = await startInstance(dataDir);
    writeFileSync(join(dataDir, LOCK_FILE), '{"pid":');

    const created = await cli(['keys', 'create', '--org', 'acme', '--new-org', '--data-dir', dataDir]);
    expect(created.code, created.stderr).toBe(0);
    // Created by the instance: its API takes the key at once (a second writer's key it would not know).
    const answer = await fetch(`${instance.engine.api.url}/v2/ops/health/datasets/deliveries`, {
      headers: { authorization: `Bearer ${created.stdout.trim()}` },
    });
    expect(answer.status).toBe(200);
    // The instance rewrites its lock file (at its second look, a refresh apart).
    await until(() => {
      const lock = readDataDirLock(dataDir);
      return lock !== null && lock !== 'damaged';
    });
    expect(readDataDirLock(dataDir)).toMatchObject({ pid: process.pid, purpose: 'serve' });
  });

  it('a damaged control.json: the instance rewrites it, and the command runs in it', async () => {
    const dataDir = tempDir();
    await startInstance(dataDir);
    const control = readControlFile(dataDir);
    writeFileSync(join(dataDir, CONTROL_FILE), 'not json');

    const listed = await cli(['keys', 'list', '--json', '--data-dir', dataDir]);
    expect(listed).toMatchObject({ code: 0, stdout: '[]\n', stderr: '' });
    expect(readControlFile(dataDir)).toEqual(control);
  });
});
