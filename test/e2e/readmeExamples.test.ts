/**
 * The README's `curl` examples, run as printed against a real `serve --demo` (issue 23, part 5): every
 * command of a fenced `sh` block that calls curl, and every inline `curl …` span, in README order, in
 * one bash session (so `TOKEN=$(curl …)` and `DATASET=$(curl …)` feed the commands after them).
 *
 * Placeholders, as the README's "The local API" section sets them: `KEY` is the demo key serve printed
 * and `API` the URL it listens on (`KEY=dhk_…` and `API=http://127.0.0.1:47800` there are the lines a
 * reader fills in, so the test sets both before the first command); a literal
 * `http://127.0.0.1:47800` in a command is replaced by that URL. Nothing else is changed. A `curl`
 * shell function around the real curl records each call's status, URL and body (`-w '%{stderr}…'` and
 * `tee`), so the test can check every call answered 2xx, and that the next-page example returns the
 * page after the first one of the same filter and sort.
 *
 * Needs `bash`, `curl` and `jq` (.ci/run installs them). The demo runs on a test clock pinned to a fixed
 * instant (testClock.ts), so its data is the same whatever the date.
 */
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import type { DatasetRecord } from '../../shared/schemas';
import { removeTempDirs, tempDir } from '../helpers/cli';
import { killChildren, spawnCli, waitFor } from '../helpers/process';
import { testClock } from '../helpers/testClock';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const README_PORT_URL = 'http://127.0.0.1:47800';
/** The demo's instant: any fixed one makes the same org every run. */
const DEMO_AT = new Date('2026-11-21T04:41:00.000Z');

afterEach(() => {
  killChildren();
  removeTempDirs();
});

/** One shell command of the README (continuation lines joined), and how many times it calls curl. */
interface Example {
  command: string;
  curls: number;
}

/** The curl commands of the README, in order: from fenced sh blocks, then inline spans where they stand. */
function curlExamples(markdown: string): Example[] {
  const commands: string[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  let last = 0;
  const inline = (text: string) => {
    for (const match of text.matchAll(/`(curl [^`\n]+)`/g)) commands.push(match[1]!);
  };
  for (const block of markdown.matchAll(fence)) {
    inline(markdown.slice(last, block.index));
    last = block.index + block[0].length;
    if (!['sh', 'bash', 'shell'].includes(block[1]!)) continue;
    const joined = block[2]!.replace(/\\\n/g, ' ');
    for (const line of joined.split('\n')) {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('#')) continue;
      if (/\bcurl\b/.test(trimmed)) commands.push(trimmed);
    }
  }
  inline(markdown.slice(last));
  return commands.map((command) => ({ command, curls: command.match(/\bcurl\b/g)!.length }));
}

interface Call {
  example: number;
  status: number;
  url: string;
  body: string;
}

/** Runs the examples in one bash session; returns each call, and each command's exit status. */
async function runExamples(
  examples: Example[],
  env: { KEY: string; API: string },
): Promise<{ calls: Call[]; exits: number[]; stderr: string }> {
  const dir = tempDir('dh-readme-');
  const lines = [
    'set -o pipefail',
    `LOG=${JSON.stringify(dir)}`,
    'echo 0 > "$LOG/count"',
    // The real curl, with each call's example, status and URL on stderr and its body kept beside.
    'curl() {',
    '  local n; n=$(( $(cat "$LOG/count") + 1 )); echo "$n" > "$LOG/count"',
    '  command curl -w "%{stderr}@@curl $EXAMPLE $n %{http_code} %{url_effective}\\n" "$@" | tee "$LOG/$n.body"',
    '}',
    ...examples.flatMap(({ command }, index) => [
      `EXAMPLE=${index}`,
      // On lines of their own: a trailing comment of the example ends with its line.
      '{',
      command.replaceAll(README_PORT_URL, env.API),
      `} > "$LOG/out-${index}"`,
      `echo "@@exit ${index} $?" >&2`,
    ]),
  ];
  const script = join(dir, 'examples.sh');
  writeFileSync(script, `${lines.join('\n')}\n`);
  const { stderr } = await new Promise<{ stderr: string }>((resolve, reject) =>
    execFile(
      'bash',
      [script],
      { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, _stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve({ stderr }),
    ),
  );
  const calls = [...stderr.matchAll(/^@@curl (\d+) (\d+) (\d+) (\S*)$/gm)].map((m) => ({
    example: Number(m[1]),
    status: Number(m[3]),
    url: m[4]!,
    body: readFileSync(join(dir, `${m[2]}.body`), 'utf8'),
  }));
  const exits = [...stderr.matchAll(/^@@exit (\d+) (\d+)$/gm)].map((m) => Number(m[2]));
  return { calls, exits, stderr };
}

it('finds the curl examples: fenced and inline, continuation lines joined', () => {
  const examples = curlExamples(
    [
      'Text with `curl -s $API/a` inline.',
      '```sh',
      '# a comment with curl in it',
      'X=$(curl -s "$API/b" \\',
      '  | jq -r .x)',
      'node bin/dataset-health.js keys list',
      '```',
      '```json',
      '{ "curl": 1 }',
      '```',
      'And `curl -s $API/c`.',
    ].join('\n'),
  );
  expect(examples).toEqual([
    { command: 'curl -s $API/a', curls: 1 },
    { command: 'X=$(curl -s "$API/b"    | jq -r .x)', curls: 1 },
    { command: 'curl -s $API/c', curls: 1 },
  ]);
});

