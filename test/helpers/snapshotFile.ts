/**
 * Random small snapshots (README "The CLI", snapshots; the knowledge's format: docs/decisions.md "Snapshots: the local
 * knowledge") that break no rule of import but one: a time may lie outside years 0000–9999 of UTC
 * (rarely: a file has dozens of times). Records with awkward text, statuses, schedules and times in every
 * form import reads, events with ties and without ids, run details, tasks, timelines, acknowledgements
 * (open and ended; withdrawn ones on the timeline only), entries of deliveries the file no longer has,
 * and sync outages. Times are generated as TimeText and written by `written`, which says whether all
 * of them are in range.
 */
import fc from 'fast-check';
import { STAGES } from '../../shared/status';
import { NAMES } from './fixtures';
import { type TimeText, inRange, timeText } from './timeText';

/** A time as the file holds it: the generated text, or null. */
type Time = TimeText | null;

const nullable = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> =>
  fc.option(arbitrary, { nil: null, freq: 4 });
/** Mostly times import keeps (a file has dozens: one outside 0000–9999 of UTC refuses it whole). */
const fileTime = fc.oneof(
  { weight: 20, arbitrary: timeText.filter(inRange) },
  { weight: 1, arbitrary: timeText },
);
const time: fc.Arbitrary<Time> = nullable(fileTime);
/** Two times in order (the first not after the second). */
const ordered = fc
  .tuple(fileTime, fileTime)
  .map(([a, b]): [TimeText, TimeText] => (a.ms <= b.ms ? [a, b] : [b, a]));

/** Free text: names from the fixtures (Unicode, controls, GLOB characters), any code points, or empty. */
const text = fc.oneof(
  fc.constantFrom(...NAMES),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
);
/** Statuses are words (docs/decisions.md "Import"), known or not. */
const status = nullable(
  fc.oneof(
    fc.constantFrom('FAILED', 'MISSING', 'DELIVERED_LATE', 'HEALTHY', 'IN_PROGRESS', 'failed', ''),
    fc.stringMatching(/^[A-Za-z0-9_-]{1,10}$/),
  ),
);
/** Who acknowledged, as the app keeps it: 1 to 100 characters, trimmed, no control characters. */
const name = fc.oneof(
  fc.constantFrom('sam', 'Ana María', '🙂 on call', 'x'.repeat(100)),
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
    .map((value) => value.replace(/\p{Cc}/gu, '').trim())
    .filter((value) => value !== ''),
);
/** A note as the app keeps it: trimmed, lines and tabs, no other control characters. */
const note = nullable(
  fc.oneof(
    fc.constantFrom('rotating the key — "quoted"', 'line one\nline two\tand a tab', ''),
    fc
      .string({ unit: 'grapheme', maxLength: 30 })
      .map((value) => value.replace(/[^\P{Cc}\n\t]/gu, '').trim()),
  ),
);
const config = fc.oneof(
  fc.constant(null),
  fc.constantFrom(
    { cronExpression: '30 6 * * *', timezone: 'Europe/London' },
    { minute: '0', hour: '4', cronExpression: '0 4 * * 1-5 2026', timezone: 'UTC' },
    { minute: null, hour: '', timezone: 'America/New_York', cronExpression: '' },
    { dayOfWeek: '1-5', year: '*' },
  ),
);

interface Dataset {
  id: string;
  deliveryId: string | null;
  missing: boolean;
  deliveries: string[];
  record: Record<string, unknown>;
}

const runDetail = fc.record({
  stage: nullable(fc.constantFrom('ingest', 'normalize', 'process', 'dispatch', 'other')),
  runId: nullable(text),
  status,
  startedAt: time,
  endedAt: time,
});

