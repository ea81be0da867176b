/**
 * The on-call views' answers from a running engine over its local API (docs/api.md, "Local v1"): what
 * Triage, Upcoming, Reliability and Handoff show first, each asked with the window's defaults. The
 * engine's part of a view's first content, and work the engine's memory must hold (docs/architecture.md#performance-budgets).
 */
import { LOCAL_PATHS } from '../electron/api/localRoutes';
import { HANDOFF_FIRST_ROWS } from '../shared/handoff';
import { DEFAULT_HANDOFF_SINCE } from '../shared/handoffOptions';
import { DEFAULT_STATS_DAYS, DEFAULT_STATS_GROUP_BY } from '../shared/reliability';
import { DEFAULT_UPCOMING_HOURS } from '../shared/upcoming';
import { ms } from './report';

export interface ViewCall {
  /** The view, as the table names it: "Triage". */
  name: string;
  path: string;
}

export const VIEW_CALLS: readonly ViewCall[] = [
  { name: 'Triage', path: LOCAL_PATHS.incidents },
  { name: 'Upcoming', path: `${LOCAL_PATHS.upcoming}?hours=${DEFAULT_UPCOMING_HOURS}` },
  {
    name: 'Reliability',
    path: `${LOCAL_PATHS.stats}?groupBy=${DEFAULT_STATS_GROUP_BY}&days=${DEFAULT_STATS_DAYS}`,
  },
  // The first rows of each section, as the window asks for them.
  {
    name: 'Handoff',
    path: `${LOCAL_PATHS.handoff}?since=${DEFAULT_HANDOFF_SINCE}&rows=${HANDOFF_FIRST_ROWS}`,
  },
];

export interface ViewAnswer {
  name: string;
  /** From sending the request to the whole body received. */
  ms: number;
  bytes: number;
}

/** Asks each view's call once, in turn; a view that does not answer 200 throws (the figure failed). */
export async function askViews(baseUrl: string, apiKey: string): Promise<ViewAnswer[]> {
  const answers: ViewAnswer[] = [];
  for (const view of VIEW_CALLS) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}${view.path}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const body = await response.arrayBuffer();
    const took = performance.now() - started;
    if (response.status !== 200)
      throw new Error(
        `${view.name} (${view.path}): HTTP ${response.status}: ${Buffer.from(body).toString('utf8', 0, 200)}`,
      );
    answers.push({ name: view.name, ms: took, bytes: body.byteLength });
  }
  return answers;
}

/** "Triage 12 ms, Upcoming 40 ms, …", for a row's note. */
export const describeAnswers = (answers: readonly ViewAnswer[]): string =>
  answers.map((answer) => `${answer.name} ${ms(answer.ms)}`).join(', ');
