/**
 * `rules test [--days 7] [--file rules.json] [--format md|json]` (docs/decisions.md "Replaying the
 * rules"): what a rule set — a file not yet imported, else the org's rules in force — would have sent
 * over the last days, replayed over the stored history by the evaluator the live alerts run; beside it,
 * what the rules in force did send. Changes nothing.
 */
import Type from 'typebox';
import { checkRulesFile } from '../../../shared/ruleCheck';
import type { RuleSet } from '../../../shared/rules';
import { REPLAY_DAYS } from '../../../shared/rulesView';
import { knownZone } from '../../../shared/time';
import { replayRules } from '../../alerts/replay';
import { replayMarkdown } from '../../alerts/replayMarkdown';
import { printable } from '../../store/tables/orgs';
import { ruleSetInForce } from '../../store/tables/ruleSets';
import { CommandError, READ_ONLY, command } from '../command';
import { checkOrg, knownOrg, orgOrOnly } from './org';
import { defaultRulesOf } from './rules';

/** The zone's name if this system knows it, else an error that says so. */
function checkZone(zone: string): string {
  const known = knownZone(zone);
  if (known === null) throw new CommandError(`${printable(zone)} is not a time zone this system knows`);
  return known;
}

export const rulesTest = command({
  args: Type.Object(
    {
      org: Type.Optional(Type.String()),
      days: Type.Integer({ minimum: REPLAY_DAYS.min, maximum: REPLAY_DAYS.max }),
      file: Type.Optional(Type.Unknown()),
      source: Type.Optional(Type.String()),
      format: Type.Union([Type.Literal('md'), Type.Literal('json')]),
      timeZone: Type.String({ minLength: 1, maxLength: 100 }),
    },
    { additionalProperties: false },
  ),
  async run({ store, settings, now }, { org, days, file, source, format, timeZone }, out) {
    if (org !== undefined) checkOrg(org);
    const zone = checkZone(timeZone);
    let candidate: { orgId: string; set: RuleSet } | null = null;
    if (file !== undefined) {
      const check = checkRulesFile(file);
      if (!check.ok) {
        for (const problem of check.problems)
          out.stderr(
            `${printable(problem.path ? `${problem.path}: ${problem.message}` : problem.message)}\n`,
          );
        throw new CommandError(
          `${source ?? 'the rules file'} is refused (${check.problems.length} problem${check.problems.length === 1 ? '' : 's'} above): nothing replayed`,
        );
      }
      candidate = { orgId: check.file.orgId, set: { rules: check.file.rules, routes: check.file.routes } };
    }
    const fallback = defaultRulesOf(await settings());
    const result = await store.whenReadable(() => {
      const orgId =
        org !== undefined || candidate === null
          ? orgOrOnly(store, org, { nothing: 'import or sync an org first', asker: 'rules test' })
          : knownOrg(store, checkOrg(candidate.orgId));
      const set = candidate?.set ?? ruleSetInForce(store, orgId, fallback);
      return replayRules({ store, orgId, set, days, now: now(), timeZone: zone });
    });
    out.stdout(
      format === 'json'
        ? `${JSON.stringify(result, null, 2)}\n`
        : replayMarkdown(result, zone, candidate !== null),
    );
  },
  ifOutcomeUnknown: () => READ_ONLY,
});
