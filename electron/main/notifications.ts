/**
 * One desktop notification per announcement of the alerter; clicking it opens where the
 * announcement leads (the failed delivery's tasks, a cause in Triage, the FAILED list for a summary, the
 * datasets of a source that lost contact) with the window brought forward. Shown notifications are held until closed: one collected early loses its click.
 */
import type { WindowTarget } from '../../shared/routes';
import type { Announcement, AnnouncementKind } from '../alerts/types';
import type { ShellDeps, ShellNotification } from './types';

/** What is good news: shown softly (Linux: low urgency, closes by itself). */
const GOOD_NEWS = new Set<AnnouncementKind>(['recovered', 'contact-regained']);

export class NotificationPresenter {
  private readonly shown = new Set<ShellNotification>();

  constructor(
    private readonly deps: Pick<ShellDeps, 'createNotification' | 'notificationsSupported' | 'platform'>,
    private readonly open: (target: WindowTarget) => void,
    private readonly icon?: string,
  ) {}

  /** Shows it; false when this system has no notifications (the tray still turns red). */
  show(announcement: Announcement): boolean {
    if (!this.deps.notificationsSupported()) return false;
    const news = GOOD_NEWS.has(announcement.kind);
    const notification = this.deps.createNotification({
      title: announcement.title,
      body: announcement.body,
      icon: this.deps.platform === 'darwin' ? undefined : this.icon,
      // Linux: failures, reminders and lost contact stay until seen; recoveries are news, not alarms.
      urgency: news ? 'low' : 'critical',
      timeoutType: news ? 'default' : 'never',
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
