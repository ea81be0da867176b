/**
 * The tray and the notifications against the typed Electron fake (docs/architecture.md#notifications, docs/architecture.md#the-on-call-layer): the icon is red
 * only while a FAILED dataset nobody acknowledged is there, acknowledged ones are counted in the tooltip
 * and marked in the menu, and each announcement kind is one notification that opens where it leads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DEFAULT_SETTINGS } from '../../../shared/settings';
import { computeTrayState } from '../../../electron/alerts/trayState';
import type { Announcement } from '../../../electron/alerts/types';
import { NotificationPresenter } from '../../../electron/main/notifications';
import { TrayController } from '../../../electron/main/tray';
import { acknowledge } from '../../../electron/store/tables/acknowledgements';
import { Store } from '../../../electron/store/database';
import { fakeElectron } from '../../helpers/electronFake';
import { ORG, putDataset, sourceState } from '../../helpers/alerts';
import { type WindowTarget, targetPath } from '../../../shared/routes';

const ROOT = join(import.meta.dirname, '../../..');
const NOW = new Date('2026-11-21T12:00:00.000Z');

let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
});

const fake = () => fakeElectron({ dataDir: '/nonexistent', root: ROOT, now: () => NOW });

describe('tray', () => {
  it('is red only for unacknowledged FAILED; acknowledged ones are in the tooltip and marked in the menu', async () => {
    store = await Store.open({ dataDir: null });
    const db = store;
    const electron = fake();
    const opened: (WindowTarget | undefined)[] = [];
    const tray = new TrayController(electron.deps, {
      open: (target) => opened.push(target),
      syncNow() {},
      pause() {},
      resume() {},
      quit() {},
    });
    const fakeTray = electron.trays[0]!;
    const redraw = () =>
      tray.update(
        computeTrayState(db, [sourceState({ lastSuccessAt: NOW.toISOString() })], DEFAULT_SETTINGS, NOW),
      );
    putDataset(db, 1, 'FAILED', 'd1');
    putDataset(db, 2, 'FAILED', 'd2');
    putDataset(db, 3, 'HEALTHY', 'd3');
    redraw();
    expect(fakeTray.image).toMatch(/tray-failed\.png$/);
    const ack = (datasetId: string, deliveryId: string) =>
      db.transaction(() =>
        acknowledge(db, {
          orgId: ORG,
          datasetId,
          deliveryId,
          status: 'FAILED',
          causeId: null,
          note: 'rotating the key',
          by: 'sam',
          at: NOW.toISOString(),
        }),
      );
    ack('ds-1', 'd1');
    redraw();
    expect(fakeTray.image).toMatch(/tray-failed\.png$/);
    expect(fakeTray.tooltip).toBe('Dataset Health · 2 FAILED (1 acknowledged), 1 healthy · synced just now');
    expect(fakeTray.menu.slice(0, 3).map((item) => item.label)).toEqual([
      '2 FAILED (1 acknowledged)',
      'Dataset 2',
      '✓ Dataset 1 — sam is on it: rotating the key',
    ]);
    electron.trays[0]!.click('✓ Dataset 1 — sam is on it: rotating the key');
    expect(opened).toEqual([{ view: 'dataset', orgId: ORG, datasetId: 'ds-1' }]);
    // All acknowledged: the colour follows the rest.
    ack('ds-2', 'd2');
    redraw();
    expect(fakeTray.image).toMatch(/tray-healthy\.png$/);
    expect(fakeTray.tooltip).toBe('Dataset Health · 2 FAILED (2 acknowledged), 1 healthy · synced just now');
  });
});

describe('tray: overdue (unverified)', () => {
  it('while stale, the menu says the deadlines passed since the last sync and opens the datasets', async () => {
    store = await Store.open({ dataDir: null });
    const electron = fake();
    const opened: (WindowTarget | undefined)[] = [];
    const tray = new TrayController(electron.deps, {
      open: (target) => opened.push(target),
      syncNow() {},
      pause() {},
      resume() {},
      quit() {},
    });
    const fakeTray = electron.trays[0]!;
    putDataset(store, 1, 'HEALTHY', 'd1');
    const stale = sourceState({ lastSuccessAt: '2026-11-21T11:30:00.000Z' });
    tray.update(
      computeTrayState(store, [stale], DEFAULT_SETTINGS, NOW, { deadlines: 3, datasets: 2, orgId: ORG }),
    );
    expect(fakeTray.image).toMatch(/tray-stale\.png$/);
    expect(fakeTray.tooltip).toBe(
      'Dataset Health · 1 healthy · synced 30 minutes ago · 3 deadlines passed since the last sync · data is stale',
    );
    expect(fakeTray.menu.slice(0, 3).map((item) => item.label)).toEqual([
      'Data is not current',
      'data is stale',
      '3 deadlines passed since the last sync',
    ]);
    expect(fakeTray.menu[2]!.toolTip).toBe('2 datasets overdue (unverified): not a status from the remote');
    fakeTray.click('3 deadlines passed since the last sync');
    expect(opened).toEqual([{ view: 'datasets', orgId: ORG }]);
    expect(targetPath(opened[0]!)).toBe(`/orgs/${ORG}/datasets`);
    // Synced again: no overdue item.
    tray.update(
      computeTrayState(store, [sourceState({ lastSuccessAt: NOW.toISOString() })], DEFAULT_SETTINGS, NOW),
    );
    expect(fakeTray.menu.map((item) => item.label)).not.toContain('3 deadlines passed since the last sync');
    expect(fakeTray.tooltip).not.toContain('deadline');
  });
});

const at = NOW.toISOString();
const dataset = { orgId: ORG, datasetId: 'ds-1', datasetName: 'Dataset 1', deliveryId: 'd1' };
const common = { at, title: 't', body: 'b' };
const announcements: [Announcement, 'low' | 'critical', string][] = [
  [
    {
      ...common,
      kind: 'failed',
      dataset,
      reason: null,
      incidentId: 'inc-0000000001',
      causeId: 'unknown',
      target: { view: 'delivery', ...dataset },
    },
    'critical',
    `/orgs/${ORG}/datasets/ds-1/deliveries/d1`,
  ],
  [
    {
      ...common,
      kind: 'cause',
      orgId: ORG,
      incidentId: 'inc-3f9a0c2b71',
      causeId: 'ingest:E_AUTH_FAILED',
      causeTitle: 'Ingest failed: E_AUTH_FAILED',
      suppliers: [],
      datasets: [dataset],
      more: false,
      failingNow: 1,
      target: { view: 'triage', orgId: ORG, incidentId: 'inc-3f9a0c2b71' },
    },
    'critical',
    `/orgs/${ORG}/triage?incident=inc-3f9a0c2b71`,
  ],
  [
    {
      ...common,
      kind: 'reminder',
      orgId: ORG,
      causes: [],
      datasets: [dataset],
      target: { view: 'triage', orgId: ORG },
    },
    'critical',
    `/orgs/${ORG}/triage`,
  ],
  [
    {
      ...common,
      kind: 'contact-lost',
      orgId: ORG,
      sourceId: 's',
      sourceName: 'Acme',
      lastSuccessAt: null,
      lostAt: at,
      target: { view: 'datasets', orgId: ORG },
    },
    'critical',
    `/orgs/${ORG}/datasets`,
  ],
  [
    {
      ...common,
      kind: 'contact-regained',
      orgId: ORG,
      sourceId: 's',
      sourceName: 'Acme',
      lastSuccessAt: null,
      lostAt: at,
      regainedAt: at,
      target: { view: 'datasets', orgId: ORG },
    },
    'low',
    `/orgs/${ORG}/datasets`,
  ],
];

describe('notifications', () => {
  it.each(announcements)(
    '%# one per announcement, alarms critical and good news low, opening where it leads',
    (announcement, urgency, path) => {
      const electron = fake();
      const opened: WindowTarget[] = [];
      const presenter = new NotificationPresenter(electron.deps, (target) => opened.push(target));
      expect(presenter.show(announcement)).toBe(true);
      const [shown] = electron.notifications;
      expect(shown).toMatchObject({ shown: true, options: { title: 't', body: 'b', urgency } });
      shown!.events.fire('click');
      expect(opened).toEqual([announcement.target]);
      expect(targetPath(opened[0]!)).toBe(path);
    },
  );
});
