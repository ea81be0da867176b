/**
 * The check of a rule set (shared/rules.ts) with every problem named by its field — `rules[2].lateByMinutes:
 * a late rule says by how many minutes` — for the rules file (`rules import`), Settings → Rules and the
 * RPC alike. The schema says what each field holds; this adds what a schema cannot: ids unique, routes
 * named that exist, fields that only some events or actions have. Uses TypeBox's interpreter (no code
 * generation), so it runs in the window under its content security policy too.
 */
import Value from 'typebox/value';
import {
  CLOCK_PATTERN,
  HEADER_NAME_PATTERN,
  RULE_ID_PATTERN,
  RULES_FILE_FORMAT,
  RULES_FILE_VERSION,
  type HookRoute,
  type Rule,
  RuleSet,
  RulesFile,
  type Route,
  TRAY_ROUTE,
  type WebhookRoute,
} from './rules';

export interface RuleProblem {
  /** `rules[2].lateByMinutes`, `routes[0].url`; '' for the whole value. */
  path: string;
  message: string;
}

export type RuleSetCheck = { ok: true; set: RuleSet } | { ok: false; problems: RuleProblem[] };
export type RulesFileCheck = { ok: true; file: RulesFile } | { ok: false; problems: RuleProblem[] };

/** Problems shown at most: a file wrong everywhere says enough with its first ones. */
const MAX_PROBLEMS = 20;

/** `/rules/2/lateByMinutes` → `rules[2].lateByMinutes`. */
export function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

interface SchemaError {
  instancePath: string;
  keyword: string;
  message: string;
  params: Record<string, unknown>;
}

/** The schema's patterns in words: "must match pattern ^[a-z0-9]…" helps nobody. */
const PATTERN_WORDS: Record<string, string> = {
  [RULE_ID_PATTERN]: 'lower-case letters, digits and dashes (a-z, 0-9, -), at most 40',
  [CLOCK_PATTERN]: 'a time of day as HH:MM',
  [HEADER_NAME_PATTERN]: 'an HTTP header name',
};

