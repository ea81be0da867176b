/**
 * `dataset-health team …` as a user runs it: tokens made, listed and revoked on the embedded database
 * with no server running; then a real `team serve --demo` process that takes the token commands over its
 * control channel, and a desktop that joins it, says where it stands, mirrors the demo org through it
 * with its token, and leaves it with its org's own source back. Tokens never appear in what `serve`
 * prints.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { TEAM_TOKEN_PATTERN } from '../../../shared/team';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { type Spawned, killChildren, spawnCli, waitFor } from '../../helpers/process';
import { type TestPostgres, startPostgres } from '../../helpers/postgres';

let postgres: TestPostgres | undefined;
afterAll(async () => {
  killChildren();
  await postgres?.stop();
  removeTempDirs();
});

describe('team tokens with no server running', () => {
  it('are made (shown once, alone on stdout), listed without the secret, and revoked', async () => {
    const dataDir = tempDir('dh-team-cli-');
    const made = await cli([
      'team',
      'tokens',
      'create',
      '--org',
      'acme',
      '--member',
      'Alice',
      '--data-dir',
      dataDir,
    ]);
    expect(made.code, made.stderr).toBe(0);
    const token = made.stdout.trim();
    expect(token).toMatch(TEAM_TOKEN_PATTERN);
    expect(made.stderr).toMatch(/Created team token tok_[0-9a-f]{12} for Alice \(member\) in org acme/);
    const viewer = await cli([
      'team',
      'tokens',
      'create',
      '--org',
      'acme',
      '--member',
      'Vic',
      '--role',
      'viewer',
      '--data-dir',
      dataDir,
    ]);
    expect(viewer.code, viewer.stderr).toBe(0);
    const listed = await cli(['team', 'tokens', 'list', '--json', '--data-dir', dataDir]);
    const tokens = JSON.parse(listed.stdout) as { id: string; member: string; role: string }[];
    // Made at the same (pinned) instant: in no particular order between them.
    expect(tokens.map(({ member, role }) => [member, role]).sort()).toEqual([
      ['Alice', 'member'],
      ['Vic', 'viewer'],
    ]);
    expect(listed.stdout).not.toContain(token);
    const alice = tokens.find((each) => each.member === 'Alice')!;
    const revoked = await cli(['team', 'tokens', 'revoke', alice.id, '--data-dir', dataDir]);
    expect(revoked.code, revoked.stderr).toBe(0);
    const again = await cli(['team', 'tokens', 'revoke', alice.id, '--data-dir', dataDir]);
    expect(again).toMatchObject({ code: 1, stderr: expect.stringContaining('not revoked already') });
    const table = await cli(['team', 'tokens', 'list', '--data-dir', dataDir]);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID +ORG +MEMBER +ROLE +CREATED +LAST USED +REVOKED$/);
  }, 60_000);

  it('refuses a bad role or name before anything is made', async () => {
    const dataDir = tempDir('dh-team-cli-');
    const role = await cli([
      'team',
      'tokens',
      'create',
      '--org',
      'acme',
      '--member',
      'A',
      '--role',
      'boss',
      '--data-dir',
      dataDir,
    ]);
    expect(role.code).toBe(2);
    const name = await cli([
      'team',
      'tokens',
      'create',
      '--org',
      'acme',
      '--member',
      '   ',
      '--data-dir',
      dataDir,
    ]);
    expect(name).toMatchObject({ code: 1, stderr: expect.stringContaining("the member's name") });
  }, 60_000);
});

describe('a team server beyond this machine', () => {
  it('warns that it speaks plain HTTP, and listens where it is told', async () => {
    const dataDir = tempDir('dh-team-listen-');
    const alone = await cli(['team', 'serve', '--host-name', 'team.example', '--data-dir', dataDir]);
    expect(alone).toMatchObject({ code: 1, stderr: expect.stringContaining('--host-name needs --listen') });
    const server = spawnCli(['team', 'serve', '--listen', '127.0.0.2', '--port', '0', '--data-dir', dataDir]);
    await waitFor(server.stdout, /Local API listening on http:\/\/127\.0\.0\.2:\d+\n/, server);
    expect(server.stderr()).toContain('Warning: listening on 127.0.0.2 beyond this machine, in plain HTTP');
    expect(server.stderr()).toContain('Put a TLS proxy in front');
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  }, 60_000);
});

describe('a team server and a desktop that joins it', () => {
  let server: Spawned;
  let url: string;
  const serverDir = tempDir('dh-team-server-');
  const memberDir = tempDir('dh-team-member-');

  it('serves the team, makes tokens through the running server, and lets a desktop join and leave', async () => {
    server = spawnCli(['team', 'serve', '--demo', '--port', '0', '--data-dir', serverDir]);
    url = (await waitFor(server.stdout, /Local API listening on (http:\/\/127\.0\.0\.1:\d+)\n/, server))[1]!;
    await waitFor(server.stderr, /Team server: members join with `dataset-health team join http/, server);
    await waitFor(server.stderr, /sync demo: crawl ok/, server, 60_000);
    // The running server holds the embedded database: the command is handed to it.
    const made = await cli([
      'team',
      'tokens',
      'create',
      '--org',
      'live-demo',
      '--member',
      'Alice',
      '--data-dir',
      serverDir,
    ]);
    expect(made.code, made.stderr).toBe(0);
    const token = made.stdout.trim();

    const bad = await cli(['team', 'join', url, '--token', `dht_${'x'.repeat(43)}`, '--data-dir', memberDir]);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining('refused the token') });
    const joined = await cli(['team', 'join', url, '--token', token, '--data-dir', memberDir]);
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.stderr).toContain(`Joined the team of org live-demo at ${url} as Alice (member)`);
    const status = await cli(['team', 'status', '--data-dir', memberDir]);
    expect(status.stdout).toContain('live-demo: Team: offline');
    expect(status.stdout).toContain('no app or serve is running');

    // The desktop mirrors the org through the team server, with its team token as the key.
    const member = spawnCli(['serve', '--port', '0', '--data-dir', memberDir]);
    await waitFor(member.stderr, /sync live-demo: crawl ok, 500 datasets read/, member, 60_000);
    const online = await cli(['team', 'status', '--json', '--data-dir', memberDir]);
    expect(JSON.parse(online.stdout)).toMatchObject([
      { orgId: 'live-demo', member: 'Alice', state: 'online' },
    ]);
    member.child.kill('SIGINT');
    expect(await member.exited).toBe(0);

    const left = await cli(['team', 'leave', '--data-dir', memberDir]);
    expect(left.code, left.stderr).toBe(0);
    expect(left.stderr).toContain('Left the team of org live-demo');
    expect(left.stderr).toContain('it has no source of its own');
    const none = await cli(['team', 'status', '--data-dir', memberDir]);
    expect(none.stdout).toContain('This desktop is in no team');
    expect(server.stdout() + server.stderr()).not.toContain(token);
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  }, 120_000);
});

describe('two team serve processes on one PostgreSQL database', () => {
  it('serve one team: a change pushed through one wakes a member of the other, who reads it there', async () => {
    postgres = await startPostgres();
    const url = postgres.url;
    const servers = [0, 1].map((n) =>
      spawnCli([
        'team',
        'serve',
        '--database',
        url,
        '--port',
        '0',
        '--data-dir',
        tempDir(`dh-team-pg-${n}-`),
      ]),
    );
    const [one, two] = await Promise.all(
      servers.map(
        async (server) =>
          (await waitFor(server.stdout, /Local API listening on (http:\/\/127\.0\.0\.1:\d+)\n/, server))[1]!,
      ),
    );
    expect(servers[0]!.stderr()).toContain('Team database: PostgreSQL at postgres://team@127.0.0.1:');
    // No server holds this data directory: the token is made on the database itself.
    const made = await cli([
      'team',
      'tokens',
      'create',
      '--org',
      'acme',
      '--member',
      'Alice',
      '--database',
      url,
      '--data-dir',
      tempDir(),
    ]);
    expect(made.code, made.stderr).toBe(0);
    const auth = { authorization: `Bearer ${made.stdout.trim()}` };
    const events = new AbortController();
    const stream = await fetch(`${two}/team/v1/events`, { headers: auth, signal: events.signal });
    const reader = stream.body!.getReader();
    let text = '';
    const pushed = await fetch(`${one}/team/v1/operations`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        operations: [
          {
            opId: '0190a000-0000-7000-8000-000000000001',
            orgId: 'acme',
            author: 'Alice',
            at: `${new Date().toISOString()}#0000`,
            kind: 'unsnooze',
            payload: { datasetId: 'ds-a' },
          },
        ],
      }),
    });
    expect(pushed.status).toBe(200);
    while (!text.includes('event: operations')) text += new TextDecoder().decode((await reader.read()).value);
    events.abort();
    const pulled = (await (await fetch(`${two}/team/v1/operations?after=0`, { headers: auth })).json()) as {
      operations: { opId: string }[];
    };
    expect(pulled.operations.map((op) => op.opId)).toEqual(['0190a000-0000-7000-8000-000000000001']);
    for (const server of servers) server.child.kill('SIGINT');
    expect(await Promise.all(servers.map((server) => server.exited))).toEqual([0, 0]);
  }, 120_000);
});
