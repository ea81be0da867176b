/**
 * A replay of the rules as Markdown (docs/decisions.md "Replaying the rules"): per day, per rule, then
 * every notification with its time in the user's zone — what `rules test` prints and
 * `/local/v1/rules/replay?format=md` answers.
 */
import { wallClock } from '../../shared/time';
import { printable } from '../store/tables/orgs';
import type { ReplayResult } from './replay';
import type { RuleNotification } from './ruleRun';

const time = (at: string, zone: string): string => wallClock(new Date(at), zone);

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ');

const line = (notification: RuleNotification, zone: string): string =>
  `- ${time(notification.at, zone)} · ${cell(notification.ruleName)} (${notification.action}) · ${cell(notification.title)} — ${cell(notification.body)}`;

/** The replay as Markdown: per day, per rule, then every notification. */
export function replayMarkdown(result: ReplayResult, zone: string, fromFile: boolean): string {
  const rules = fromFile ? 'the rules of the file' : 'the rules in force';
  const lines = [
    `# What ${rules} would have sent for ${printable(result.orgId)}, last ${result.days} day${result.days === 1 ? '' : 's'}`,
    '',
    `${result.notifications.length} notification${result.notifications.length === 1 ? '' : 's'} replayed; the rules in force sent ${result.sent.length} (times in ${zone}).`,
  ];
  if (result.note !== null) lines.push('', `> ${result.note}`);
  lines.push('', '| Day | Would send | Sent |', '|---|---:|---:|');
  for (const day of result.byDay) lines.push(`| ${day.day} | ${day.count} | ${day.sent} |`);
  lines.push('', '| Rule | Action | Would send | Sent |', '|---|---|---:|---:|');
  for (const rule of result.byRule)
    lines.push(`| ${cell(rule.name)} (${rule.ruleId}) | ${rule.action} | ${rule.count} | ${rule.sent} |`);
  lines.push('', '## Notifications', '');
  if (result.notifications.length === 0) lines.push('None.');
  else lines.push(...result.notifications.map((notification) => line(notification, zone)));
  return `${lines.join('\n')}\n`;
}
