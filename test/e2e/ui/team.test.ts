/**
 * Settings → Team in Chromium, as a new member does it: a real `team serve --demo`, a token made for
 * Alice on it, and a desktop (`serve --ui`) that joins it from the window with the server's address and
 * the token. The window then says who it is on the team, mirrors the demo org through the team server,
 * says "Team: offline" when the team server goes away, and leaves the team from the same place.
 */
import type { Page } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, removeTempDirs, tempDir } from '../../helpers/cli';
import { launchChromium } from '../../helpers/chromium';
import { type Spawned, killChildren, spawnCli, waitFor } from '../../helpers/process';
import { screenshot } from '../../helpers/ui';

const poll = <T>(read: () => T | Promise<T>, timeout = 30_000) => expect.poll(read, { timeout });

let browser: Browser;
let team: Spawned;
let teamUrl: string;
let token: string;
let desk: Spawned;
let page: Page;

beforeAll(async () => {
  const teamDir = tempDir('dh-e2e-team-');
  team = spawnCli(['team', 'serve', '--demo', '--port', '0', '--data-dir', teamDir]);
  teamUrl = (await waitFor(team.stdout, /Local API listening on (http:\/\/127\.0\.0\.1:\d+)\n/, team))[1]!;
  await waitFor(team.stderr, /sync demo: crawl ok/, team, 60_000);
  const made = await cli([
    'team',
    'tokens',
    'create',
    '--org',
    'live-demo',
    '--member',
    'Alice',
    '--data-dir',
    teamDir,
  ]);
  if (made.code !== 0) throw new Error(made.stderr);
  token = made.stdout.trim();
  const deskDir = tempDir('dh-e2e-desk-');
  desk = spawnCli(['serve', '--ui', '--port', '0', '--data-dir', deskDir]);
  const [, link] = await waitFor(desk.stdout, /Web UI: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)\n/, desk);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  page = await context.newPage();
  await page.goto(link!);
  // The home page first, as a new desktop opens on it: the router listens to address changes only once
  // its first page is shown, so a change made before then (the next test's) would be lost.
  await page.getByText('No data yet').waitFor({ timeout: 30_000 });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  killChildren();
  removeTempDirs();
});

describe('Settings → Team', () => {
  it('joins a team server with its address and a token, and says who this desktop is on it', async () => {
    await page.goto(`${new URL(page.url()).origin}/#/settings?section=team`);
    await page.getByText('This desktop keeps its acknowledgements to itself.').waitFor({ timeout: 20_000 });
    const join = page.getByRole('button', { name: 'Join' });
    await expect(join.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Team server address').fill(teamUrl);
    await page.getByLabel('Your team token').fill(`dht_${'x'.repeat(43)}`);
    await join.click();
    const refused = page.locator('.n-alert', { hasText: 'Not joined' });
    await refused.waitFor({ timeout: 20_000 });
    await expect(refused.textContent()).resolves.toContain('refused the token');
    await page.getByLabel('Your team token').fill(token);
    await join.click();
    const row = page.locator('tr[data-team-org="live-demo"]');
    await row.waitFor({ timeout: 20_000 });
    await poll(() => row.textContent()).toContain('Team: online as Alice');
    expect(await row.textContent()).toContain(teamUrl);
    // The org, mirrored through the team server, with the team line in the header.
    await page.goto(`${new URL(page.url()).origin}/#/orgs/live-demo/datasets`);
    const line = page.locator('[data-team-status]');
    await poll(() => line.textContent()).toBe('Team: online as Alice');
    await poll(() => page.locator('tr[data-dataset-id]').count()).toBeGreaterThan(10);
    await screenshot(page, 'team-online');
  }, 90_000);

  it('says "Team: offline" when the team server goes away', async () => {
    team.child.kill('SIGINT');
    await team.exited;
    await poll(() => page.locator('[data-team-status]').textContent()).toBe('Team: offline');
    await screenshot(page, 'team-offline');
  }, 60_000);

  it('leaves the team from Settings, keeping the org', async () => {
    await page.goto(`${new URL(page.url()).origin}/#/settings?section=team`);
    await page.getByRole('button', { name: 'Leave the team of live-demo' }).click();
    await page.getByRole('button', { name: 'Leave', exact: true }).click();
    await page.getByText('This desktop keeps its acknowledgements to itself.').waitFor({ timeout: 20_000 });
    await page.goto(`${new URL(page.url()).origin}/#/orgs/live-demo/datasets`);
    await poll(() => page.locator('tr[data-dataset-id]').count()).toBeGreaterThan(10);
    expect(await page.locator('[data-team-status]').count()).toBe(0);
    desk.child.kill('SIGINT');
    expect(await desk.exited).toBe(0);
  }, 60_000);
});
