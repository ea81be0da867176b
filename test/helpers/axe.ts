/**
 * Accessibility checks in the browser tests (docs/accessibility.md): axe-core run in the page against the
 * WCAG 2.0 and 2.1 A and AA rules, failing on every serious or critical violation with a list a person
 * can act on. Injected through the DevTools protocol (`page.evaluate`), which the renderer's CSP
 * (`script-src 'self'`) does not apply to, so the page is tested exactly as it ships.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, ImpactValue, Result, RunOptions } from 'axe-core';
import type { Page } from 'playwright-core';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The rule sets the window must pass. */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** Impacts that fail a test; minor and moderate findings are left to review. */
const FAILING: ImpactValue[] = ['serious', 'critical'];

/** What axe checks on the page: the tags above, violations only (the other result lists cost time). */
const RUN_OPTIONS: RunOptions = {
  runOnly: { type: 'tag', values: AXE_TAGS },
  resultTypes: ['violations'],
};

/** Runs axe-core on the page as it is now and returns its serious and critical violations. */
export async function seriousViolations(page: Page): Promise<Result[]> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(
    (options) =>
      (globalThis as unknown as { axe: { run(o: RunOptions): Promise<AxeResults> } }).axe.run(options),
    RUN_OPTIONS,
  );
  return results.violations.filter((violation) => violation.impact && FAILING.includes(violation.impact));
}

/** Elements listed per rule: a rule broken by every row of a table is one fix, not a hundred lines. */
const NODES_SHOWN = 5;

/** One violation per paragraph: rule, impact and help, then the offending elements' selectors. */
export function describeViolations(violations: Result[]): string {
  return violations
    .map((violation) => {
      const more = violation.nodes.length - NODES_SHOWN;
      return [
        `${violation.id} (${violation.impact}): ${violation.help} — ${violation.helpUrl}`,
        ...violation.nodes
          .slice(0, NODES_SHOWN)
          .map((node) => `  ${node.target.join(' ')}${summary(node.failureSummary)}`),
        ...(more > 0 ? [`  … and ${more} more`] : []),
      ].join('\n');
    })
    .join('\n\n');
}

function summary(failure: string | undefined): string {
  const first = failure?.split('\n').find((line) => line.trim() !== '' && !line.startsWith('Fix'));
  return first ? `: ${first.trim()}` : '';
}

/**
 * Fails (throws) when axe-core finds a serious or critical WCAG 2.0/2.1 A or AA violation on the page as
 * it is now; the error lists each rule (id, impact, help) with the selectors of the elements at fault.
 * `label` names what was checked (e.g. "datasets, dark") in that message. Wait for the view to show
 * its content before calling it: axe checks what is in the DOM at that moment.
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const violations = await seriousViolations(page);
  if (violations.length > 0) {
    throw new Error(
      `${label}: ${violations.length} serious or critical accessibility violation(s) (axe-core, ${AXE_TAGS.join(', ')}):\n\n${describeViolations(violations)}`,
    );
  }
}
