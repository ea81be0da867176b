/**
 * Settings in Chromium against `serve --ui`: an API key created in the window is shown once and opens
 * the local v2 API to a script (Node's fetch), and revoking it in the window (after a confirmation)
 * closes it again. The desktop habits (issue 27) by keyboard: a shortcut checked as typed and saved, the
 * sounds shown. And a browser without the session cookie: the page says it is not signed in, and
 * the RPC refuses a call without the cookie.
 */
import { isolate } from '../../../shared/isolate';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

/** Waits for a value: the server and the browser share the machine with other tests, so not just 1 s. */
const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 10_000 });

const suite = uiSuite(40);

const KEY_NAME = 'e2e nightly report';

/** What a script gets from the local API with the key. */
async function listWith(key: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${suite.server.base}/v2/ops/health/datasets/deliveries?pageSize=1`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  return { status: response.status, body: await response.json() };
}

const keyRow = (page: Page): Locator => page.locator('tr[data-key-id]', { hasText: KEY_NAME });

async function openSettings(page: Page): Promise<void> {
  // From the org's landing view (Triage or the datasets), so the new key's org picker starts at it.
  await page.waitForURL(/#\/orgs\/[^/]+\/(triage|datasets)/, { timeout: 20_000 });
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await page.waitForURL(/#\/settings(\?|$)/);
  await page.getByRole('heading', { level: 3, name: 'API keys' }).waitFor();
}

describe('settings: API keys', () => {
  let key: string;

  it('creates a key for the org, named, and shows it once', async () => {
    const { page } = suite.light;
    await openSettings(page);
    await poll(() => page.getByLabel('Org of the new key').textContent()).toContain(UI_ORG);
    const create = page.getByRole('button', { name: 'Create key' });
    await expect(create.isDisabled()).resolves.toBe(true);
    await page.getByLabel('Name of the new key').fill(KEY_NAME);
    await create.click();

    const shown = page.locator('[data-new-key-alert]');
    await shown.waitFor();
    await expect(shown.textContent()).resolves.toContain(`Copy the key “${KEY_NAME}” now`);
    await expect(shown.textContent()).resolves.toContain('It will not be shown again');
    key = (await shown.locator('[data-new-key]').textContent())!.trim();
    expect(key.length).toBeGreaterThan(20);
    await expect(shown.getByRole('button', { name: 'Copy API key' }).isVisible()).resolves.toBe(true);

    // Listed for its org, active, never used; the name field is cleared for the next key.
    const row = keyRow(page);
    await row.waitFor();
    await expect(row.locator('td').nth(1).textContent()).resolves.toBe(UI_ORG);
    await expect(row.locator('[data-key-status]').getAttribute('data-key-status')).resolves.toBe('active');
    await expect(row.textContent()).resolves.toContain('never');
    await expect(page.getByLabel('Name of the new key').inputValue()).resolves.toBe('');

    // Once: gone when dismissed, and nowhere after a reload.
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await poll(() => page.locator('[data-new-key-alert]').count()).toBe(0);
    await expect(page.getByText(key).count()).resolves.toBe(0);
    await page.reload();
    await keyRow(page).waitFor();
    await expect(page.locator('[data-new-key]').count()).resolves.toBe(0);
    await expect(page.getByText(key).count()).resolves.toBe(0);
  });

  it('the key reads the org from the local API', async () => {
    const { status, body } = await listWith(key);
    expect(status).toBe(200);
    const { items } = body as { items: { datasetId: string }[] };
    expect(items).toHaveLength(1);
    const ids = new Set(suite.server.snapshot.datasets.map((record) => record.datasetId));
    expect(ids.has(items[0]!.datasetId)).toBe(true);
  });

  it('revoking asks first: Cancel keeps the key working', async () => {
    const { page } = suite.light;
    await keyRow(page)
      .getByRole('button', { name: `Revoke key ${KEY_NAME}` })
      .click();
    const confirm = page.locator('.n-popconfirm');
    await confirm.waitFor();
    await expect(confirm.textContent()).resolves.toContain(`Revoke “${KEY_NAME}”?`);
    await confirm.getByRole('button', { name: 'Cancel', exact: true }).click();
    await poll(() => page.locator('.n-popconfirm').count()).toBe(0);
    await expect(keyRow(page).locator('[data-key-status]').getAttribute('data-key-status')).resolves.toBe(
      'active',
    );
    expect((await listWith(key)).status).toBe(200);
  });

  it('revoking in the window (confirmed) makes the API refuse the key', async () => {
    const { page } = suite.light;
    await keyRow(page)
      .getByRole('button', { name: `Revoke key ${KEY_NAME}` })
      .click();
    const confirm = page.locator('.n-popconfirm');
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Revoke', exact: true }).click();
    await poll(() => keyRow(page).locator('[data-key-status]').getAttribute('data-key-status')).toBe(
      'revoked',
    );
    // The toast is one string: the name in it isolated (U+2068…U+2069), as <bdi> does in a page.
    await poll(() => page.getByText(`Key “${isolate(KEY_NAME)}” revoked`).count()).toBeGreaterThan(0);
    // The key's use by the script above is on record.
    await expect(keyRow(page).textContent()).resolves.not.toContain('never');
    await expect(
      keyRow(page)
        .getByRole('button', { name: `Revoke key ${KEY_NAME}` })
        .count(),
    ).resolves.toBe(0);

    const { status, body } = await listWith(key);
    expect(status).toBe(401);
    expect(body).toMatchObject({
      status: 401,
      code: 'UNAUTHENTICATED',
      message: expect.stringMatching(/revoked/),
    });
  });

  it('logged no console errors', () => {
    expect(suite.light.errors).toEqual([]);
  });
});

describe('settings: desktop habits', () => {
  const SHORTCUT_FIELD = 'Global shortcut (Electron accelerator)';

  it('the shortcut is checked as typed and saved by keyboard; start at login and the sounds are shown', async () => {
    const { page } = suite.light;
    await page.goto(`${suite.server.base}/#/settings?section=desktop`);
    const desktop = page.locator('#settings-desktop');
    await desktop.getByRole('heading', { name: 'Desktop' }).waitFor();
    // Served by `serve`: the habits are the desktop app's, and the section says so.
    await expect(desktop.locator('[data-shortcut-state]').textContent()).resolves.toBe(
      'Applies in the desktop app.',
    );

    const field = page.getByLabel(SHORTCUT_FIELD);
    await field.focus();
    await page.keyboard.type('Shift+H');
    await poll(() => desktop.textContent()).toContain('"H" alone would be taken from every other app');
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    const save = page.getByRole('button', { name: 'Save desktop settings' });
    await expect(save.isDisabled()).resolves.toBe(true);

    await field.fill('');
    await page.keyboard.type('CommandOrControl+Shift+H');
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('false');
    // Tab reaches the switch; Space turns it; Enter in the field saves the form.
    await page.keyboard.press('Tab');
    const login = page.getByRole('switch', { name: 'Start at login' });
    await poll(() => page.evaluate("document.activeElement?.getAttribute('aria-label')")).toBe(
      'Start at login',
    );
    await page.keyboard.press('Space');
    await poll(() => login.getAttribute('aria-checked')).toBe('true');
    await field.focus();
    await page.keyboard.press('Enter');
    await poll(() => page.getByText('Desktop settings saved').count()).toBeGreaterThan(0);
    await poll(() => save.isDisabled()).toBe(true);
    await screenshot(page, 'settings-desktop');

    await page.reload();
    await page.getByLabel(SHORTCUT_FIELD).waitFor();
    await expect(page.getByLabel(SHORTCUT_FIELD).inputValue()).resolves.toBe('CommandOrControl+Shift+H');
    await expect(
      page.getByRole('switch', { name: 'Start at login' }).getAttribute('aria-checked'),
    ).resolves.toBe('true');

    const notifications = page.locator('#settings-notifications');
    await expect(notifications.getByLabel('Sound of a notification').textContent()).resolves.toContain(
      'System sound',
    );
    await expect(
      notifications.getByLabel('Sound of an urgent notification').textContent(),
    ).resolves.toContain('Sosumi (macOS)');
    await expect(notifications.locator('[data-sound-note]').textContent()).resolves.toContain(
      'Named sounds play on macOS',
    );
    expect(suite.light.errors).toEqual([]);
  });
});