it('every curl example of the README answers 2xx against serve --demo, and the next page is the next page', async () => {
  const examples = curlExamples(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  expect(examples.length).toBeGreaterThanOrEqual(20);

  const dataDir = tempDir();
  const serve = spawnCli(['serve', '--demo', '--port', '0', '--data-dir', dataDir], {}, testClock(DEMO_AT));
  const [, url] = await waitFor(serve.stdout, /Local API listening on (http:\/\/127\.0\.0\.1:\d+)\n/, serve);
  const [, key] = await waitFor(serve.stderr, /Demo API key \(shown once\): (dhk_\S+)/, serve);
  await waitFor(serve.stderr, /sync demo: crawl ok, 500 datasets read/, serve, 60_000);

  const { calls, exits, stderr } = await runExamples(examples, { KEY: key!, API: url! });
  expect(exits, stderr).toEqual(examples.map(() => 0));
  // Each example made its calls, and each answered 2xx: the ones that did not, with their statuses.
  const failures = examples.flatMap(({ command, curls }, index) => {
    const statuses = calls.filter((call) => call.example === index).map((call) => call.status);
    const ok = statuses.length === curls && statuses.every((status) => status >= 200 && status <= 299);
    return ok ? [] : [{ command, statuses }];
  });
  expect(failures).toEqual([]);

  // The next-page example: the page after the first page of the same filter and sort.
  const next = calls.find((call) => /[?&]pageToken=[^&]/.test(call.url));
  expect(next, 'an example asks for a next page').toBeDefined();
  const first = calls[calls.indexOf(next!) - 1]!;
  const query = (href: string) => new URL(href).searchParams;
  const token = query(next!.url).get('pageToken');
  const firstPage = JSON.parse(first.body) as { items: DatasetRecord[]; nextPageToken: string };
  const nextPage = JSON.parse(next!.body) as { items: DatasetRecord[] };
  expect(firstPage.nextPageToken).not.toBe('');
  expect(token).toBe(firstPage.nextPageToken);
  for (const param of ['filter', 'sort', 'pageSize'])
    expect(query(next!.url).getAll(param), param).toEqual(query(first.url).getAll(param));
  expect(firstPage.items).toHaveLength(20);
  expect(nextPage.items.length).toBeGreaterThan(0);
  const statuses = new Set(nextPage.items.map((item) => item.latestDeliveryStatus));
  expect([...statuses].every((status) => status === 'FAILED' || status === 'MISSING')).toBe(true);
  const firstIds = new Set(firstPage.items.map((item) => item.datasetId));
  expect(nextPage.items.filter((item) => firstIds.has(item.datasetId))).toEqual([]);
  // Newest first across the two pages.
  const times = [...firstPage.items, ...nextPage.items].map((item) => item.latestDeliveryTimestamp ?? '');
  expect(times).toEqual([...times].sort().reverse());

  serve.child.kill('SIGTERM');
  expect(await serve.exited).toBe(0);
}, 180_000);
