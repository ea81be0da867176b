/**
 * `handoff` (docs/architecture.md#handoff, issue 14 point 5): the shift handoff of an org since a time, as Markdown for
 * a chat or as the report's JSON. Through the running instance its on-call layer answers (its history in
 * memory and its sources' states, so overdue is known); alone, an on-call layer over the data directory
 * answers the same, except overdue, which only a running sync can tell (the report says so).
 */
import Type from 'typebox';
import { DEFAULT_HANDOFF_HOURS, handoffMarkdown, parseHandoffSince } from '../../../shared/handoff';
import { OnCallKnowledge } from '../../knowledge/service';
import type { Store } from '../../store/database';
import { UnknownOrgError, listOrgs, printable, printableJson, requireOrg } from '../../store/orgs';
import { type CommandContext, CommandError, CommandUsageError, READ_ONLY, command } from '../command';
import { checkOrg } from './org';

export const HANDOFF_FORMATS = ['md', 'json'] as const;
export type HandoffFormat = (typeof HANDOFF_FORMATS)[number];
export const DEFAULT_HANDOFF_SINCE = `${DEFAULT_HANDOFF_HOURS}h`;

/** `--since` read against `now`: a usage error naming --since and the accepted forms. */
export function checkSince(since: string, now: Date): Date {
  try {
    return parseHandoffSince(since, now);
  } catch (error) {
    throw new CommandUsageError(`--since: ${printable((error as Error).message)}`);
  }
}

/** The org given, else the data directory's only org. */
function orgOf(store: Store, org: string | undefined): string {
  if (org !== undefined) {
    try {
      requireOrg(store, org);
      return org;
    } catch (error) {
      if (error instanceof UnknownOrgError) throw new CommandError(error.message);
      throw error;
    }
  }
  const orgs = listOrgs(store).map(({ id }) => id);
  if (orgs.length === 0) throw new CommandError('this mirror has no org yet: nothing to hand off');
  if (orgs.length > 1)
    throw new CommandUsageError(
      `handoff needs --org here: this mirror has ${orgs.length} orgs (${orgs.join(', ')})`,
    );
  return orgs[0]!;
}

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