const event = fc.record(
  {
    status,
    deliveryDeadline: time,
    deliveredAt: time,
    processingDeadlineConfig: config,
    hasId: fc.oneof(
      { weight: 9, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
    runDetails: fc.oneof(fc.constant(undefined), fc.constant(null), fc.array(runDetail, { maxLength: 2 })),
  },
  { requiredKeys: ['status', 'deliveryDeadline', 'hasId'] },
);

/** Dataset `index` of the file: its own deliveries (ids unique in the file), some events tied in time. */
const dataset = (index: number, id: string): fc.Arbitrary<Dataset> =>
  fc
    .record({
      name: nullable(text),
      supplier: fc.record({ id: nullable(text), name: nullable(text) }, { requiredKeys: [] }),
      config,
      events: fc.array(event, { maxLength: 4 }),
      tie: fc.boolean(),
      latestStatus: status,
      missing: fc.boolean(),
      recordDelivery: fc.constantFrom('first', 'own', 'none'),
      latest: time,
      next: time,
      extras: fc.record({
        legacyDatasetId: nullable(text),
        cduName: nullable(text),
        ownerOrgId: nullable(text),
      }),
    })
    .map((d): Dataset => {
      const events = d.events.map((e, j) => {
        const { hasId, ...rest } = e;
        return { ...rest, deliveryId: hasId ? `d${index}.${j}` : null };
      });
      // Equal deadlines and delivered times: only the list's order tells them apart.
      if (d.tie && events.length > 1) events[1] = { ...events[1]!, ...timesOf(events[0]!) };
      const deliveries = events.flatMap((e) => (e.deliveryId === null ? [] : [e.deliveryId]));
      const deliveryId =
        d.recordDelivery === 'first'
          ? (deliveries[0] ?? null)
          : d.recordDelivery === 'own'
            ? `r${index}`
            : null;
      if (deliveryId !== null && !deliveries.includes(deliveryId)) deliveries.push(deliveryId);
      const missing = d.missing && deliveryId !== null;
      return {
        id,
        deliveryId,
        missing,
        deliveries,
        record: {
          datasetId: id,
          datasetName: d.name,
          supplier: d.supplier,
          currentProcessingDeadlineConfig: d.config,
          deliveryId,
          deliveryEventList: events,
          latestDeliveryStatus: missing ? 'MISSING' : d.latestStatus,
          latestDeliveryTimestamp: d.latest,
          nextExpectedDeliveryTimestamp: d.next,
          ...d.extras,
        },
      };
    });

/** An event's deadline and delivered time. */
const timesOf = (e: { deliveryDeadline: Time; deliveredAt?: Time }) => ({
  deliveryDeadline: e.deliveryDeadline,
  deliveredAt: e.deliveredAt ?? null,
});

const task = (deliveryId: string) =>
  fc.record(
    {
      taskId: nullable(text),
      taskName: nullable(text),
      deliveryId: fc.constantFrom(deliveryId, null),
      status,
      scheduledAt: time,
      taskStartedAt: time,
      taskEndedAt: time,
      createdAt: time,
      shortCode: nullable(text),
      message: nullable(text),
      details: fc.record(
        {
          deliveryId: fc.constantFrom(deliveryId, null),
          runId: nullable(text),
          destinationName: nullable(text),
        },
        { requiredKeys: ['deliveryId'] },
      ),
    },
    { requiredKeys: ['taskId', 'status'] },
  );

const tasksRecord = (deliveryId: string) =>
  fc
    .tuple(
      fc.subarray([...STAGES]),
      fc.array(task(deliveryId), { maxLength: 2 }),
      status,
      time,
      // The normalize stage's timestamp is a plain string, kept as given when it is no time.
      fc.oneof(
        text,
        fileTime.map((t) => t.text),
      ),
    )
    .map(([stages, tasks, stageStatus, timestamp, normalizeTimestamp]) =>
      Object.fromEntries(
        stages.map((stage) => [
          stage,
          { status: stageStatus, timestamp: stage === 'normalize' ? normalizeTimestamp : timestamp, tasks },
        ]),
      ),
    );

interface Knowledge {
  timeline: Record<string, unknown>[];
  acknowledgements: Record<string, unknown>[];
}

const causeId = nullable(
  fc.constantFrom('ingest:E_AUTH', 'INGEST:E_AUTH', 'missing:sup-1', 'unknown', 'dispatch:'),
);

/**
 * A dataset's timeline and acknowledgements as the app makes them: ended acknowledgements of its own
 * deliveries with their entries, an open one of a MISSING dataset's delivery, withdrawn ones (entries only),
 * and entries of status, notifications and deliveries the history no longer has.
 */
const knowledge = (d: Dataset): fc.Arbitrary<Knowledge> =>
  fc
    .record({
      ended: fc.uniqueArray(
        fc.record({
          delivery: fc.constantFrom(...(d.deliveries.length > 0 ? d.deliveries : ['none'])),
          times: ordered,
          status: fc.constantFrom('FAILED', 'MISSING'),
          causeId,
          note,
          by: name,
          endReason: nullable(text),
          entries: fc.boolean(),
        }),
        { selector: (a) => a.delivery, maxLength: d.deliveries.length },
      ),
      open: fc.record({ at: fileTime, causeId, note, by: name, entry: fc.boolean() }),
      withOpen: fc.boolean(),
      withdrawn: fc.array(
        fc.record({ times: ordered, by: name, delivery: fc.constantFrom(...d.deliveries, 'gone') }),
      ),
      entries: fc.array(
        fc.record({
          at: fileTime,
          kind: fc.constantFrom('status', 'notified', 'reminded', 'acknowledged', 'acknowledgement-ended'),
          from: status,
          to: status,
          deliveryId: fc.constantFrom(null, 'gone', ...d.deliveries),
          text: nullable(text),
          note,
        }),
        { maxLength: 4 },
      ),
    })
    .map((k): Knowledge => {
      const timeline: Record<string, unknown>[] = [];
      const acknowledgements: Record<string, unknown>[] = [];
      const acked = new Set<string>();
      const open = d.missing && d.deliveryId !== null && k.withOpen ? d.deliveryId : null;
      for (const a of k.ended) {
        if (a.delivery === 'none' || a.delivery === open) continue;
        acked.add(a.delivery);
        const [at, endedAt] = a.times;
        acknowledgements.push({
          datasetId: d.id,
          deliveryId: a.delivery,
          status: a.status,
          causeId: a.causeId,
          note: a.note,
          by: a.by,
          at,
          endedAt,
          endReason: a.endReason,
        });
        if (a.entries)
          timeline.push(
            { at, kind: 'acknowledged', to: a.status, deliveryId: a.delivery, text: a.note, by: a.by },
            { at: endedAt, kind: 'acknowledgement-ended', deliveryId: a.delivery, text: a.endReason },
          );
      }
      if (open !== null) {
        acked.add(open);
        const { at, causeId: cause, note: openNote, by } = k.open;
        acknowledgements.push({
          datasetId: d.id,
          deliveryId: open,
          status: 'MISSING',
          causeId: cause,
          note: openNote,
          by,
          at,
        });
        if (k.open.entry) timeline.push({ at, kind: 'acknowledged', to: 'MISSING', deliveryId: open, by });
      }
      for (const w of k.withdrawn) {
        const [at, withdrawnAt] = w.times;
        timeline.push(
          { at, kind: 'acknowledged', to: 'FAILED', deliveryId: w.delivery, by: w.by },
          { at: withdrawnAt, kind: 'unacknowledged', deliveryId: w.delivery, by: w.by },
        );
      }
      for (const { note: entryNote, ...e } of k.entries) {
        // An acknowledgement's entry of a delivery the file has needs its acknowledgement (or withdrawal).
        const ackKind = e.kind === 'acknowledged' || e.kind === 'acknowledgement-ended';
        if (ackKind && (e.deliveryId === null || (e.deliveryId !== 'gone' && !acked.has(e.deliveryId))))
          continue;
        // An acknowledged entry's text is the acknowledgement's note.
        timeline.push(e.kind === 'acknowledged' ? { ...e, text: entryNote } : e);
      }
      return { timeline, acknowledgements };
    });

const outage = fc.record({
  sourceId: fc.constantFrom('src-1', 'src-2', 'ñ'),
  sourceName: fc.oneof(
    fc.constantFrom('Remote one'),
    text.filter((value) => value !== ''),
  ),
  times: fc.tuple(time, fileTime, time),
});

export const snapshotFile = fc
  .uniqueArray(
    fc.oneof(
      fc.constantFrom('a', 'b', 'A', 'ds-1', ' spaced id '),
      text.filter((value) => value !== ''),
    ),
    {
      minLength: 1,
      maxLength: 3,
    },
  )
  .chain((ids) => fc.tuple(...ids.map((id, i) => dataset(i, id))))
  .chain((datasets) => {
    const filed = datasets.flatMap((d) => d.deliveries);
    return fc.record({
      datasets: fc.constant(datasets),
      tasks: fc.tuple(...filed.map((deliveryId) => fc.option(tasksRecord(deliveryId), { nil: undefined }))),
      knowledge: fc.tuple(...datasets.map(knowledge)),
      outages: fc.uniqueArray(outage, { maxLength: 3, selector: (o) => `${o.sourceId} ${o.times[1].ms}` }),
      order: fc.constantFrom('as exported', 'knowledge first'),
    });
  })
  .map(({ datasets, tasks, knowledge: known, outages, order }) => {
    const filed = datasets.flatMap((d) => d.deliveries);
    const file = {
      datasets: datasets.map((d) => d.record),
      tasks: Object.fromEntries(filed.flatMap((id, i) => (tasks[i] === undefined ? [] : [[id, tasks[i]]]))),
      timeline: Object.fromEntries(
        datasets.flatMap((d, i) => (known[i]!.timeline.length === 0 ? [] : [[d.id, known[i]!.timeline]])),
      ),
      acknowledgements: known.flatMap((k) => k.acknowledgements),
      syncOutages: outages.map(({ sourceId, sourceName, times: [lastSuccessAt, lostAt, regainedAt] }) => {
        // In order: last success, lost, regained.
        const [last, regained] = [lastSuccessAt, regainedAt];
        return {
          sourceId,
          sourceName,
          lastSuccessAt: last !== null && last.ms <= lostAt.ms ? last : null,
          lostAt,
          regainedAt: regained !== null && regained.ms >= lostAt.ms ? regained : null,
        };
      }),
    };
    if (order === 'as exported') return file;
    const { datasets: records, ...rest } = file;
    return { ...rest, datasets: records };
  });

const isTime = (value: unknown): value is TimeText =>
  typeof value === 'object' && value !== null && 'ms' in value && 'text' in value;

/** The file's text (each generated time written as its text), and whether all its times are in range. */
export function written(file: unknown): { text: string; inRange: boolean } {
  let all = true;
  const text = JSON.stringify(file, (_key, value: unknown) => {
    if (!isTime(value)) return value;
    all &&= inRange(value);
    return value.text;
  });
  return { text, inRange: all };
}
