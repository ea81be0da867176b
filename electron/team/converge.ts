/**
 * The team's shared state from its operations (docs/decisions.md "On call as a team: operations"):
 * rules that give every member the same state once it has the same operations, whatever order they
 * came in and however often.
 *
 * - The acknowledgement of one failure (a dataset's failed or missing delivery) is the latest
 *   `acknowledge` or `unacknowledge` of it; the latest snooze of a dataset, its latest `snooze` or
 *   `unsnooze`. Latest by the operations' order: clock reading, then author, then id, the same on every
 *   member (last writer wins).
 * - The notes of a failure are every note any acknowledgement of it gave (a union), in that order.
 * - An operation is applied once, by its id; the team server keeps one operation per id.
 *
 * Whether an acknowledgement still holds (the dataset healthy again, or failed again with another
 * delivery) is not decided here but from the shared health every member mirrors, as for one desktop.
 */
import type { TeamOperation } from '../../shared/team';
import type { SnoozeKind } from '../../shared/views';

/** What orders two operations on one thing: the same on every member. */
export interface Stamp {
  at: string;
  author: string;
  opId: string;
}

/**
 * Text in the order of its code points: the order SQLite gives text (by its UTF-8 bytes), which a member's
 * store decides by (store/tables/teamLog.ts). JavaScript's `<` compares UTF-16 units, which puts a name
 * with an emoji before one with a character from U+E000 up: the two orders must not disagree.
 */
export function compareText(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Negative when `a` took effect before `b`. */
export function compareStamps(a: Stamp, b: Stamp): number {
  return compareText(a.at, b.at) || compareText(a.author, b.author) || compareText(a.opId, b.opId);
}

export interface FailureKey {
  orgId: string;
  datasetId: string;
  deliveryId: string;
  status: 'FAILED' | 'MISSING';
}

export interface SharedAcknowledgement extends FailureKey {
  acknowledged: boolean;
  /** The operation that decided it: who, when. */
  stamp: Stamp;
  note: string | null;
  causeId: string | null;
}

export interface SharedNote {
  stamp: Stamp;
  text: string;
}

export interface SharedSnooze {
  orgId: string;
  datasetId: string;
  snoozed: boolean;
  stamp: Stamp;
  kind: SnoozeKind | null;
  until: string | null;
  deliveryId: string | null;
}

/** One acknowledgement per delivery of a dataset, whichever status it named (as a member's store keys it). */
const failureKey = (key: Omit<FailureKey, 'status'>): string =>
  JSON.stringify([key.orgId, key.datasetId, key.deliveryId]);
const datasetKey = (orgId: string, datasetId: string): string => JSON.stringify([orgId, datasetId]);

const stampOf = (operation: TeamOperation): Stamp => ({
  at: operation.at,
  author: operation.author,
  opId: operation.opId,
});

export class TeamState {
  private readonly acknowledgements = new Map<string, SharedAcknowledgement>();
  private readonly notes = new Map<string, SharedNote[]>();
  private readonly snoozes = new Map<string, SharedSnooze>();
  private readonly applied = new Set<string>();

  /** The state after `operations`, in any order. */
  static of(operations: Iterable<TeamOperation>): TeamState {
    const state = new TeamState();
    for (const operation of operations) state.apply(operation);
    return state;
  }

  /** Applies one operation; false when it changed nothing (seen before, or older than what decided). */
  apply(operation: TeamOperation): boolean {
    if (this.applied.has(operation.opId)) return false;
    this.applied.add(operation.opId);
    const stamp = stampOf(operation);
    const { orgId } = operation;
    switch (operation.kind) {
      case 'acknowledge':
      case 'unacknowledge': {
        const { datasetId, deliveryId, status } = operation.payload;
        const key = failureKey({ orgId, datasetId, deliveryId });
        let changed = false;
        if (operation.kind === 'acknowledge' && operation.payload.note !== null)
          changed = this.addNote(key, { stamp, text: operation.payload.note });
        const current = this.acknowledgements.get(key);
        if (current !== undefined && compareStamps(stamp, current.stamp) < 0) return changed;
        const acknowledged = operation.kind === 'acknowledge';
        this.acknowledgements.set(key, {
          orgId,
          datasetId,
          deliveryId,
          status,
          acknowledged,
          stamp,
          note: acknowledged ? operation.payload.note : null,
          causeId: acknowledged ? operation.payload.causeId : null,
        });
        return true;
      }
      case 'snooze':
      case 'unsnooze': {
        const { datasetId } = operation.payload;
        const key = datasetKey(orgId, datasetId);
        const current = this.snoozes.get(key);
        if (current !== undefined && compareStamps(stamp, current.stamp) < 0) return false;
        const snooze = operation.kind === 'snooze' ? operation.payload : null;
        this.snoozes.set(key, {
          orgId,
          datasetId,
          snoozed: snooze !== null,
          stamp,
          kind: snooze?.kind ?? null,
          until: snooze?.until ?? null,
          deliveryId: snooze?.deliveryId ?? null,
        });
        return true;
      }
    }
  }

  /** The latest word on one failure, if any was said. */
  acknowledgement(key: FailureKey): SharedAcknowledgement | undefined {
    return this.acknowledgements.get(failureKey(key));
  }

  /** Every note given a failure, oldest first. */
  notesOf(key: FailureKey): readonly SharedNote[] {
    return this.notes.get(failureKey(key)) ?? [];
  }

  snooze(orgId: string, datasetId: string): SharedSnooze | undefined {
    return this.snoozes.get(datasetKey(orgId, datasetId));
  }

  /** Everything decided, for comparing two members' states: acknowledgements, notes, snoozes, in a fixed order. */
  summary(): {
    acknowledgements: SharedAcknowledgement[];
    notes: [string, SharedNote[]][];
    snoozes: SharedSnooze[];
  } {
    const sorted = <T>(map: Map<string, T>): [string, T][] =>
      [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return {
      acknowledgements: sorted(this.acknowledgements).map(([, value]) => value),
      notes: sorted(this.notes),
      snoozes: sorted(this.snoozes).map(([, value]) => value),
    };
  }

  private addNote(key: string, note: SharedNote): boolean {
    const notes = this.notes.get(key) ?? [];
    // Kept in the operations' order: insert where it belongs (notes of one failure are few).
    let at = notes.length;
    while (at > 0 && compareStamps(notes[at - 1]!.stamp, note.stamp) > 0) at -= 1;
    notes.splice(at, 0, note);
    this.notes.set(key, notes);
    return true;
  }
}
