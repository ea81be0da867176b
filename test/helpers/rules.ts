/** A rule set that uses every kind of rule and route, as the rules tests start from. */
import { RULES_FILE_FORMAT, type Rule, type RuleSet, type RulesFile, TRAY_ROUTE } from '../../shared/rules';

/** Late FX urgent to the tray and a webhook; a noisy supplier on the timeline; MISSING in a digest. */
export function sampleRuleSet(): RuleSet {
  return {
    rules: [
      {
        id: 'fx-late',
        name: 'FX late by 30 min',
        enabled: true,
        event: 'late',
        lateByMinutes: 30,
        match: { dataProducts: ['FX'] },
        action: 'urgent',
        routes: ['tray', 'channel'],
      },
      {
        id: 'noisy',
        name: 'Noisy supplier: timeline only',
        enabled: true,
        event: 'failed',
        match: { suppliers: ['ACME Feeds'] },
        action: 'timeline',
        routes: [],
      },
      {
        id: 'digest',
        name: 'Missing, twice a day',
        enabled: true,
        event: 'missing',
        match: {},
        action: 'digest',
        digest: { at: ['08:00', '17:30'] },
        routes: ['tray'],
      },
    ],
    routes: [
      {
        id: 'channel',
        kind: 'webhook',
        name: 'Team channel',
        url: 'https://hooks.example.com/T000/B000',
        secretHeader: { name: 'X-Secret', value: 's3cret' },
        timeoutSeconds: 10,
      },
    ],
  };
}

/** The sample set as the rules file of `orgId`. */
export function sampleRulesFile(orgId = 'acme'): RulesFile {
  return { format: RULES_FILE_FORMAT, version: 1, orgId, ...sampleRuleSet() };
}

/** A rule about new failures, told in the tray, with `fields` changed. */
export const ruleOf = (id: string, fields: Partial<Rule> = {}): Rule => ({
  id,
  name: id,
  enabled: true,
  event: 'failed',
  match: {},
  action: 'notify',
  routes: [TRAY_ROUTE],
  ...fields,
});
