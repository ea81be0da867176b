/**
 * Accessibility checks in the browser tests (docs/accessibility.md): axe-core run in the page against the
 * WCAG 2.0 and 2.1 A and AA rules, failing on every serious or critical violation with a list a person
 * can act on. Injected through the DevTools protocol (`page.evaluate`), which the renderer's CSP
 * (`script-src 'self'`) does not apply to, so the page is tested exactly as it ships.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, ImpactValue, Result, RunOptions } from 'axe-core';
import type { Locator, Page } from 'playwright-core';

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

/**
 * Resolves when the finite CSS transitions and animations running now have ended (at most 5 s): a menu
 * fading out or a colour on its way to a hover shade is drawn in colours it does not keep. Spinners,
 * which run forever, are not waited for. A string, run through DevTools: the page's CSP forbids eval.
 */
const TRANSITIONS_ENDED = `(() => {
  const running = document
    .getAnimations()
    .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity);
  const ended = Promise.all(running.map((animation) => animation.finished.catch(() => undefined)));
  return Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 5000))]).then(() => true);
})()`;

/**
 * Runs axe-core on the page once its transitions have ended (at most 5 s) and returns its serious and
 * critical violations.
 */
export async function seriousViolations(page: Page): Promise<Result[]> {
  await page.evaluate(TRANSITIONS_ENDED);
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
 * its content before calling it: axe checks what is in the DOM then (after running transitions end).
 */
export async function expectAccessible(page: Page, label: string): Promise<void> {
  const violations = await seriousViolations(page);
  if (violations.length > 0) {
    throw new Error(
      `${label}: ${violations.length} serious or critical accessibility violation(s) (axe-core, ${AXE_TAGS.join(', ')}):\n\n${describeViolations(violations)}`,
    );
  }
}

/** What `textContrast` reads in the page (the Node side has no DOM types). */
interface InPage {
  getComputedStyle(element: InPageElement): { color: string; backgroundColor: string };
}
interface InPageElement {
  parentElement: InPageElement | null;
}

const rgba = (css: string): number[] => {
  const [r = 0, g = 0, b = 0, a = 1] = (css.match(/[\d.]+/g) ?? []).map(Number);
  return [r, g, b, a];
};
/** `top` (with its alpha) drawn over the opaque `below`. */
const over = (top: number[], below: number[]): number[] =>
  below.slice(0, 3).map((channel, i) => top[i]! * top[3]! + channel * (1 - top[3]!));
const luminance = (rgb: number[]): number => {
  const [r, g, b] = rgb.map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};

/**
 * The contrast ratio (WCAG 2) of an element's text against what is drawn behind it: its own and its
 * ancestors' backgrounds composited over white. For text axe-core reports only as "incomplete" because
 * other elements overlap it — naive-ui's buttons draw their borders as layers above their label.
 */
export async function textContrast(element: Locator): Promise<number> {
  const { color, backgrounds } = await element.evaluate((target) => {
    const page = globalThis as unknown as InPage;
    const layers: string[] = [];
    for (
      let node: InPageElement | null = target as unknown as InPageElement;
      node;
      node = node.parentElement
    ) {
      layers.push(page.getComputedStyle(node).backgroundColor);
    }
    return { color: page.getComputedStyle(target as unknown as InPageElement).color, backgrounds: layers };
  });
  const background = backgrounds.reduceRight((below, layer) => over(rgba(layer), below), [255, 255, 255]);
  const [light, dark] = [luminance(over(rgba(color), background)), luminance(background)].sort(
    (x, y) => y - x,
  );
  return (light! + 0.05) / (dark! + 0.05);
}