describe('without the session cookie', () => {
  it('the page says it is not signed in and how to sign in', async () => {
    const context = await suite.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    try {
      await page.goto(suite.server.base);
      const result = page.locator('.n-result');
      await result.waitFor({ timeout: 20_000 });
      await screenshot(page, 'not-signed-in');
      await expect(result.locator('.n-result-header__title').textContent()).resolves.toBe('Not signed in');
      const text = await result.textContent();
      expect(text).toContain('dataset-health serve --ui');
      expect(text).toMatch(/Web UI link/);
      // The banner over every view says the same, not that the engine is unreachable.
      const banner = page.getByRole('alert');
      await poll(() => banner.first().textContent()).toMatch(/^Not signed in/);
      await expect(page.getByText('cannot be reached').count()).resolves.toBe(0);
      await expect(page.locator('tr[data-dataset-id]').count()).resolves.toBe(0);
      // The only errors are the refused calls.
      expect(errors.length).toBeGreaterThan(0);
      for (const error of errors) expect(error).toMatch(/status of 401 \(Unauthorized\)/);
    } finally {
      await context.close();
    }
  });

  it('the RPC refuses a call without the cookie', async () => {
    const response = await fetch(`${suite.server.base}/rpc/orgs.list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: 'null',
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: { code: 'unauthenticated', message: expect.stringMatching(/^not signed in/) },
    });
  });
});
