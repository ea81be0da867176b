/**
 * `rules export|import|reset` (docs/decisions.md "Notification rules"): an org's notification rules as
 * a JSON file. `export` prints the org's rules (the default set when it saved none of its own); `import`
 * checks the whole file and saves it, or names every problem by its field and changes nothing.
 */
import Type from 'typebox';
import { checkRulesFile } from '../../../shared/ruleCheck';
import {
  RULES_FILE_FORMAT,
  RULES_FILE_VERSION,
  type RuleSet,
  type RulesFile,
  defaultRuleSet,
} from '../../../shared/rules';
import type { Settings } from '../../../shared/settings';
import type { Store } from '../../store/database';
import { printable } from '../../store/tables/orgs';
import { readRuleSet, resetRuleSet, saveRuleSet } from '../../store/tables/ruleSets';
import { CommandError, READ_ONLY, command } from '../command';
import { checkOrg, knownOrg, orgOrOnly } from './org';

/** The default set of this data directory: recoveries follow Settings → Notifications. */
export const defaultRulesOf = (settings: Settings): RuleSet =>
  defaultRuleSet({ recoveryNotices: settings.notifications.recoveryNotices });

const orgOf = (store: Store, org: string | undefined, asker: string): string =>
  orgOrOnly(store, org, { nothing: 'import or sync an org first', asker });

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

export const rulesExport = command({
  args: Type.Object({ org: Type.Optional(Type.String()) }, { additionalProperties: false }),
  async run({ store, settings }, { org }, out) {
    if (org !== undefined) checkOrg(org);
    const fallback = defaultRulesOf(await settings());
    const { orgId, stored } = await store.whenIdle(() => {
      const orgId = orgOf(store, org, 'rules export');
      return { orgId, stored: readRuleSet(store, orgId, fallback) };
    });
    const file: RulesFile = {
      format: RULES_FILE_FORMAT,
      version: RULES_FILE_VERSION,
      orgId,
      rules: stored.set.rules,
      routes: stored.set.routes,
    };
    out.stdout(`${JSON.stringify(file, null, 2)}\n`);
    out.stderr(
      stored.own
        ? `The rules of ${orgId}: ${plural(file.rules.length, 'rule')}, ${plural(file.routes.length, 'route')}, saved ${stored.savedAt}.\n`
        : `${orgId} has the default rules (it saved none of its own).\n`,
    );
    const secrets = file.routes.filter((route) => route.kind === 'webhook' && route.secretHeader !== null);
    if (secrets.length > 0)
      out.stderr(
        `The file holds the secret header of ${secrets.map((route) => route.id).join(', ')}: keep it private.\n`,
      );
  },
  ifOutcomeUnknown: () => READ_ONLY,
});

export const rulesImport = command({
  args: Type.Object(
    { org: Type.Optional(Type.String()), file: Type.Unknown(), source: Type.String() },
    { additionalProperties: false },
  ),
  async run({ store, now }, { org, file, source }, out) {
    if (org !== undefined) checkOrg(org);
    const check = checkRulesFile(file);
    if (!check.ok) {
      for (const problem of check.problems)
        out.stderr(`${printable(problem.path ? `${problem.path}: ${problem.message}` : problem.message)}\n`);
      throw new CommandError(
        `${source} is refused (${plural(check.problems.length, 'problem')} above): nothing changed`,
      );
    }
    const { orgId: fileOrg, rules, routes } = check.file;
    const orgId = await store.whenIdle(() => {
      const target = knownOrg(store, org ?? checkOrg(fileOrg));
      saveRuleSet(store, target, { rules, routes }, now());
      return target;
    });
    out.stderr(
      `Saved ${plural(rules.length, 'rule')} and ${plural(routes.length, 'route')} for ${orgId}${
        orgId === fileOrg ? '' : ` (the file was exported from ${printable(fileOrg)})`
      }.\n`,
    );
  },
  ifOutcomeUnknown: ({ org }) =>
    `\`dataset-health rules export${org ? ` --org ${org}` : ''}\` shows the rules in force; importing the file again is safe`,
});

export const rulesReset = command({
  args: Type.Object({ org: Type.Optional(Type.String()) }, { additionalProperties: false }),
  async run({ store }, { org }, out) {
    if (org !== undefined) checkOrg(org);
    const { orgId, had } = await store.whenIdle(() => {
      const orgId = orgOf(store, org, 'rules reset');
      return { orgId, had: resetRuleSet(store, orgId) };
    });
    out.stderr(
      had
        ? `${orgId} is back on the default rules.\n`
        : `${orgId} had no rules of its own: it keeps the default rules.\n`,
    );
  },
  ifOutcomeUnknown: () => 'resetting again is safe',
});
