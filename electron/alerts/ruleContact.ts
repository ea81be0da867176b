/**
 * Lost contact through the org's rules (docs/decisions.md "Rule notifications: one evaluator"): each
 * outage the contact watch records is a `contact-lost` fact, judged when it is recorded (its time is the
 * outage's, as the replay reads it from sync_outages), sent and recorded like any other; a digest rule
 * gathers it. The tray's own notices of loss and regain (contact.ts: held in quiet hours, none while
 * paused) are shown only when the org's rule for lost contact sends to the tray; a regain follows the
 * rule of its loss.
 */
import { TRAY_ROUTE } from '../../shared/rules';
import type { Outage } from '../store/tables/outages';
import type { AlertsContext } from './context';
import { sendRuleNotifications } from './ruleSend';
import { gather } from './digests';
import { contactFact } from './ruleFacts';
import { judge } from './ruleRun';
import { rulesOf } from './ruling';
import type { Announcement } from './types';

/** Judges the outages recorded now; keeps the tray's notices their org's rules send to the tray. */
export function ruleContact(
  ctx: AlertsContext,
  lost: readonly Outage[],
  notices: readonly Announcement[],
): Announcement[] {
  for (const outage of lost) {
    const judged = judge(rulesOf(ctx, outage.orgId), [contactFact(outage)], outage.lostAt);
    gather(ctx, judged.gathered, new Date(outage.lostAt));
    sendRuleNotifications(ctx, judged.notifications);
  }
  return notices.flatMap((notice): Announcement[] => {
    if (notice.kind !== 'contact-lost' && notice.kind !== 'contact-regained') return [notice];
    const rule = rulesOf(ctx, notice.orgId).decide(contactFact(notice));
    // A timeline-only or digest rule, or one that sends elsewhere: the tray stays quiet.
    if (rule === null || !rule.routes.includes(TRAY_ROUTE)) return [];
    if (rule.action === 'urgent') return [{ ...notice, urgent: true as const }];
    return rule.action === 'notify' ? [notice] : [];
  });
}
