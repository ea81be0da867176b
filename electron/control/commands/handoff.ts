/**
 * `handoff` (docs/architecture.md#handoff, issue 14 point 5): the shift handoff of an org since a time, as Markdown for
 * a chat or as the report's JSON. Through the running instance its on-call layer answers (its history in
 * memory and its sources' states, so overdue is known); alone, an on-call layer over the data directory
 * answers the same, except overdue, which only a running sync can tell (the report says so).
 */
import Type from 'typebox';
import { handoffMarkdown } from '../../../shared/handoffMarkdown';
import { parseHandoffSince } from '../../../shared/handoffSince';
import { OnCallKnowledge } from '../../knowledge/service';
import type { Store } from '../../store/database';
import { printable, printableJson } from '../../store/tables/orgs';
import { type CommandContext, CommandUsageError, READ_ONLY, command } from '../command';
import { checkOrg, orgOrOnly } from './org';

/** `--since` read against `now`: a usage error naming --since and the accepted forms. */
export function checkSince(since: string, now: Date): Date {
  try {
    return parseHandoffSince(since, now);
  } catch (error) {
    throw new CommandUsageError(`--since: ${printable((error as Error).message)}`);
  }
}

/** The org given, else the data directory's only org. */
const orgOf = (store: Store, org: string | undefined): string =>
  orgOrOnly(store, org, { nothing: 'nothing to hand off', asker: 'handoff' });

function knowledgeOf(ctx: CommandContext): OnCallKnowledge {
  if (ctx.instance) return ctx.instance.knowledge;
  // No sync runs here: whether the data is stale (overdue) is not known, and the report says so.
  return new OnCallKnowledge({ store: ctx.store, now: () => ctx.now(), sources: () => [], offline: true });
}

export const handoff = command({
  args: Type.Object(
    {
      since: Type.String(),
      org: Type.Optional(Type.String()),
      format: Type.Union([Type.Literal('md'), Type.Literal('json')]),
    },
    { additionalProperties: false },
  ),
  async run(ctx, args, out) {
    const since = checkSince(args.since, ctx.now());
    if (args.org !== undefined) checkOrg(args.org);
    const orgId = await ctx.store.whenIdle(() => orgOf(ctx.store, args.org));
    const report = await knowledgeOf(ctx).handoff(orgId, since);
    out.stdout(args.format === 'json' ? `${printableJson(report)}\n` : handoffMarkdown(report));
    return report;
  },
  ifOutcomeUnknown: () => READ_ONLY,
});
