/**
 * `ack` / `unack` (docs/architecture.md#acknowledgements, issue 13 point 3): someone owns a failure — one dataset's current
 * FAILED or MISSING delivery, or every troubled failure of an incident (docs/decisions.md "Incidents") — with an optional note and who did it
 * (`--by`, else the settings' triage name, else the OS user). The same knowledge functions as the window's
 * `acks.set`/`acks.clear`; through the running instance its tray redraws at once.
 */
import Type from 'typebox';
import { type AcknowledgementView, type Incident, ackNameProblem, noteProblem } from '../../../shared/causes';
import {
  NothingToAcknowledge,
  acknowledgeCause,
  acknowledgeDataset,
  checkName,
  checkNote,
  incidentOrCause,
  isIncidentId,
  liveIncident,
  unacknowledgeCause,
  unacknowledgeDataset,
} from '../../knowledge/acknowledge';
import { acknowledgerName } from '../../knowledge/identity';
import { getIncident, incidentOfDataset, listIncidents } from '../../query/incidents';
import { InvalidArgument } from '../../query/errors';
import { datasetStatus } from '../../query/trayCounts';
import { openAcknowledgement } from '../../store/tables/acknowledgements';
import type { Store } from '../../store/database';
import { listOrgs, printable, printableJson } from '../../store/tables/orgs';
import {
  type CommandContext,
  CommandError,
  type CommandOutput,
  CommandUsageError,
  command,
} from '../command';
import { checkOrg, knownOrg, orgOrOnly } from './org';

/** What both commands name: one dataset or one cause, in one org (or the one that fits). */
export interface AckTarget {
  datasetId?: string;
  cause?: string;
  org?: string;
  by?: string;
}

/** The request as checked before anything touches the store (on both paths): usage errors are exit 2. */
export interface CheckedTarget {
  datasetId: string | null;
  /** An incident id, or a cause key in its canonical spelling (`INGEST:E_X` → `ingest:E_X`). */
  causeId: string | null;
  org: string | undefined;
  by: string | undefined;
}

export function checkAckTarget(target: AckTarget): CheckedTarget {
  if ((target.datasetId === undefined) === (target.cause === undefined))
    throw new CommandUsageError(
      target.cause === undefined
        ? 'name a DATASET_ID, or an incident with --cause INCIDENT_ID (or a cause key STAGE:SHORTCODE, missing:SUPPLIER, unknown)'
        : 'name either a DATASET_ID or --cause, not both',
    );
  let causeId: string | null = null;
  if (target.cause !== undefined) {
    try {
      causeId = incidentOrCause(target.cause);
    } catch (error) {
      throw new CommandUsageError(
        `--cause: ${printable((error as Error).message)}; or an incident id (inc- and ten hex digits)`,
      );
    }
  }
  if (target.org !== undefined) checkOrg(target.org);
  return {
    datasetId: target.datasetId ?? null,
    causeId,
    org: target.org,
    by: target.by === undefined ? undefined : checkBy(target.by),
  };
}

/** The name as kept (trimmed); one the app cannot keep (ackNameProblem) is a usage error naming --by. */
function checkBy(by: string): string {
  const problem = ackNameProblem(by.trim());
  if (problem !== null) throw new CommandUsageError(`--by: the name ${problem}`);
  return checkName(by);
}

/** The note as kept (trimmed; empty is none); one the app cannot keep is a usage error naming --note. */
export function checkAckNote(note: string | undefined): string | null {
  const problem = noteProblem(note?.trim() ?? '');
  if (problem !== null) throw new CommandUsageError(`--note ${problem}`);
  return checkNote(note);
}

/** Who acknowledges: `--by`, else the settings' triage name, else the OS user (a bad setting is exit 1). */
async function whoActs(ctx: CommandContext, by: string | undefined): Promise<{ by: string; now: Date }> {
  if (by !== undefined) return { by, now: ctx.now() };
  const name = acknowledgerName(await ctx.settings());
  const problem = ackNameProblem(name);
  if (problem !== null)
    throw new CommandError(`the name in Settings → Triage ${problem}: change it, or pass --by NAME`);
  return { by: checkName(name), now: ctx.now() };
}

const quoted = (id: string): string => `'${printable(id)}'`;

