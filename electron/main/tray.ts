/**
 * The tray (docs/architecture.md#the-tray): its icon follows the alerter's state (red, amber, green, grey), its
 * tooltip gives counts (acknowledged failures among them) and data age, and its menu lists the FAILED
 * datasets (each opens its page; acknowledged ones marked, after the others), while the data is stale
 * the deadlines passed since the last sync (overdue, unverified: opens the datasets), then Sync now,
 * Pause notifications, Open and Quit.
 */
import { join } from 'node:path';
import type { MenuItemConstructorOptions } from 'electron';
import type { WindowTarget } from '../../shared/routes';
import { overdueText } from '../../shared/upcoming';
import { onItLine } from '../../shared/causes';
import { DISK_PROBLEM_TEXT, type TrayState } from '../alerts/trayState';
import { trayIconFile } from './icons/files';
import type { ShellDeps, ShellTray } from './types';

export type PauseChoice = '1h' | '8h' | 'forever';

export interface TrayActions {
  open(target?: WindowTarget): void;
  syncNow(): void;
  pause(choice: PauseChoice): void;
  resume(): void;
  quit(): void;
}

const DISK_PROBLEM_LABEL = `${DISK_PROBLEM_TEXT[0]!.toUpperCase()}${DISK_PROBLEM_TEXT.slice(1)} (retrying)`;

/** While the database opens: what the tray can offer already (the window shows the progress). */
export function openingMenuTemplate(
  actions: Pick<TrayActions, 'open' | 'quit'>,
): MenuItemConstructorOptions[] {
  return [
    { label: 'Opening the database…', enabled: false },
    { type: 'separator' },
    { label: 'Open Dataset Health', click: () => actions.open() },
    { label: 'Quit', role: 'quit', click: () => actions.quit() },
  ];
}

/** A note in a menu label: enough to recognise it ("vendor ticket 4711"), not a paragraph. */
const TRAY_NOTE_LENGTH = 60;

/** `&` starts a mnemonic in menu labels on Windows and Linux: a dataset's `&` must stay an `&`. */
const label = (text: string): string => text.replace(/&/g, '&&');

export function trayMenuTemplate(state: TrayState, actions: TrayActions): MenuItemConstructorOptions[] {
  const failed: MenuItemConstructorOptions[] = state.failed.map((dataset) => ({
    label: label(
      dataset.acknowledgedBy === null
        ? (dataset.datasetName ?? dataset.datasetId)
        : `✓ ${dataset.datasetName ?? dataset.datasetId} — ${onItLine(dataset.acknowledgedBy, dataset.acknowledgedNote, TRAY_NOTE_LENGTH)}`,
    ),
    toolTip: `${dataset.orgId} · ${dataset.datasetId}`,
    click: () => actions.open({ view: 'dataset', orgId: dataset.orgId, datasetId: dataset.datasetId }),
  }));
  const more = state.failedTotal - state.failed.length;
  const orgId = state.orgId;
  if (more > 0 && orgId !== null)
    failed.push({
      label: `All ${state.failedTotal.toLocaleString('en-US')} FAILED datasets…`,
      click: () => actions.open({ view: 'failed', orgId }),
    });
  const header =
    state.failedTotal > 0
      ? `${state.failedTotal.toLocaleString('en-US')} FAILED` +
        (state.failedAcknowledged > 0
          ? ` (${state.failedAcknowledged.toLocaleString('en-US')} acknowledged)`
          : '')
      : state.level === 'stale'
        ? 'Data is not current'
        : 'Nothing FAILED';
  const paused = state.pausedUntil !== null;
  const overdueOrg = state.overdue.orgId;
  const overdue: MenuItemConstructorOptions[] =
    state.overdue.deadlines > 0 && overdueOrg !== null
      ? [
          {
            label: overdueText(state.overdue.deadlines),
            toolTip:
              `${state.overdue.datasets.toLocaleString('en-US')} dataset` +
              `${state.overdue.datasets === 1 ? '' : 's'} overdue (unverified): not a status from the remote`,
            click: () => actions.open({ view: 'datasets', orgId: overdueOrg }),
          },
        ]
      : [];
  return [
    { label: header, enabled: false },
    ...(state.distrust !== null ? [{ label: label(state.distrust), enabled: false }] : []),
    ...(state.diskProblem ? [{ label: DISK_PROBLEM_LABEL, enabled: false }] : []),
    ...overdue,
    ...failed,
    { type: 'separator' },
    { label: 'Sync now', click: () => actions.syncNow() },
    {
      label: paused ? 'Notifications paused' : 'Pause notifications',
      submenu: [
        ...(paused
          ? [{ label: 'Resume notifications', click: () => actions.resume() }, { type: 'separator' as const }]
          : []),
        { label: 'For 1 hour', click: () => actions.pause('1h') },
        { label: 'For 8 hours', click: () => actions.pause('8h') },
        { label: 'Until resumed', click: () => actions.pause('forever') },
      ],
    },
    { type: 'separator' },
    { label: 'Open Dataset Health', click: () => actions.open() },
    { label: 'Quit', role: 'quit', click: () => actions.quit() },
  ];
}

export class TrayController {
  private readonly tray: ShellTray;
  private level: TrayState['level'] = 'stale';

  constructor(
    private readonly deps: Pick<ShellDeps, 'createTray' | 'platform' | 'files'>,
    private readonly actions: TrayActions,
  ) {
    this.tray = deps.createTray(this.iconPath('stale'));
    // Until the engine's first state: the database may take seconds to open (issue 12).
    this.tray.setToolTip('Dataset Health · opening the database…');
    this.tray.setMenu(openingMenuTemplate(actions));
    // Windows and Linux: a click opens the window (macOS opens the menu).
    this.tray.on('click', () => actions.open());
  }

  /** The icon's file for a state, as this OS wants it. */
  iconPath(level: TrayState['level']): string {
    return join(this.deps.files.resources, 'tray', trayIconFile(level, this.deps.platform));
  }

  update(state: TrayState): void {
    if (state.level !== this.level) {
      this.level = state.level;
      this.tray.setImage(this.iconPath(state.level));
    }
    this.tray.setToolTip(state.tooltip);
    this.tray.setMenu(trayMenuTemplate(state, this.actions));
  }

  destroy(): void {
    this.tray.destroy();
  }
}
