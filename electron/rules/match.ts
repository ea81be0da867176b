/**
 * Which rule decides an event (docs/decisions.md "Notification rules"): the first enabled rule of the
 * org's ordered list whose event and match fields all fit. Compiled once per rule set — values lower
 * cased, name patterns made regular expressions — since it runs for every event of every sync cycle and
 * of every replayed week.
 */
import type { Rule, RuleEvent } from '../../shared/rules';
import type { Stage } from '../../shared/status';

/** What a rule can look at in an event. A field the event has not (a source's lost contact has no dataset) is null. */
export interface RuleSubject {
  event: RuleEvent;
  /** For `late`: minutes past its deadline — to the delivery, or to when the mirror learned of it. */
  lateMinutes: number | null;
  datasetId: string | null;
  datasetName: string | null;
  supplierId: string | null;
  supplierName: string | null;
  dataProductId: string | null;
  dataProductName: string | null;
  /** For `failed`: the first failed stage and its task's shortCode (null: tasks not known yet). */
  stage: Stage | null;
  shortCode: string | null;
}

type Test = (subject: RuleSubject) => boolean;

const lower = (value: string | null): string | null => (value === null ? null : value.toLowerCase());

/**
 * A dataset name pattern: `*` any run of characters, `?` one, the rest as written, without regard to
 * case. Matched by the classic two-pointer walk, which backtracks only to the last `*`: time linear in
 * the name times the pattern, where a regular expression of many `*` can take seconds on one name.
 * Hand-written: glob libraries give `/` a path meaning, and a dataset name is not a path.
 */
export function namePattern(pattern: string): { test(name: string): boolean } {
  const wanted = [...pattern.toLowerCase()];
  return {
    test(name: string): boolean {
      const text = [...name.toLowerCase()];
      let at = 0;
      let from = 0;
      let star = -1;
      let resume = 0;
      while (at < text.length) {
        if (from < wanted.length && (wanted[from] === '?' || wanted[from] === text[at])) {
          at += 1;
          from += 1;
        } else if (from < wanted.length && wanted[from] === '*') {
          star = from;
          resume = at;
          from += 1;
        } else if (star !== -1) {
          from = star + 1;
          resume += 1;
          at = resume;
        } else return false;
      }
      while (from < wanted.length && wanted[from] === '*') from += 1;
      return from === wanted.length;
    },
  };
}

/** Any of `values` equal (case aside) to the id or the name. */
function oneOf(
  values: readonly string[],
  id: (s: RuleSubject) => string | null,
  name: (s: RuleSubject) => string | null,
): Test {
  const wanted = new Set(values.map((value) => value.toLowerCase()));
  return (subject) => {
    const ofId = lower(id(subject));
    const ofName = lower(name(subject));
    return (ofId !== null && wanted.has(ofId)) || (ofName !== null && wanted.has(ofName));
  };
}

function datasetTest(values: readonly string[]): Test {
  const ids = new Set(values.map((value) => value.toLowerCase()));
  const patterns = values.map(namePattern);
  return (subject) => {
    if (subject.datasetId !== null && ids.has(subject.datasetId.toLowerCase())) return true;
    const name = subject.datasetName;
    return name !== null && patterns.some((pattern) => pattern.test(name));
  };
}

function causeTest(causes: NonNullable<Rule['match']['causes']>): Test {
  return (subject) =>
    causes.some(
      (cause) =>
        (cause.stage === undefined || cause.stage === subject.stage) &&
        (cause.shortCode === undefined ||
          (subject.shortCode !== null && cause.shortCode.toLowerCase() === subject.shortCode.toLowerCase())),
    );
}

function compileRule(rule: Rule): Test {
  const tests: Test[] = [(subject) => subject.event === rule.event];
  if (rule.event === 'late') {
    const minutes = rule.lateByMinutes ?? 0;
    tests.push((subject) => subject.lateMinutes !== null && subject.lateMinutes > minutes);
  }
  const { suppliers, dataProducts, datasets, causes } = rule.match;
  if (suppliers)
    tests.push(
      oneOf(
        suppliers,
        (s) => s.supplierId,
        (s) => s.supplierName,
      ),
    );
  if (dataProducts)
    tests.push(
      oneOf(
        dataProducts,
        (s) => s.dataProductId,
        (s) => s.dataProductName,
      ),
    );
  if (datasets) tests.push(datasetTest(datasets));
  if (causes) tests.push(causeTest(causes));
  return (subject) => tests.every((test) => test(subject));
}

/** An org's rules, ready to decide events. */
export class RuleMatcher {
  private readonly compiled: { rule: Rule; test: Test }[];

  constructor(private readonly rules: readonly Rule[]) {
    this.compiled = rules.filter((rule) => rule.enabled).map((rule) => ({ rule, test: compileRule(rule) }));
  }

  /** The rule that decides the event: the first enabled one that matches; null when none does. */
  decide(subject: RuleSubject): Rule | null {
    for (const { rule, test } of this.compiled) if (test(subject)) return rule;
    return null;
  }

  /** The set's rule with this id, enabled or not; null when the set has none. */
  byId(id: string): Rule | null {
    return this.rules.find((rule) => rule.id === id) ?? null;
  }

  /** Whether any enabled rule is about this event at all (a cycle with none skips reading its subjects). */
  watches(event: RuleEvent): boolean {
    return this.compiled.some(({ rule }) => rule.event === event);
  }
}
