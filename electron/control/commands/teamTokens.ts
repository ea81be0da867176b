/**
 * `team tokens create|list|revoke`: who may use a team server (docs/decisions.md "On call as a team:
 * operations"). The tokens live in the team's database: the running `team serve`'s own when it holds
 * the data directory, else the database named by `--database`, else the embedded one in the data
 * directory. `create` prints the token alone on stdout: it is shown once.
 */
import Type from 'typebox';
import type { TeamDatabase } from '../../store/teamDb/driver';
import { describeTeamDatabase, openTeamDatabase } from '../../store/teamDb/open';
import { TeamTokenError, createTeamToken, listTeamTokens, revokeTeamToken } from '../../store/teamDb/tokens';
import { printable } from '../../store/tables/orgs';
import { type CommandContext, CommandError, READ_ONLY, command } from '../command';
import { checkOrg } from './org';
import { printTable } from './table';

const Database = Type.Optional(Type.String({ minLength: 1 }));

/** Runs `work` on the team's database, opened for it unless the running team server has it open. */
async function onTeamDatabase<T>(
  ctx: CommandContext,
  database: string | undefined,
  work: (db: TeamDatabase) => Promise<T>,
): Promise<T> {
  const running = ctx.instance?.team.db;
  if (running && database === undefined) return work(running);
  let db: TeamDatabase;
  try {
    db = await openTeamDatabase(ctx.dataDir, database);
  } catch (error) {
    throw new CommandError(
      `cannot open the team database (${describeTeamDatabase(ctx.dataDir, database)}): ${(error as Error).message}`,
    );
  }
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

export const teamTokensCreate = command({
  args: Type.Object(
    {
      org: Type.String(),
      member: Type.String(),
      role: Type.String(),
      database: Database,
    },
    { additionalProperties: false },
  ),
  async run(ctx, { org, member, role, database }, out) {
    const orgId = checkOrg(org);
    const made = await onTeamDatabase(ctx, database, async (db) => {
      try {
        return await createTeamToken(db, { orgId, member: member.trim(), role }, ctx.now());
      } catch (error) {
        if (error instanceof TeamTokenError) throw new CommandError(error.message);
        throw error;
      }
    });
    out.stdout(`${made.token}\n`);
    out.stderr(
      `Created team token ${made.id} for ${printable(made.member)} (${made.role}) in org ${made.orgId}. ` +
        'Give it to them now: it is not shown again. They join with `dataset-health team join <this server\u2019s URL> --token <token>`.\n',
    );
  },
  ifOutcomeUnknown: ({ member }) =>
    `\`dataset-health team tokens list\` shows a token for '${printable(member)}' made just now if it was; its secret never reached you, so revoke it and create another`,
});

export const teamTokensList = command({
  args: Type.Object({ json: Type.Boolean(), database: Database }, { additionalProperties: false }),
  async run(ctx, { json, database }, out) {
    const tokens = await onTeamDatabase(ctx, database, (db) => listTeamTokens(db));
    if (json) {
      out.stdout(`${JSON.stringify(tokens, null, 2)}\n`);
      return;
    }
    if (tokens.length === 0) {
      out.stdout(
        'No team tokens yet: make one with `dataset-health team tokens create --org <org> --member <name>`.\n',
      );
      return;
    }
    printTable(out, [
      ['ID', 'ORG', 'MEMBER', 'ROLE', 'CREATED', 'LAST USED', 'REVOKED'],
      ...tokens.map((token) => [
        token.id,
        token.orgId,
        token.member,
        token.role,
        token.createdAt,
        token.lastUsedAt ?? '-',
        token.revokedAt ?? '-',
      ]),
    ]);
  },
  ifOutcomeUnknown: () => READ_ONLY,
});

export const teamTokensRevoke = command({
  args: Type.Object({ id: Type.String(), database: Database }, { additionalProperties: false }),
  async run(ctx, { id, database }, out) {
    const revoked = await onTeamDatabase(ctx, database, (db) => revokeTeamToken(db, id, ctx.now()));
    if (!revoked)
      throw new CommandError(
        `no team token '${printable(id)}' that is not revoked already (see \`team tokens list\`)`,
      );
    out.stderr(`Revoked team token ${id}: it stops working at once.\n`);
  },
  ifOutcomeUnknown: ({ id }) =>
    `\`dataset-health team tokens list\` shows whether ${printable(id)} is revoked; revoking again is safe`,
});
