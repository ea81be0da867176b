/**
 * A snapshot's acknowledgement entries against its acknowledgements (store/snapshot/snapshotAckEntries.ts): an
 * `acknowledged` or `acknowledgement-ended` entry of a delivery the file gives its dataset needs that
 * acknowledgement, unless an `unacknowledged` entry at or after it withdrew it; entries of deliveries the
 * file does not have are history.
 */
import { describe, expect, it } from 'vitest';
import type { TimelineEntry, TimelineKind } from '../../../../shared/timeline';
import {
  AcknowledgementEntries,
  acknowledgementKey,
} from '../../../../electron/store/snapshot/snapshotAckEntries';

const entry = (kind: TimelineKind, deliveryId: string | null, at: string): TimelineEntry => ({
  at: `2026-11-21T${at}:00.000Z`,
  kind,
  from: null,
  to: null,
  deliveryId,
  text: null,
  by: kind === 'acknowledgement-ended' ? null : 'sam',
});

/** The first problem of one dataset's timeline `entries`, given the file's acknowledgements of `acked`. */
function problem(
  entries: TimelineEntry[],
  acked: string[],
  has = (id: string) => id !== 'gone',
): string | null {
  const checker = new AcknowledgementEntries();
  checker.add('a', entries, '$.timeline["a"]', has);
  const acknowledgements = new Map(
    acked.map((id, i) => [acknowledgementKey('a', id), `$.acknowledgements[${i}]`]),
  );
  try {
    checker.check(acknowledgements);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('an acknowledgement entry', () => {
  it('is accepted with its acknowledgement, however many entries tell of it', () => {
    const entries = [
      entry('acknowledged', 'd1', '05:00'),
      entry('acknowledged', 'd1', '05:10'),
      entry('acknowledgement-ended', 'd1', '06:00'),
    ];
    expect(problem(entries, ['d1'])).toBeNull();
  });

  it('is refused without it, the first in file order named', () => {
    const entries = [
      entry('status', 'd1', '04:00'),
      entry('acknowledgement-ended', 'd2', '06:00'),
      entry('acknowledged', 'd2', '05:00'),
    ];
    expect(problem(entries, ['d1'])).toBe(
      `$.timeline["a"][1].deliveryId: an 'acknowledgement-ended' entry of delivery 'd2', but the file has no acknowledgement of dataset 'a' and that delivery (give it in $.acknowledgements, or an 'unacknowledged' entry at or after this one if it was withdrawn)`,
    );
  });

  it('of an acknowledgement withdrawn at or after it needs none; one made after the withdrawal does', () => {
    const withdrawn = [entry('acknowledged', 'd1', '05:00'), entry('unacknowledged', 'd1', '05:00')];
    expect(problem(withdrawn, [])).toBeNull();
    const madeAgain = [...withdrawn, entry('acknowledged', 'd1', '05:30')];
    expect(problem(madeAgain, [])).toMatch(
      /^\$\.timeline\["a"\]\[2\]\.deliveryId: an 'acknowledged' entry of delivery 'd1'/,
    );
    expect(problem(madeAgain, ['d1'])).toBeNull();
    const withdrawnBefore = [entry('unacknowledged', 'd1', '04:59'), entry('acknowledged', 'd1', '05:00')];
    expect(problem(withdrawnBefore, [])).toMatch(/^\$\.timeline\["a"\]\[1\]\.deliveryId/);
  });

  it('of a delivery the file does not give the dataset is history, checked against nothing', () => {
    expect(
      problem([entry('acknowledged', 'gone', '05:00'), entry('acknowledgement-ended', 'gone', '06:00')], []),
    ).toBeNull();
  });
});

it('keys one acknowledgement per dataset and delivery, whatever characters their ids hold', () => {
  expect(acknowledgementKey('a b', 'c')).not.toBe(acknowledgementKey('a', 'b c'));
  expect(acknowledgementKey('a","b', 'c')).not.toBe(acknowledgementKey('a', 'b","c'));
});