/** One message per field, the most telling of the schema's complaints about it. */
function structuralProblems(errors: Iterable<SchemaError>): RuleProblem[] {
  const byPath = new Map<string, SchemaError[]>();
  for (const error of errors) {
    const list = byPath.get(error.instancePath) ?? [];
    list.push(error);
    byPath.set(error.instancePath, list);
  }
  const problems: RuleProblem[] = [];
  for (const [pointer, list] of byPath) {
    const unknown = list.find((error) => error.keyword === 'additionalProperties');
    if (unknown) {
      const names = (unknown.params.additionalProperties as string[] | undefined) ?? [];
      for (const name of names)
        problems.push({ path: fieldPath(`${pointer}/${name}`), message: 'is not a field here' });
      continue;
    }
    // A field refused because its parent refuses unknown fields: said above, once.
    if (list.every((error) => error.keyword === 'boolean')) continue;
    const allowed = list.flatMap((error) =>
      error.keyword === 'enum' && Array.isArray(error.params.allowedValues)
        ? error.params.allowedValues.map((value) => JSON.stringify(value))
        : error.keyword === 'const'
          ? [JSON.stringify(error.params.allowedValue)]
          : [],
    );
    if (allowed.length > 0) {
      problems.push({ path: fieldPath(pointer), message: `must be one of ${allowed.join(', ')}` });
      continue;
    }
    const [first] = list;
    const pattern = first?.keyword === 'pattern' ? PATTERN_WORDS[String(first.params.pattern)] : undefined;
    const message = pattern ? `must be ${pattern}` : (first?.message ?? 'is not valid');
    problems.push({ path: fieldPath(pointer), message });
  }
  return problems;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Characters an HTTP header cannot carry: a line break would start a header (or a request) of its own. */
const HEADER_BREAK = /[\r\n\0]/;
/** A NUL ends a C string: the operating system would run a command other than the one shown. */
const NUL = /\0/;

function webhookProblems(route: WebhookRoute, path: string): RuleProblem[] {
  const problems: RuleProblem[] = [];
  if (!isHttpUrl(route.url))
    problems.push({ path: `${path}.url`, message: 'must be an http:// or https:// address' });
  if (route.secretHeader && HEADER_BREAK.test(route.secretHeader.value))
    problems.push({
      path: `${path}.secretHeader.value`,
      message: 'must not hold a line break (CR, LF) or a NUL character',
    });
  return problems;
}

function hookProblems(route: HookRoute, path: string): RuleProblem[] {
  const problems: RuleProblem[] = [];
  if (NUL.test(route.command))
    problems.push({ path: `${path}.command`, message: 'must not hold a NUL character' });
  route.args.forEach((arg, at) => {
    if (NUL.test(arg))
      problems.push({ path: `${path}.args[${at}]`, message: 'must not hold a NUL character' });
  });
  // The shell would get the arguments pasted into its line unquoted: one line in `command` says it all.
  if (route.shell && route.args.length > 0)
    problems.push({
      path: `${path}.args`,
      message: 'a shell hook is one command line: put its arguments in command, or set shell to false',
    });
  return problems;
}

function routeProblems(routes: readonly Route[]): RuleProblem[] {
  const problems: RuleProblem[] = [];
  const seen = new Map<string, number>();
  routes.forEach((route, index) => {
    const path = `routes[${index}]`;
    if (route.id === TRAY_ROUTE)
      problems.push({
        path: `${path}.id`,
        message: `"${TRAY_ROUTE}" is the built-in tray: choose another id`,
      });
    const before = seen.get(route.id);
    if (before !== undefined)
      problems.push({ path: `${path}.id`, message: `"${route.id}" is the id of routes[${before}] too` });
    else seen.set(route.id, index);
    if (route.kind === 'webhook') problems.push(...webhookProblems(route, path));
    else problems.push(...hookProblems(route, path));
  });
  return problems;
}

function ruleProblems(rule: Rule, index: number, routeIds: ReadonlySet<string>): RuleProblem[] {
  const path = `rules[${index}]`;
  const problems: RuleProblem[] = [];
  const say = (field: string, message: string) => problems.push({ path: `${path}.${field}`, message });
  if (rule.event === 'late' && rule.lateByMinutes === undefined)
    say('lateByMinutes', 'a late rule says by how many minutes late');
  if (rule.event !== 'late' && rule.lateByMinutes !== undefined)
    say('lateByMinutes', 'only a late rule has it');
  if (rule.action === 'digest' && rule.digest === undefined)
    say('digest', 'a digest rule says when it is sent: everyMinutes, or at (times of day)');
  if (rule.action !== 'digest' && rule.digest !== undefined) say('digest', 'only a digest rule has it');
  if (rule.digest && 'at' in rule.digest) {
    const times = rule.digest.at;
    times.forEach((time, at) => {
      if (times.indexOf(time) !== at) say(`digest.at[${at}]`, `${time} is listed twice`);
    });
  }
  if (rule.match.causes && rule.event !== 'failed')
    say('match.causes', 'only a failed event has a failed stage and shortCode');
  if (rule.event === 'contact-lost')
    for (const field of ['suppliers', 'dataProducts', 'datasets'] as const)
      if (rule.match[field]) say(`match.${field}`, 'lost contact is about a source, not its datasets');
  if (rule.action === 'timeline' && rule.routes.length > 0)
    say('routes', 'a timeline-only rule sends nowhere: leave routes empty');
  if (rule.action !== 'timeline' && rule.routes.length === 0)
    say('routes', `a rule that tells needs a route: "${TRAY_ROUTE}" or one of the set's routes`);
  rule.routes.forEach((id, at) => {
    if (rule.routes.indexOf(id) !== at) say(`routes[${at}]`, `"${id}" is listed twice`);
    else if (id !== TRAY_ROUTE && !routeIds.has(id))
      say(`routes[${at}]`, `no route "${id}": the set has ${[TRAY_ROUTE, ...routeIds].join(', ')}`);
  });
  return problems;
}

/** What is wrong with a structurally valid set, beyond its schema. */
export function ruleSetMeaningProblems(set: RuleSet): RuleProblem[] {
  const routeIds = new Set(set.routes.map((route) => route.id));
  const problems = routeProblems(set.routes);
  const seen = new Map<string, number>();
  set.rules.forEach((rule, index) => {
    const before = seen.get(rule.id);
    if (before !== undefined)
      problems.push({
        path: `rules[${index}].id`,
        message: `"${rule.id}" is the id of rules[${before}] too`,
      });
    else seen.set(rule.id, index);
    problems.push(...ruleProblems(rule, index, routeIds));
  });
  return problems;
}

/** `value` checked against the schema of a set (or of a file holding one), then for its meaning. */
function problemsOf(schema: typeof RuleSet | typeof RulesFile, value: unknown): RuleProblem[] {
  const problems = Value.Check(schema, value)
    ? ruleSetMeaningProblems(value as RuleSet)
    : structuralProblems(Value.Errors(schema, value) as Iterable<SchemaError>);
  return problems.slice(0, MAX_PROBLEMS);
}

export function checkRuleSet(value: unknown): RuleSetCheck {
  const problems = problemsOf(RuleSet, value);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, set: value as RuleSet };
}

/** What a file of another kind is not, before its fields are looked at. */
function notARulesFile(value: unknown): RuleProblem | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { path: '', message: 'a rules file is a JSON object' };
  const { format, version } = value as { format?: unknown; version?: unknown };
  if (format !== RULES_FILE_FORMAT)
    return { path: 'format', message: `must be "${RULES_FILE_FORMAT}" (this is not a rules file)` };
  if (version !== RULES_FILE_VERSION)
    return { path: 'version', message: `must be ${RULES_FILE_VERSION}: this version reads only that` };
  return null;
}

/** A rules file as `rules import` reads it; a file of another kind says what it is not. */
export function checkRulesFile(value: unknown): RulesFileCheck {
  const other = notARulesFile(value);
  const problems = other ? [other] : problemsOf(RulesFile, value);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, file: value as RulesFile };
}

/** The problems as lines: `rules[2].lateByMinutes: a late rule says by how many minutes late`. */
export function describeRuleProblems(problems: readonly RuleProblem[]): string {
  return problems
    .map((problem) => (problem.path ? `${problem.path}: ${problem.message}` : problem.message))
    .join('\n');
}
