/**
 * The rule set's check names every problem by its field, and refuses what a schema alone would let
 * through (ids twice, routes that do not exist, fields of another event or action).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRuleSet, checkRulesFile, describeRuleProblems, fieldPath } from '../../../shared/ruleCheck';
import {
  type HookRoute,
  RULES_FILE_FORMAT,
  type RuleSet,
  type WebhookRoute,
  defaultRuleSet,
} from '../../../shared/rules';
import { sampleRuleSet } from '../../helpers/rules';

const valid = sampleRuleSet;

/** A command hook (the sample set has a webhook only), with `fields` changed. */
const hookRoute = (fields: Partial<HookRoute> = {}): HookRoute => ({
  id: 'pager',
  kind: 'hook',
  name: 'Pager',
  command: '/usr/local/bin/page',
  args: ['--team', 'data-ops'],
  shell: false,
  timeoutSeconds: 10,
  ...fields,
});

const problems = (value: unknown): string => {
  const check = checkRuleSet(value);
  return check.ok ? '' : describeRuleProblems(check.problems);
};

describe('checkRuleSet', () => {
  it('accepts a valid set and the default sets', () => {
    expect(problems(valid())).toBe('');
    expect(problems(defaultRuleSet({ recoveryNotices: true }))).toBe('');
    expect(problems(defaultRuleSet({ recoveryNotices: false }))).toBe('');
  });

  it('accepts hooks without a shell (arguments apart) and with one (one line)', () => {
    const set = valid();
    set.routes.push(
      hookRoute(),
      hookRoute({ id: 'log', shell: true, command: 'cat >> "$HOME/alerts.log"', args: [] }),
    );
    expect(problems(set)).toBe('');
  });

  const cases: { name: string; edit: (set: RuleSet) => void; says: string }[] = [
    {
      name: 'a late rule without minutes',
      edit: (s) => delete s.rules[0]!.lateByMinutes,
      says: 'rules[0].lateByMinutes: a late rule says by how many minutes late',
    },
    {
      name: 'minutes on another event',
      edit: (s) => (s.rules[1]!.lateByMinutes = 5),
      says: 'rules[1].lateByMinutes: only a late rule has it',
    },
    {
      name: 'a digest without a schedule',
      edit: (s) => delete s.rules[2]!.digest,
      says: 'rules[2].digest: a digest rule says when it is sent',
    },
    {
      name: 'a schedule on another action',
      edit: (s) => (s.rules[0]!.digest = { everyMinutes: 60 }),
      says: 'rules[0].digest: only a digest rule has it',
    },
    {
      name: 'a time twice',
      edit: (s) => (s.rules[2]!.digest = { at: ['08:00', '08:00'] }),
      says: 'rules[2].digest.at[1]: 08:00 is listed twice',
    },
    {
      name: 'a rule id twice',
      edit: (s) => (s.rules[1]!.id = 'fx-late'),
      says: 'rules[1].id: "fx-late" is the id of rules[0] too',
    },
    {
      name: 'a route that does not exist',
      edit: (s) => (s.rules[0]!.routes = ['tray', 'pager']),
      says: 'rules[0].routes[1]: no route "pager": the set has tray, channel',
    },
    {
      name: 'a route twice',
      edit: (s) => (s.rules[0]!.routes = ['tray', 'tray']),
      says: 'rules[0].routes[1]: "tray" is listed twice',
    },
    {
      name: 'a telling rule with no route',
      edit: (s) => (s.rules[0]!.routes = []),
      says: 'rules[0].routes: a rule that tells needs a route',
    },
    {
      name: 'a timeline rule with routes',
      edit: (s) => (s.rules[1]!.routes = ['tray']),
      says: 'rules[1].routes: a timeline-only rule sends nowhere',
    },
    {
      name: 'a cause on a missing event',
      edit: (s) => (s.rules[2]!.match.causes = [{ stage: 'ingest' }]),
      says: 'rules[2].match.causes: only a failed event has a failed stage',
    },
    {
      name: 'datasets on lost contact',
      edit: (s) => Object.assign(s.rules[1]!, { event: 'contact-lost', match: { datasets: ['x'] } }),
      says: 'rules[1].match.datasets: lost contact is about a source',
    },
    {
      name: 'a webhook that is not http',
      edit: (s) => ((s.routes[0] as { url: string }).url = 'file:///etc/passwd'),
      says: 'routes[0].url: must be an http:// or https:// address',
    },
    {
      name: 'a line break in the secret header',
      edit: (s) =>
        ((s.routes[0] as WebhookRoute).secretHeader = { name: 'X-Secret', value: 'a\r\nX-Evil: 1' }),
      says: 'routes[0].secretHeader.value: must not hold a line break (CR, LF) or a NUL character',
    },
    {
      name: 'a line feed in the secret header',
      edit: (s) => ((s.routes[0] as WebhookRoute).secretHeader = { name: 'X-Secret', value: 'a\nb' }),
      says: 'routes[0].secretHeader.value: must not hold a line break',
    },
    {
      name: 'a line break in the secret header name',
      edit: (s) => ((s.routes[0] as WebhookRoute).secretHeader = { name: 'X-Secret\r\nX-Evil', value: 'v' }),
      says: 'routes[0].secretHeader.name: must be an HTTP header name',
    },
    {
      name: 'a shell hook with arguments',
      edit: (s) => s.routes.push(hookRoute({ shell: true, args: ['--now'] })),
      says: 'routes[1].args: a shell hook is one command line',
    },
    {
      name: 'a NUL in a hook argument',
      edit: (s) => s.routes.push(hookRoute({ args: ['ok', 'a\0b'] })),
      says: 'routes[1].args[1]: must not hold a NUL character',
    },
    {
      name: 'a NUL in a hook command',
      edit: (s) => s.routes.push(hookRoute({ command: '/bin/true\0x' })),
      says: 'routes[1].command: must not hold a NUL character',
    },
    {
      name: 'the tray as a route id',
      edit: (s) => (s.routes[0]!.id = 'tray'),
      says: 'routes[0].id: "tray" is the built-in tray',
    },
    {
      name: 'an unknown event',
      edit: (s) => ((s.rules[0] as { event: string }).event = 'exploded'),
      says: 'rules[0].event: must be one of "failed", "missing", "late", "recovered", "contact-lost"',
    },
    {
      name: 'an unknown field',
      edit: (s) => Object.assign(s.rules[0]!, { colour: 'red' }),
      says: 'rules[0].colour: is not a field here',
    },
    {
      name: 'an id of another form',
      edit: (s) => (s.rules[0]!.id = 'Has Spaces'),
      says: 'rules[0].id: must be lower-case letters, digits and dashes',
    },
    {
      name: 'minutes out of range',
      edit: (s) => (s.rules[0]!.lateByMinutes = 0),
      says: 'rules[0].lateByMinutes:',
    },
  ];
  it.each(cases)('names the field: $name', ({ edit, says }) => {
    const set = valid();
    edit(set);
    expect(problems(set)).toContain(says);
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const check = checkRuleSet(value);
        if (!check.ok) expect(check.problems.length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('fieldPath', () => {
  it('writes a JSON pointer as a field path', () => {
    expect(fieldPath('/rules/2/match/datasets/0')).toBe('rules[2].match.datasets[0]');
    expect(fieldPath('')).toBe('');
  });
});

describe('checkRulesFile', () => {
  const file = { format: RULES_FILE_FORMAT, version: 1, orgId: 'acme', ...valid() };
  it('accepts a rules file', () => expect(checkRulesFile(file).ok).toBe(true));
  it('says what a file of another kind is not', () => {
    const said = (value: unknown) => {
      const check = checkRulesFile(value);
      return check.ok ? '' : describeRuleProblems(check.problems);
    };
    expect(said([])).toBe('a rules file is a JSON object');
    expect(said({ datasets: [] })).toBe('format: must be "dataset-health-rules" (this is not a rules file)');
    expect(said({ ...file, version: 2 })).toBe('version: must be 1: this version reads only that');
    expect(said({ ...file, orgId: '' })).toContain('orgId:');
  });
});
