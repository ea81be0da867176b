/**
 * `team join|leave|status`: this desktop as a member of an on-call team (docs/decisions.md "On call as a
 * team: members"). With the app or `serve` running, it joins or leaves there and its exchange starts or
 * stops at once.
 */
import Type from 'typebox';
import { teamStatusLine } from '../../../shared/teamStatus';
import { printable } from '../../store/tables/orgs';
import { teamLinks } from '../../store/tables/teamLinks';
import { outboxCount } from '../../store/tables/teamLog';
import { JoinError, askTeamServer, joinTeam, leaveTeam } from '../../team/joining';
import { CommandError, CommandUsageError, READ_ONLY, type RunningInstance, command } from '../command';

/** The running instance mirrors and exchanges as the store now says. */
async function restart(instance: RunningInstance | undefined): Promise<void> {
  if (!instance) return;
  await instance.reloadSync();
  await instance.team.members.reload();
}

export const teamJoin = command({
  args: Type.Object({ url: Type.String(), token: Type.String() }, { additionalProperties: false }),
  async run({ store, now, instance }, { url, token }, out) {
    const seal = instance?.secrets.seal;
    let identity;
    try {
      identity = await askTeamServer(url, token);
      const known = identity;
      await store.whenIdle(() => joinTeam(store, known, token, now(), seal ? (t) => seal(t) : undefined));
    } catch (error) {
      if (error instanceof JoinError) throw new CommandError(error.message);
      throw error;
    }
    await restart(instance);
    out.stderr(
      `Joined the team of org ${identity.orgId} at ${identity.url} as ${printable(identity.member)} (${identity.role}). ` +
        `The org is now mirrored from the team server, and ${
          identity.role === 'member'
            ? 'acknowledgements, notes and snoozes are shared with the team'
            : 'the team\u2019s acknowledgements and snoozes are shown here (a viewer cannot change them)'
        }.${instance ? '' : ' `dataset-health serve` (or the app) exchanges them.'}\n`,
    );
  },
  ifOutcomeUnknown: () =>
    '`dataset-health team status` shows whether this desktop joined; joining again is safe (it renews the link)',
});

export const teamLeave = command({
  args: Type.Object({ org: Type.Optional(Type.String()) }, { additionalProperties: false }),
  async run({ store, now, instance }, { org }, out) {
    const links = teamLinks(store);
    if (links.length === 0) throw new CommandError('this desktop is in no team');
    const orgId = org ?? (links.length === 1 ? links[0]!.orgId : undefined);
    if (orgId === undefined)
      throw new CommandUsageError(
        `this desktop is in the teams of ${links.map((link) => link.orgId).join(', ')}: say which with --org`,
      );
    const left = await store.whenIdle(() => leaveTeam(store, orgId, now()));
    if (left === null) throw new CommandError(`org '${orgId}' is in no team on this desktop`);
    await restart(instance);
    const source = left.restored
      ? `it is mirrored from ${left.restored.baseUrl} again (source ${left.restored.id})`
      : 'it has no source of its own: add one with `dataset-health sources add`';
    const unpushed =
      left.unpushed === 0
        ? ''
        : ` ${left.unpushed} change${left.unpushed === 1 ? '' : 's'} never reached the team server and stay on this desktop only.`;
    out.stderr(
      `Left the team of org ${orgId} (${left.link.url}). Its acknowledgements and snoozes stay as they were; ${source}.${unpushed}\n`,
    );
  },
  ifOutcomeUnknown: () =>
    '`dataset-health team status` shows whether this desktop is still in the team; leaving again is safe',
});

export const teamStatus = command({
  args: Type.Object({ json: Type.Boolean() }, { additionalProperties: false }),
  async run({ store, instance }, { json }, out) {
    const links = teamLinks(store);
    const statuses =
      instance?.team.members.statuses() ??
      links.map((link) => ({
        orgId: link.orgId,
        url: link.url,
        member: link.member,
        role: link.role,
        state: 'offline' as const,
        waiting: outboxCount(store, link.orgId),
        lastContactAt: null,
        problem: 'no app or serve is running on this data directory: nothing is exchanged',
        applied: 0,
      }));
    if (json) {
      out.stdout(`${JSON.stringify(statuses, null, 2)}\n`);
      return;
    }
    if (statuses.length === 0) {
      out.stdout('This desktop is in no team: join one with `dataset-health team join URL --token T`.\n');
      return;
    }
    for (const status of statuses)
      out.stdout(
        `${status.orgId}: ${teamStatusLine(status)} (${status.url}, ${status.role})${
          status.problem ? `: ${printable(status.problem)}` : ''
        }\n`,
      );
  },
  ifOutcomeUnknown: () => READ_ONLY,
});
