/**
 * One desktop notification per announcement of the alerter; clicking it opens where the
 * announcement leads (the failed delivery's tasks, a cause in Triage, the FAILED list for a summary, the
 * datasets of a source that lost contact) with the window brought forward. Shown notifications are held until closed: one collected early loses its click.
 * An urgent one (a rule said so) stays until dismissed and plays its own sound (docs/decisions.md
 * "Desktop habits (issue 27)").
 */
import type { NotificationConstructorOptions } from 'electron';
import type { WindowTarget } from '../../shared/routes';
import { DEFAULT_SOUNDS, type Sound, type Sounds } from '../../shared/settings';
import type { Announcement, AnnouncementKind } from '../alerts/types';
import type { ShellDeps, ShellNotification } from './types';

/** What is good news: shown softly (Linux: low urgency, closes by itself). */
const GOOD_NEWS = new Set<AnnouncementKind>(['recovered', 'contact-regained']);

/**
 * A sound as Electron's options: the system's is today's notification (no option); silent is Electron's
 * `silent` everywhere; a name plays on macOS only (`sound`), and elsewhere is the system's sound, since
 * Windows and Linux notifications take no sound by name.
 */
export function soundOptions(
  sound: Sound,
  platform: NodeJS.Platform,
): Pick<NotificationConstructorOptions, 'silent' | 'sound'> {
  if (sound === 'system') return {};
  if (sound === 'silent') return { silent: true };
  return platform === 'darwin' ? { sound } : {};
}

export class NotificationPresenter {
  private readonly shown = new Set<ShellNotification>();

  constructor(
    private readonly deps: Pick<ShellDeps, 'createNotification' | 'notificationsSupported' | 'platform'>,
    private readonly open: (target: WindowTarget) => void,
    private readonly icon?: string,
    /** The sounds in force (read at each notification: Settings may change them). */
    private readonly sounds: () => Sounds = () => DEFAULT_SOUNDS,
  ) {}

  /** Shows it; false when this system has no notifications (the tray still turns red). */
  show(announcement: Announcement): boolean {
    if (!this.deps.notificationsSupported()) return false;
    const urgent = announcement.urgent === true;
    const news = GOOD_NEWS.has(announcement.kind) && !urgent;
    const sounds = this.sounds();
    const notification = this.deps.createNotification({
      title: announcement.title,
      body: announcement.body,
      icon: this.deps.platform === 'darwin' ? undefined : this.icon,
      // Linux: failures, reminders and lost contact stay until seen; recoveries are news, not alarms.
      // Windows keeps a 'never' toast until dismissed too; macOS leaves that to the user's alert style.
      urgency: news ? 'low' : 'critical',
      timeoutType: news ? 'default' : 'never',
      ...soundOptions(urgent ? sounds.urgent : sounds.notify, this.deps.platform),
    });
    this.shown.add(notification);
    notification.on('click', () => {
      this.shown.delete(notification);
      this.open(announcement.target);
    });
    notification.on('close', () => this.shown.delete(notification));
    notification.show();
    return true;
  }
}
