/**
 * The settings sections, in page order: one table drives both the list to jump between them and the
 * panels themselves, so a section is added (or renamed) in one place.
 */
import type { Component } from 'vue';
import ApiSettings from './ApiSettings.vue';
import DataSettings from './DataSettings.vue';
import DesktopSettings from './DesktopSettings.vue';
import IntervalSettings from './IntervalSettings.vue';
import NotificationSettings from './NotificationSettings.vue';
import SourcesSettings from './SourcesSettings.vue';
import RulesSettings from './rules/RulesSettings.vue';
import TeamSettings from './TeamSettings.vue';
import TriageSettings from './TriageSettings.vue';

export interface SettingsSectionEntry {
  /** Also `?section=` and the anchor `#settings-<id>`. */
  id: string;
  title: string;
  description: string;
  component: Component;
}

export const SECTIONS: readonly SettingsSectionEntry[] = [
  {
    id: 'sources',
    title: 'Sources',
    description: 'The remote Dataset Health orgs this app mirrors. Saving a source restarts its sync.',
    component: SourcesSettings,
  },
  {
    id: 'team',
    title: 'Team',
    description:
      'Share acknowledgements, notes and snoozes with your rota through a team server; it then mirrors the org for everyone.',
    component: TeamSettings,
  },
  {
    id: 'intervals',
    title: 'Sync intervals',
    description: 'How often each source is asked for changes (fast poll) and crawled completely.',
    component: IntervalSettings,
  },
  {
    id: 'notifications',
    title: 'Notifications',
    description: 'Desktop notifications about datasets that start failing or go missing.',
    component: NotificationSettings,
  },
  {
    id: 'rules',
    title: 'Rules',
    description:
      'Per org: which events are told, how (notify, urgent, digest, timeline only) and where — the tray, webhooks, command hooks.',
    component: RulesSettings,
  },
  {
    id: 'triage',
    title: 'Triage',
    description: 'Who your acknowledgements name, and how often failures nobody owns are reminded.',
    component: TriageSettings,
  },
  {
    id: 'api',
    title: 'Local API',
    description: 'The read-only v2 health API this app serves on this machine, for scripts.',
    component: ApiSettings,
  },
  {
    id: 'desktop',
    title: 'Desktop',
    description: 'A global shortcut to Triage, and opening at login (the desktop app).',
    component: DesktopSettings,
  },
  {
    id: 'data',
    title: 'Data',
    description: 'The local mirror: how much history it keeps, where it lives.',
    component: DataSettings,
  },
];
