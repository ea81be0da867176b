/**
 * What an on-call team shares (docs/decisions.md "On call as a team: operations"): every
 * acknowledgement, withdrawal and snooze is an **operation**, made once by its author, sent to the team
 * server, and applied by every member. An operation is a fact: it is never changed or removed, and two
 * members that have the same operations show the same state, in whatever order they came
 * (electron/team/converge.ts).
 *
 * The wire format, checked where operations cross a trust boundary (a member's push, a server's pull).
 */
import Type, { type Static } from 'typebox';
import { MAX_ACK_NAME_LENGTH, MAX_NOTE_LENGTH } from './ackLimits';
import { MAX_CAUSE_ID_LENGTH } from './causes';
import { SnoozeKindSchema } from './rpc';

/** The team server's routes beside its v2 API (electron/api/teamRoutes.ts), as members call them. */
export const TEAM_PATHS = {
  operations: '/team/v1/operations',
  events: '/team/v1/events',
  me: '/team/v1/me',
} as const;

/** A team token: `dht_` and 43 base64url characters (electron/store/teamDb/tokens.ts makes them). */
export const TEAM_TOKEN_PATTERN = /^dht_[A-Za-z0-9_-]{43}$/;

/** Time of an operation: a hybrid logical clock reading (electron/team/clock.ts), `<ISO time>#<counter>`. */
export const HLC_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z#\\d{4}$';
/** An operation's id: a UUID version 7 (time-ordered), lower case, made by its author. */
export const OPERATION_ID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$';

const Id = Type.String({ minLength: 1, maxLength: 256 });
const Troubled = Type.Union([Type.Literal('FAILED'), Type.Literal('MISSING')]);

/** One failure of a dataset: its failed (or missing) delivery, as acknowledgements name it. */
const Failure = {
  datasetId: Id,
  deliveryId: Id,
  status: Troubled,
};

export const AcknowledgePayload = Type.Object(
  {
    ...Failure,
    note: Type.Union([Type.String({ maxLength: MAX_NOTE_LENGTH }), Type.Null()]),
    /** The incident (or cause) acknowledged as a whole, when it was; null for one dataset. */
    causeId: Type.Union([Type.String({ minLength: 1, maxLength: MAX_CAUSE_ID_LENGTH }), Type.Null()]),
  },
  { additionalProperties: false },
);

export const UnacknowledgePayload = Type.Object(Failure, { additionalProperties: false });

export const SnoozePayload = Type.Object(
  {
    datasetId: Id,
    kind: SnoozeKindSchema,
    /** For 1h and 4h: when it ends, fixed by its author (every member ends it at the same time). */
    until: Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Null()]),
    /** For next-delivery: the delivery it waits past. */
    deliveryId: Type.Union([Id, Type.Null()]),
  },
  { additionalProperties: false },
);

export const UnsnoozePayload = Type.Object({ datasetId: Id }, { additionalProperties: false });

const head = {
  opId: Type.String({ pattern: OPERATION_ID_PATTERN }),
  orgId: Id,
  /** The member who made it (the team server checks it against the member's token: team/access.ts). */
  author: Type.String({ minLength: 1, maxLength: MAX_ACK_NAME_LENGTH }),
  at: Type.String({ pattern: HLC_PATTERN }),
};

export const TeamOperation = Type.Union([
  Type.Object(
    { ...head, kind: Type.Literal('acknowledge'), payload: AcknowledgePayload },
    { additionalProperties: false },
  ),
  Type.Object(
    { ...head, kind: Type.Literal('unacknowledge'), payload: UnacknowledgePayload },
    { additionalProperties: false },
  ),
  Type.Object(
    { ...head, kind: Type.Literal('snooze'), payload: SnoozePayload },
    { additionalProperties: false },
  ),
  Type.Object(
    { ...head, kind: Type.Literal('unsnooze'), payload: UnsnoozePayload },
    { additionalProperties: false },
  ),
]);
export type TeamOperation = Static<typeof TeamOperation>;
export type OperationKind = TeamOperation['kind'];

/** Every string inside `value`, with where it is. */
function* stringsOf(value: unknown, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (value !== null && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) yield* stringsOf(inner, `${path}/${key}`);
}

/** Half of a surrogate pair alone: not a character. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether `text` is a time exactly as `Date.toISOString` writes it (UTC, milliseconds). */
export const isTime = (text: string): boolean => {
  const at = Date.parse(text);
  return Number.isFinite(at) && new Date(at).toISOString() === text;
};

/**
 * What the schema cannot say about an operation, or null: its text is text (no NUL, no half of a
 * surrogate pair: PostgreSQL refuses both), and a snooze holds what its kind needs (an end time for 1 h
 * and 4 h, the delivery for next-delivery, neither for healthy).
 */
export function operationProblem(op: TeamOperation): string | null {
  for (const [path, text] of stringsOf(op, ''))
    if (text.includes('\u0000') || LONE_SURROGATE.test(text))
      return `operation ${op.opId}: ${path} holds a NUL or a broken character; operations hold text`;
  if (op.kind !== 'snooze') return null;
  const { kind, until, deliveryId } = op.payload;
  const timed = kind === '1h' || kind === '4h';
  if (timed !== (until !== null) || (until !== null && !isTime(until)))
    return `operation ${op.opId}: a ${kind} snooze ${timed ? 'needs its end time (ISO, UTC)' : 'has no end time'} in "until"`;
  if ((kind === 'next-delivery') !== (deliveryId !== null))
    return `operation ${op.opId}: a ${kind} snooze ${kind === 'next-delivery' ? 'needs the delivery it waits past' : 'names no delivery'} in "deliveryId"`;
  return null;
}
