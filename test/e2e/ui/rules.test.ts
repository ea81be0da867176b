/**
 * Settings → Rules in Chromium against `serve --ui` (docs/decisions.md "Settings → Rules"; issue 27).
 * The data directory holds three days of history (the first sync three days before now, so a 7-day
 * replay says where its history starts), failures and a recovery since, what the default rules sent
 * of them, and a delivery to a webhook given up. The editor: a rule added, an invalid id and lateness
 * shown by their fields with Save refused, the rule moved up by keyboard, saved, and there after a
 * reload; the replay of the rules as edited draws its chart with the notifications beneath; a dead
 * letter sent again. axe-core clean in light and dark; screenshots to docs/rules-replay-{light,dark}.png.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayRules } from '../../../electron/alerts/replay';
import { Store } from '../../../electron/store/database';
import { enqueueOutbox, claimOutboxRow, settleOutboxRow } from '../../../electron/store/tables/routeOutbox';
import { recordRuleNotifications } from '../../../electron/store/tables/ruleLog';
import { saveRuleSet } from '../../../electron/store/tables/ruleSets';
import { addTimelineEntry } from '../../../electron/store/tables/timeline';
import { isolate } from '../../../shared/isolate';
import { defaultRuleSet } from '../../../shared/rules';
import { expectAccessible } from '../../helpers/axe';
import { type Receiver, startReceiver } from '../../helpers/receiver';
import { SCREENSHOTS, UI_NOW, UI_ORG, screenshot, uiSuite } from '../../helpers/ui';

const poll = <T>(read: () => T | Promise<T>) => expect.poll(read, { timeout: 15_000 });
const DOCS = fileURLToPath(new URL('../../../docs', import.meta.url));
const HOUR = 3_600_000;
const ago = (hours: number) => new Date(UI_NOW.getTime() - hours * HOUR).toISOString();

/** The team channel's webhook: it answers now; it was down when the delivery was given up. */
let channel: Receiver;
// Registered before the suite's own setup, which writes the receiver's address into the rules.
beforeAll(async () => {
  channel = await startReceiver(() => ({ status: 200 }));
});
afterAll(() => channel?.close());

/** Three days of history: every dataset HEALTHY at the first sync, then failures and a recovery. */
async function prepare(dataDir: string, snapshot: { datasets: { datasetId: string }[] }): Promise<void> {
  const store = await Store.open({ dataDir, checkpoint: { openCheckpointDelayMs: 0 } });
  const ids = snapshot.datasets.slice(0, 8).map((record) => record.datasetId);
  store.transaction(() => {
    for (const datasetId of ids)
      addTimelineEntry(store, { orgId: UI_ORG, datasetId, at: ago(72), kind: 'status', to: 'HEALTHY' });
    const change = (n: number, hours: number, from: string, to: string) =>
      addTimelineEntry(store, {
        orgId: UI_ORG,
        datasetId: ids[n]!,
        at: ago(hours),
        kind: 'status',
        from,
        to,
        deliveryId: `replay-${n}-${hours}`,
      });
    change(0, 60, 'HEALTHY', 'FAILED');
    change(1, 50, 'HEALTHY', 'FAILED');
    change(0, 40, 'FAILED', 'HEALTHY');
    change(2, 30, 'HEALTHY', 'FAILED');
    change(3, 20, 'HEALTHY', 'MISSING');
    change(4, 6, 'HEALTHY', 'FAILED');
    change(5, 2, 'HEALTHY', 'FAILED');
  });
  // What the default rules in force sent, as the live alerts would have recorded it.
  const sent = replayRules({
    store,
    orgId: UI_ORG,
    set: defaultRuleSet({ recoveryNotices: false }),
    days: 7,
    now: UI_NOW,
    timeZone: 'UTC',
  });
  recordRuleNotifications(store, sent.notifications, UI_NOW);
  // A webhook that refused a delivery at its every attempt (stored as the deliverer leaves it).
  saveRuleSet(
    store,
    UI_ORG,
    {
      rules: [
        ...defaultRuleSet({ recoveryNotices: false }).rules.map((rule) =>
          rule.id === 'failed' ? { ...rule, routes: ['tray', 'channel'] } : rule,
        ),
      ],
      routes: [
        {
          id: 'channel',
          kind: 'webhook',
          name: 'Team channel',
          url: channel.url,
          secretHeader: { name: 'X-Secret', value: 'never-shown-secret' },
          timeoutSeconds: 5,
        },
      ],
    },
    new Date(UI_NOW.getTime() - HOUR),
  );
  enqueueOutbox(
    store,
    [
      {
        orgId: UI_ORG,
        notificationId: 'acme:failed:failed:e2e',
        routeId: 'channel',
        payload: JSON.stringify({ title: 'FAILED: a dataset', body: '' }),
      },
    ],
    new Date(UI_NOW.getTime() - 2 * HOUR),
  );
  const row = store.get('SELECT id FROM route_outbox')!;
  claimOutboxRow(store, Number(row.id), new Date(UI_NOW.getTime() - 2 * HOUR));
  settleOutboxRow(
    store,
    Number(row.id),
    { state: 'dead', error: 'could not connect: ECONNREFUSED (gave up after 5 attempts)' },
    new Date(UI_NOW.getTime() - HOUR),
  );
  // As the deliverer leaves it after its fifth attempt.
  store.run('UPDATE route_outbox SET attempts = 5 WHERE id = ?', [Number(row.id)]);
  await store.close();
}

