/**
 * A command hook route runs its program with the route's document as JSON on stdin, without a shell
 * unless it asks for one, within its timeout (docs/decisions.md "Routes: at most once (issue 27)").
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookRoute } from '../../../shared/rules';
import { runHookRoute } from '../../../electron/routes/command';
import { removeTempDirs, tempDir } from '../../helpers/cli';

afterEach(() => removeTempDirs());

const hook = (fields: Partial<HookRoute>): HookRoute => ({
  id: 'pager',
  kind: 'hook',
  name: 'Pager',
  command: process.execPath,
  args: [],
  shell: false,
  timeoutSeconds: 10,
  ...fields,
});

/** A Node program that writes its stdin and its arguments to `out` as JSON. */
const recorder = (out: string): string[] => [
  '-e',
  `let t='';process.stdin.on('data',c=>t+=c).on('end',()=>require('fs').writeFileSync(${JSON.stringify(
    out,
  )},JSON.stringify({stdin:t,args:process.argv.slice(1)})))`,
];

const DOCUMENT = JSON.stringify({ text: 'FAILED: Trades', notificationId: 'failed:d-1' });

describe('command hook route', () => {
  it('runs the program with its arguments as given, the document as one line of JSON on stdin', async () => {
    const dir = tempDir('dh-hook-route-');
    const out = join(dir, 'run.json');
    const marker = join(dir, 'injected');
    // Without a shell a `;`, `$(…)` or quotes are characters of an argument, never run.
    const hostile = `x; touch ${marker} $(touch ${marker}) '"`;
    const result = await runHookRoute(hook({ args: [...recorder(out), hostile] }), DOCUMENT);
    expect(result).toEqual({ kind: 'sent' });
    const run = JSON.parse(readFileSync(out, 'utf8')) as { stdin: string; args: string[] };
    expect(run.stdin).toBe(`${DOCUMENT}\n`);
    expect(JSON.parse(run.stdin)).toEqual(JSON.parse(DOCUMENT));
    expect(run.args).toEqual([hostile]);
    expect(existsSync(marker)).toBe(false);
  });

  it('runs one shell line when the route asks for the shell', async () => {
    const dir = tempDir('dh-hook-route-');
    const out = join(dir, 'stdin.json');
    const result = await runHookRoute(
      hook({ command: `cat > "$OUT"; echo done >> "$OUT.done"`, shell: true }),
      DOCUMENT,
      { env: { ...process.env, OUT: out } },
    );
    expect(result).toEqual({ kind: 'sent' });
    expect(readFileSync(out, 'utf8')).toBe(`${DOCUMENT}\n`);
    expect(readFileSync(`${out}.done`, 'utf8')).toBe('done\n');
  });

  it('a non-zero exit failed, with the end of its stderr', async () => {
    const result = await runHookRoute(
      hook({ args: ['-e', "process.stdin.resume();console.error('pager down');process.exit(3)"] }),
      DOCUMENT,
    );
    expect(result).toEqual({ kind: 'failed', error: 'exited with 3: pager down' });
  });

  it('a program that does not exist could not start: failed', async () => {
    const result = await runHookRoute(hook({ command: join(tempDir(), 'no-such-program') }), DOCUMENT);
    expect(result).toMatchObject({
      kind: 'failed',
      error: expect.stringMatching(/^could not start: .*ENOENT/),
    });
  });

  it('a program still running at its timeout is stopped: outcome unknown', async () => {
    const result = await runHookRoute(
      hook({ args: ['-e', 'setInterval(() => {}, 1000)'], timeoutSeconds: 1 }),
      DOCUMENT,
    );
    expect(result).toEqual({ kind: 'unknown', error: 'timed out after 1 s' });
  });
});