/** The org holding the dataset: the one given, else the only one that has it. */
function orgOfDataset(store: Store, datasetId: string, org: string | undefined): string {
  if (org !== undefined) {
    knownOrg(store, org);
    if (datasetStatus(store, org, datasetId) === undefined)
      throw new CommandError(`dataset ${quoted(datasetId)} is not in org ${org}`);
    return org;
  }
  const holders = listOrgs(store)
    .map(({ id }) => id)
    .filter((id) => datasetStatus(store, id, datasetId) !== undefined);
  if (holders.length === 0) throw new CommandError(`dataset ${quoted(datasetId)} is not in this mirror`);
  if (holders.length > 1)
    throw new CommandError(
      `dataset ${quoted(datasetId)} is in ${holders.length} orgs (${holders.join(', ')}): pass --org to say which`,
    );
  return holders[0]!;
}

/** The org a cause is looked up in: the one given, else the only org of the data directory. */
const orgOfCause = (store: Store, org: string | undefined): string =>
  orgOrOnly(store, org, { nothing: 'nothing is failing', asker: '--cause' });

/**
 * The live incident an id names (liveIncident); an unknown one is answered with the live incidents (a
 * typo is then plain to see).
 */
function currentIncident(store: Store, orgId: string, id: string): Incident {
  try {
    return liveIncident(store, orgId, id);
  } catch (error) {
    // A cause key that several live incidents have: the message lists them to choose from.
    if (error instanceof InvalidArgument) throw new CommandError(printable(error.message));
    if (!(error instanceof NothingToAcknowledge)) throw error;
    const incidents = listIncidents(store, orgId);
    const shown =
      incidents.length === 0
        ? 'nothing is FAILED or MISSING there'
        : `live incidents: ${incidents
            .slice(0, 8)
            .map((incident) => `${incident.incidentId} ${printable(incident.title)}`)
            .join(', ')}${incidents.length > 8 ? `, … (${incidents.length})` : ''}`;
    const what = !isIncidentId(id)
      ? `no current failure has cause ${quoted(id)}`
      : getIncident(store, orgId, id) === null
        ? `no incident ${quoted(id)}`
        : `incident ${quoted(id)} is over (none of its datasets is troubled now)`;
    throw new CommandError(`${what} in org ${orgId} (${shown})`);
  }
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

function ackLine(ack: AcknowledgementView, title: string): string {
  const note = ack.note === null ? '' : `: ${printable(JSON.stringify(ack.note))}`;
  return `acknowledged ${printable(ack.datasetId)} (delivery ${printable(ack.deliveryId)}, ${printable(title)}) by ${printable(ack.by)}${note}\n`;
}

function printJson(out: CommandOutput, value: unknown): void {
  out.stdout(`${printableJson(value)}\n`);
}

export const ack = command({
  args: Type.Object(
    {
      datasetId: Type.Optional(Type.String()),
      cause: Type.Optional(Type.String()),
      org: Type.Optional(Type.String()),
      note: Type.Optional(Type.String()),
      by: Type.Optional(Type.String()),
      json: Type.Boolean(),
    },
    { additionalProperties: false },
  ),
  async run(ctx, args, out) {
    const target = checkAckTarget(args);
    const note = checkAckNote(args.note);
    const who = await whoActs(ctx, target.by);
    const { store } = ctx;
    const done = await store.whenIdle(() => {
      try {
        if (target.datasetId !== null) return acknowledgeOne(store, target.datasetId, target.org, note, who);
        return acknowledgeAll(store, target.causeId!, target.org, note, who);
      } catch (error) {
        if (error instanceof NothingToAcknowledge) throw new CommandError(error.message);
        throw error;
      }
    });
    if (done.acknowledged.length > 0) ctx.instance?.alertsChanged();
    if (args.json) return printJson(out, done.acknowledged);
    for (const acknowledged of done.acknowledged) out.stdout(ackLine(acknowledged, done.title));
    if (done.cause === undefined) return;
    const { causeId, orgId, already } = done.cause;
    if (done.acknowledged.length === 0) {
      out.stdout(
        `${already === 1 ? 'the one failure' : `all ${already} failures`} of incident ${quoted(causeId)} (${printable(done.title)}) in org ${orgId} ${already === 1 ? 'is' : 'are'} already acknowledged\n`,
      );
      return;
    }
    out.stdout(
      `acknowledged ${plural(done.acknowledged.length, 'failure', 'failures')} of incident ${quoted(causeId)} (${printable(done.title)}) in org ${orgId}${already > 0 ? ` (${already} already acknowledged)` : ''}\n`,
    );
  },
  ifOutcomeUnknown: () =>
    'acknowledging again is safe: it sets the same acknowledgement (the timeline then lists it twice)',
});

interface Acknowledged {
  acknowledged: AcknowledgementView[];
  title: string;
  /** For a cause: which, where, and how many of its failures were acknowledged before. */
  cause?: { causeId: string; orgId: string; already: number };
}

function acknowledgeOne(
  store: Store,
  datasetId: string,
  org: string | undefined,
  note: string | null,
  who: { by: string; now: Date },
): Acknowledged {
  const orgId = orgOfDataset(store, datasetId, org);
  const found = incidentOfDataset(store, orgId, datasetId);
  if (!found || found.dataset.deliveryId === null) {
    const status = datasetStatus(store, orgId, datasetId) ?? null;
    throw new CommandError(
      `dataset ${quoted(datasetId)} in org ${orgId} ${
        status === null
          ? 'has no status'
          : status === 'FAILED' || status === 'MISSING'
            ? `is ${status} but has no stored delivery`
            : `is ${printable(status)}`
      }: only a FAILED or MISSING delivery can be acknowledged`,
    );
  }
  return { acknowledged: [acknowledgeDataset(store, orgId, datasetId, note, who)], title: found.title };
}

function acknowledgeAll(
  store: Store,
  causeId: string,
  org: string | undefined,
  note: string | null,
  who: { by: string; now: Date },
): Acknowledged {
  const orgId = orgOfCause(store, org);
  const incident = currentIncident(store, orgId, causeId);
  const already = incident.datasets.filter((dataset) => dataset.acknowledgement !== null).length;
  return {
    acknowledged: acknowledgeCause(store, orgId, incident.incidentId, note, who),
    title: incident.title,
    cause: { causeId: incident.incidentId, orgId, already },
  };
}

export const unack = command({
  args: Type.Object(
    {
      datasetId: Type.Optional(Type.String()),
      cause: Type.Optional(Type.String()),
      org: Type.Optional(Type.String()),
      by: Type.Optional(Type.String()),
      json: Type.Boolean(),
    },
    { additionalProperties: false },
  ),
  async run(ctx, args, out) {
    const target = checkAckTarget(args);
    const who = await whoActs(ctx, target.by);
    const { store } = ctx;
    const done = await store.whenIdle(() =>
      target.datasetId !== null
        ? withdrawOne(store, target.datasetId, target.org, who)
        : withdrawAll(store, target.causeId!, target.org, who),
    );
    ctx.instance?.alertsChanged();
    if (args.json) return printJson(out, done.withdrawn);
    for (const withdrawn of done.withdrawn)
      out.stdout(
        `withdrew the acknowledgement of ${printable(withdrawn.datasetId)} (delivery ${printable(withdrawn.deliveryId)}, acknowledged by ${printable(withdrawn.by)})\n`,
      );
    if (done.cause)
      out.stdout(
        `withdrew ${plural(done.withdrawn.length, 'acknowledgement', 'acknowledgements')} of ${quoted(done.cause.causeId)} in org ${done.cause.orgId}\n`,
      );
  },
  ifOutcomeUnknown: () => 'running it again is safe: it says so when there is nothing left to withdraw',
});

interface Withdrawn {
  withdrawn: AcknowledgementView[];
  cause?: { causeId: string; orgId: string };
}

function withdrawOne(
  store: Store,
  datasetId: string,
  org: string | undefined,
  who: { by: string; now: Date },
): Withdrawn {
  const orgId = orgOfDataset(store, datasetId, org);
  const open = openAcknowledgement(store, orgId, datasetId);
  if (!open || !unacknowledgeDataset(store, orgId, datasetId, who))
    throw new CommandError(`dataset ${quoted(datasetId)} in org ${orgId} has no acknowledgement to withdraw`);
  return { withdrawn: [open] };
}

function withdrawAll(
  store: Store,
  causeId: string,
  org: string | undefined,
  who: { by: string; now: Date },
): Withdrawn {
  const orgId = orgOfCause(store, org);
  const incident = currentIncident(store, orgId, causeId);
  const id = incident.incidentId;
  // The same datasets unacknowledgeCause withdraws: read in the same synchronous turn.
  const withdrawn = incident.datasets.flatMap((dataset) => dataset.acknowledgement ?? []);
  if (withdrawn.length === 0)
    throw new CommandError(
      `${incident.count === 1 ? 'the one failure' : `none of the ${incident.count} failures`} of ${quoted(id)} in org ${orgId} is ${incident.count === 1 ? 'not ' : ''}acknowledged`,
    );
  unacknowledgeCause(store, orgId, id, who);
  return { withdrawn, cause: { causeId: id, orgId } };
}