const suite = uiSuite(40, { dark: true, prepare });

async function openRules(page: Page): Promise<Locator> {
  await page.goto(`${suite.server.base}/#/settings?section=rules`);
  const section = page.locator('#settings-rules');
  await section.locator('tr[data-rule-id]').first().waitFor({ timeout: 20_000 });
  return section;
}

const ruleIds = (section: Locator): Promise<string[]> =>
  section
    .locator('tr[data-rule-id]')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-rule-id')!));

/** The message under the field with this accessible name (its naive-ui form item's feedback). */
const feedbackOf = (section: Locator, name: string): Locator =>
  section
    .locator('.n-form-item', { has: section.page().getByLabel(name, { exact: true }) })
    .locator('.n-form-item-feedback');

describe('settings: rules', () => {
  it('shows the rules in force in words, and a webhook secret only as set', async () => {
    const section = await openRules(suite.light.page);
    await expect(ruleIds(section)).resolves.toEqual(['failed', 'contact-lost', 'recovered']);
    await expect(section.locator('tr[data-rule-id="failed"]').textContent()).resolves.toContain(
      'Tray, Team channel',
    );
    await expect(section.locator('[data-route-secret]').textContent()).resolves.toBe('X-Secret: set');
    await expect(suite.light.page.content()).resolves.not.toContain('never-shown-secret');
  });

  it('adds a rule: an invalid value is shown by its field and Save is refused until it is mended', async () => {
    const { page } = suite.light;
    const section = page.locator('#settings-rules');
    await section.getByRole('button', { name: 'Add a rule' }).click();
    const form = section.locator('[data-rule-form="3"]');
    await form.waitFor();
    await form.getByLabel('Rule name', { exact: true }).fill('FX late');
    await form.getByLabel('Rule id', { exact: true }).fill('FX Late');
    await poll(() => feedbackOf(form, 'Rule id').textContent()).toContain(
      'must be lower-case letters, digits and dashes',
    );
    await expect(form.getByLabel('Rule id', { exact: true }).getAttribute('aria-invalid')).resolves.toBe(
      'true',
    );
    const save = section.getByRole('button', { name: 'Save rules' });
    await expect(save.isDisabled()).resolves.toBe(true);
    await expect(section.locator('[data-rules-problems]').textContent()).resolves.toContain(
      'Rule 4 (FX late), id',
    );
    // The form with a problem shown, the routes and the dead letters, as a screen reader meets them.
    await expectAccessible(page, 'settings → rules, a rule with a problem, light');

    await form.getByLabel('Rule id', { exact: true }).fill('fx-late');
    await form.getByLabel('Event', { exact: true }).click();
    await page.locator('.n-base-select-option', { hasText: 'Delivered late by more than' }).click();
    const lateBy = form.getByLabel('Late by more than, minutes', { exact: true });
    await poll(() => lateBy.inputValue()).toBe('30');
    await lateBy.fill('2000');
    await lateBy.blur();
    await poll(() => feedbackOf(form, 'Late by more than, minutes').textContent()).toMatch(/1440/);
    await expect(save.isDisabled()).resolves.toBe(true);
    await lateBy.fill('45');
    await lateBy.blur();
    await form.getByLabel('Match data products', { exact: true }).fill('FX, Rates');
    await poll(() => section.locator('[data-rules-problems]').count()).toBe(0);
    await expect(section.locator('tr[data-rule-id="fx-late"]').textContent()).resolves.toContain(
      'data product “FX”, “Rates”',
    );
    await expect(save.isDisabled()).resolves.toBe(false);
  });

  it('moves the rule up by keyboard, the focus staying on its button; saved, it is there after a reload', async () => {
    const { page } = suite.light;
    const section = page.locator('#settings-rules');
    const up = section.getByRole('button', { name: 'Move rule FX late up' });
    await up.focus();
    await page.keyboard.press('Enter');
    await poll(() => ruleIds(section)).toEqual(['failed', 'contact-lost', 'fx-late', 'recovered']);
    await poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe(
      'Move rule FX late up',
    );
    await page.keyboard.press('Enter');
    await poll(() => ruleIds(section)).toEqual(['failed', 'fx-late', 'contact-lost', 'recovered']);

    await section.getByRole('button', { name: 'Save rules' }).click();
    await poll(() => page.getByText('Rules saved').count()).toBeGreaterThan(0);
    await page.reload();
    const again = await openRules(page);
    await expect(ruleIds(again)).resolves.toEqual(['failed', 'fx-late', 'contact-lost', 'recovered']);
    await expect(again.locator('tr[data-rule-id="fx-late"]').textContent()).resolves.toContain(
      'Delivered late by more than 45 min',
    );
    // The secret was kept through the save, and still not shown.
    await expect(again.locator('[data-route-secret]').textContent()).resolves.toBe('X-Secret: set');
  });

  it('edits routes: a webhook address checked as typed, a saved secret never shown back', async () => {
    const { page } = suite.light;
    const section = page.locator('#settings-rules');
    await section.getByRole('button', { name: 'Edit route Team channel' }).click();
    const channel = section.locator('[data-route-form="0"]');
    const secret = channel.getByLabel('Secret header value', { exact: true });
    await expect(secret.inputValue()).resolves.toBe('');
    await expect(secret.getAttribute('placeholder')).resolves.toBe('set: type a new value to replace it');
    await expect(channel.getByText('Secret value (set)').count()).resolves.toBe(1);

    await section.getByRole('button', { name: 'Add a webhook' }).click();
    const added = section.locator('[data-route-form="1"]');
    await added.getByLabel('Webhook address', { exact: true }).fill('hooks.example.com/x');
    await poll(() => feedbackOf(added, 'Webhook address').textContent()).toBe(
      'must be an http:// or https:// address',
    );
    await expect(section.getByRole('button', { name: 'Save rules' }).isDisabled()).resolves.toBe(true);
    await section.getByRole('button', { name: 'Remove route Webhook' }).click();
    await poll(() => section.locator('tr[data-route-id]').count()).toBe(1);
    await expect(section.getByRole('button', { name: 'Save rules' }).isDisabled()).resolves.toBe(true);
  });

  it('sends a dead letter again and says so', async () => {
    const { page } = suite.light;
    const section = page.locator('#settings-rules');
    const letter = section.locator('tr[data-dead-letter]');
    await letter.waitFor();
    await expect(letter.textContent()).resolves.toContain('ECONNREFUSED');
    await letter.getByRole('button', { name: 'Send again FAILED: a dataset to Team channel' }).click();
    await poll(() => section.locator('[data-sent-again]').textContent()).toContain(
      `is on its way to ${isolate('Team channel')} again`,
    );
    await poll(() => section.locator('tr[data-dead-letter]').count()).toBe(0);
    // The running engine's deliverer was woken: the webhook has it, with the secret the window never saw.
    await channel.received(1);
    expect(channel.accepted.map((request) => [request.json?.title, request.headers['x-secret']])).toEqual([
      ['FAILED: a dataset', 'never-shown-secret'],
    ]);
  });

  it.each(['light', 'dark'] as const)(
    'replays the edited rules before saving: the chart, the note and the notifications beneath (%s)',
    async (scheme) => {
      const { page } = suite[scheme];
      const section = await openRules(page);
      // An edit not saved: recoveries told too. The replay is of the rules as edited.
      await section.getByRole('button', { name: 'Edit rule Recoveries' }).click();
      await section.getByLabel('Rule enabled', { exact: true }).click();
      await section.getByRole('button', { name: 'Replay these rules' }).click();
      const replay = section.locator('[data-replay]');
      await replay.waitFor({ timeout: 20_000 });
      await expect(replay.locator('[data-replay-note]').textContent()).resolves.toMatch(/History starts/);
      await section.getByRole('img', { name: /Notifications per day over the last 7 days/ }).waitFor();
      await poll(() => replay.locator('svg path').count()).toBeGreaterThan(0);
      const listed = replay.locator('tr[data-replay-notification]');
      await poll(() => listed.count()).toBeGreaterThan(0);
      await expect(replay.textContent()).resolves.toContain('Recoveries');
      await expect(replay.locator('[data-replay-summary]').textContent()).resolves.toMatch(
        /would have sent \d+ notifications? over the last 7 days; the rules in force sent \d+/,
      );
      await expectAccessible(page, `settings → rules with a replay, ${scheme}`);
      await replay.scrollIntoViewIfNeeded();
      await screenshot(page, `rules-replay-${scheme}`);
      await section
        .locator('.replay')
        .screenshot({ path: join(SCREENSHOTS, `rules-replay-${scheme}-part.png`) });
      copyFileSync(
        join(SCREENSHOTS, `rules-replay-${scheme}-part.png`),
        join(DOCS, `rules-replay-${scheme}.png`),
      );
    },
  );

  it('resets to the default rules after a confirmation', async () => {
    const { page } = suite.light;
    const section = await openRules(page);
    await section.getByRole('button', { name: 'Reset to defaults' }).click();
    const confirm = page.locator('.n-popconfirm');
    await confirm.waitFor();
    await confirm.getByRole('button', { name: 'Reset', exact: true }).click();
    await poll(() => ruleIds(section)).toEqual(['failed', 'contact-lost', 'recovered']);
    await poll(() => section.locator('[data-rules-state]').textContent()).toContain('The default rules');
    await expect(section.locator('tr[data-route-id]').count()).resolves.toBe(0);
  });

  it('logged no console errors', () => {
    expect(suite.light.errors).toEqual([]);
    expect(suite.dark.errors).toEqual([]);
  });
});
