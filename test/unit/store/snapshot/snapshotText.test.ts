/**
 * The snapshot file read record by record (store/snapshot/snapshotText.ts) must read exactly what `JSON.parse`
 * of the whole file reads, whatever the layout (one line, a record per line as `export` writes, pretty
 * printed, CRLF) and wherever the file is cut into chunks; and text that is not JSON must fail, saying
 * where.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  SnapshotError,
  type SnapshotPart,
  SnapshotSplitter,
} from '../../../../electron/store/snapshot/snapshotText';

interface Split {
  datasets: unknown[];
  tasks: [string, unknown][];
  timeline: [string, unknown][];
  acknowledgements: unknown[];
  syncOutages: unknown[];
  incidents: unknown[];
}

/** The parts read from `text` cut at `cuts` (byte offsets), or the error thrown. */
function split(text: string, cuts: number[] = []): Split | Error {
  const parts: SnapshotPart[] = [];
  const splitter = new SnapshotSplitter((part) => parts.push(part));
  const bytes = Buffer.from(text, 'utf8');
  try {
    let from = 0;
    for (const cut of [
      ...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b),
      bytes.length,
    ]) {
      // A copy, as a reader reusing its buffer would leave it.
      if (cut > from) splitter.push(Buffer.from(bytes.subarray(from, cut)));
      from = cut;
    }
    splitter.end();
  } catch (error) {
    return error as Error;
  }
  const listed = (kind: SnapshotPart['kind']): unknown[] => {
    const of = parts.filter((p) => p.kind === kind) as { index: number; value: unknown }[];
    of.forEach((part, i) => expect(part.index).toBe(i));
    return of.map((p) => p.value);
  };
  return {
    datasets: listed('dataset'),
    tasks: parts.flatMap((p) => (p.kind === 'tasks' ? [[p.deliveryId, p.value] as [string, unknown]] : [])),
    timeline: parts.flatMap((p) =>
      p.kind === 'timeline' ? [[p.datasetId, p.value] as [string, unknown]] : [],
    ),
    acknowledgements: listed('acknowledgement'),
    syncOutages: listed('syncOutage'),
    incidents: listed('incident'),
  };
}

interface Snapshot {
  datasets: unknown[];
  tasks?: Record<string, unknown> | null;
  timeline?: Record<string, unknown> | null;
  acknowledgements?: unknown[] | null;
  syncOutages?: unknown[] | null;
  incidents?: unknown[] | null;
}

/** What a snapshot holds, as `JSON.parse` reads it (keyed members by key: their order in the file is kept). */
function expected(value: Snapshot): Split {
  return {
    datasets: value.datasets,
    tasks: Object.entries(value.tasks ?? {}),
    timeline: Object.entries(value.timeline ?? {}),
    acknowledgements: value.acknowledgements ?? [],
    syncOutages: value.syncOutages ?? [],
    incidents: value.incidents ?? [],
  };
}

const sorted = (entries: [string, unknown][]) =>
  [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
const byKey = (s: Split): Split => ({ ...s, tasks: sorted(s.tasks), timeline: sorted(s.timeline) });

/** A member as export writes it: an array or keyed object with a record per line. */
function memberLines(name: string, value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return `,"${name}":null`;
  if (Array.isArray(value))
    return `,"${name}":[${value.map((item) => `\n${JSON.stringify(item)}`).join(',')}\n]`;
  return `,"${name}":{${Object.entries(value as object)
    .map(([k, v]) => `\n${JSON.stringify(k)}:${JSON.stringify(v)}`)
    .join(',')}\n}`;
}

/** The layouts a snapshot file comes in. */
const LAYOUTS: Record<string, (value: Snapshot) => string> = {
  compact: (value) => JSON.stringify(value),
  pretty: (value) => JSON.stringify(value, null, 2),
  crlf: (value) => JSON.stringify(value, null, 1).replaceAll('\n', '\r\n'),
  // What export writes: a record per line.
  lines: ({ datasets, tasks, timeline, acknowledgements, syncOutages, incidents }) =>
    `{"datasets":[${datasets.map((d) => `\n${JSON.stringify(d)}`).join(',')}\n]${memberLines('tasks', tasks)}${memberLines('timeline', timeline)}${memberLines('acknowledgements', acknowledgements)}${memberLines('syncOutages', syncOutages)}${memberLines('incidents', incidents)}}\n`,
};

const json = fc.jsonValue({ maxDepth: 3 });
const keyed = fc.oneof(fc.constant(null), fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 5 }));
const list = fc.oneof(fc.constant(null), fc.array(json, { maxLength: 4 }));
const snapshot = fc.record(
  {
    datasets: fc.array(json, { maxLength: 6 }),
    tasks: keyed,
    timeline: keyed,
    acknowledgements: list,
    syncOutages: list,
    incidents: list,
  },
  { requiredKeys: ['datasets'] },
);
const cuts = fc.array(fc.nat(4_000), { maxLength: 6 });

describe('reading a snapshot record by record', () => {
  it('reads what JSON.parse reads, in every layout, cut anywhere', () => {
    fc.assert(
      fc.property(snapshot, fc.constantFrom(...Object.keys(LAYOUTS)), cuts, (value, layout, at) => {
        const text = LAYOUTS[layout]!(value);
        const read = split(text, at);
        expect(read).not.toBeInstanceOf(Error);
        expect(byKey(read as Split)).toEqual(byKey(expected(JSON.parse(text))));
      }),
      { numRuns: 3_000, seed: 15 },
    );
  });

  it('fails exactly when the text is not JSON or not a snapshot, whatever the cuts', () => {
    const edits = fc.record({
      at: fc.nat(),
      remove: fc.nat(2),
      insert: fc.stringMatching(/^[{}[\]",:\\ \nax1]{0,2}$/),
    });
    fc.assert(
      fc.property(
        snapshot,
        fc.constantFrom(...Object.keys(LAYOUTS)),
        edits,
        cuts,
        (value, layout, edit, at) => {
          const original = LAYOUTS[layout]!(value);
          const where = edit.at % (original.length + 1);
          const text = original.slice(0, where) + edit.insert + original.slice(where + edit.remove);
          const read = split(text, at);
          // The same verdict, cut or not (a refusal may be worded from another side of a cut).
          const uncut = split(text);
          if (uncut instanceof Error) expect(read).toBeInstanceOf(SnapshotError);
          else expect(read).toEqual(uncut);
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            expect(read).toBeInstanceOf(SnapshotError);
            return;
          }
          if (read instanceof Error) {
            expect(read).toBeInstanceOf(SnapshotError);
            // Valid JSON refused: not a snapshot's shape, or a name given twice (JSON.parse keeps the last).
            expect(
              !isSnapshot(parsed) || /given twice/.test(read.message),
              `${read.message} for ${JSON.stringify(text)}`,
            ).toBe(true);
            return;
          }
          expect(isSnapshot(parsed)).toBe(true);
          expect(byKey(read)).toEqual(byKey(expected(parsed as { datasets: unknown[] })));
        },
      ),
      { numRuns: 5_000, seed: 15 },
    );
  });
});

function isSnapshot(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { datasets, tasks, timeline, acknowledgements, syncOutages, incidents, ...rest } = value as Record<
    string,
    unknown
  >;
  const keyedOrNone = (member: unknown): boolean =>
    member === undefined || member === null || (typeof member === 'object' && !Array.isArray(member));
  const listOrNone = (member: unknown): boolean =>
    member === undefined || member === null || Array.isArray(member);
  return (
    Object.keys(rest).length === 0 &&
    Array.isArray(datasets) &&
    keyedOrNone(tasks) &&
    keyedOrNone(timeline) &&
    listOrNone(acknowledgements) &&
    listOrNone(syncOutages) &&
    listOrNone(incidents)
  );
}

describe('what a bad file is told', () => {
  const ROWS: [name: string, text: string, message: RegExp][] = [
    ['an empty file', '', /^not valid JSON: Unexpected end of JSON input$/],
    ['an array', '[]', /^\$: expected an object with "datasets" \(and optionally "tasks"\), got an array$/],
    [
      'a file cut short',
      '{"datasets":[\n{"datasetId":"a"},\n{"datasetId":',
      /^not valid JSON: the file ends before the snapshot does \(inside \$\.datasets\[1\], line 3\)$/,
    ],
    [
      'a bad record on line 3',
      '{"datasets":[\n{"datasetId":"a"},\n{"datasetId":"b",}\n]}',
      /^not valid JSON in \$\.datasets\[1\] \(line 3, column 18\): Expected double-quoted property name$/,
    ],
    [
      'a bad record over several lines',
      '{"datasets":[\n  {\n    "datasetId": tru\n  }\n]}',
      /^not valid JSON in \$\.datasets\[0\] \(line 2\): Unexpected token/,
    ],
    [
      'a bad tasks record',
      '{"datasets":[],"tasks":{\n"d1":{"ingest":[}\n}}',
      /^not valid JSON in \$\.tasks\["d1"\] \(line 2\): Unexpected token '}', "{"ingest":\[}\\n}" is not valid JSON$/,
    ],
    [
      'a trailing comma in datasets',
      '{"datasets":[{"datasetId":"a"},]}',
      /^not valid JSON \(line 1, column 32\): expected a dataset record at \$\.datasets\[1\], found '\]}'$/,
    ],
    [
      'text after the snapshot',
      '{"datasets":[]}\n{"datasets":[]}',
      /^not valid JSON \(line 2, column 1\): expected nothing after the end of the snapshot object/,
    ],
    ['datasets twice', '{"datasets":[],"datasets":[]}', /^\$\.datasets: given twice in the snapshot object$/],
    [
      'a deliveryId twice in tasks',
      '{"datasets":[],"tasks":{"d1":{},"d1":{}}}',
      /^\$\.tasks\["d1"\]: given twice \(a deliveryId names one tasks record\)$/,
    ],
    ['no datasets', '{"tasks":{}}', /^\$\.datasets: expected an array of dataset records$/],
    ['datasets not an array', '{"datasets":{}}', /^\$\.datasets: expected an array of dataset records$/],
    [
      'tasks not an object',
      '{"datasets":[],"tasks":[]}',
      /^\$\.tasks: expected an object keyed by deliveryId$/,
    ],
    [
      'a datasetId twice in the timeline',
      '{"datasets":[],"timeline":{"a":[],"a":[]}}',
      /^\$\.timeline\["a"\]: given twice \(a datasetId names one timeline\)$/,
    ],
    [
      'a timeline that is an array',
      '{"datasets":[],"timeline":[]}',
      /^\$\.timeline: expected an object keyed by datasetId$/,
    ],
    [
      'acknowledgements that are an object',
      '{"datasets":[],"acknowledgements":{}}',
      /^\$\.acknowledgements: expected an array of acknowledgements$/,
    ],
    [
      'sync outages that are a number',
      '{"datasets":[],"syncOutages":1}',
      /^\$\.syncOutages: expected an array of sync outages$/,
    ],
    [
      'a trailing comma in acknowledgements',
      '{"datasets":[],"acknowledgements":[{},]}',
      /^not valid JSON \(line 1, column 39\): expected an acknowledgement at \$\.acknowledgements\[1\], found '\]}'$/,
    ],
    [
      'a bad timeline',
      '{"datasets":[],"timeline":{\n"a":[{"at":}]\n}}',
      /^not valid JSON in \$\.timeline\["a"\] \(line 2\): Unexpected token '}'/,
    ],
    [
      'a file cut short in the sync outages',
      '{"datasets":[],"syncOutages":[\n{"sourceId":"s"},\n{"sourceId":',
      /^not valid JSON: the file ends before the snapshot does \(inside \$\.syncOutages\[1\], line 3\)$/,
    ],
    [
      'an unknown member',
      '{"datasets":[],"extra":1}',
      /^\$\.extra: unknown field 'extra' \(allowed: datasets, tasks, timeline, acknowledgements, syncOutages, incidents\)$/,
    ],
    [
      'incidents that are an object',
      '{"datasets":[],"incidents":{}}',
      /^\$\.incidents: expected an array of incidents$/,
    ],
    [
      'a file cut short in the incidents',
      '{"datasets":[],"incidents":[\n{"incidentId":"inc-0123456789","failures":[]},\n{"incidentId":',
      /^not valid JSON: the file ends before the snapshot does \(inside \$\.incidents\[1\], line 3\)$/,
    ],
  ];
  it.each(ROWS)('%s', (_name, text, message) => {
    for (const at of [[], [1], [text.length - 3], [5, 17, 29]]) {
      const read = split(text, at);
      expect(read).toBeInstanceOf(SnapshotError);
      expect((read as Error).message).toMatch(message);
    }
  });

  it('tells whether the file gave incidents: an empty array gives none, null or no member none at all', () => {
    const gave = (text: string): boolean => {
      const splitter = new SnapshotSplitter(() => {});
      splitter.push(Buffer.from(text, 'utf8'));
      splitter.end();
      return splitter.gave('incidents');
    };
    expect(gave('{"datasets":[],"incidents":[]}')).toBe(true);
    expect(gave('{"incidents":[\n{}\n],"datasets":[]}')).toBe(true);
    expect(gave('{"datasets":[],"incidents":null}')).toBe(false);
    expect(gave('{"datasets":[]}')).toBe(false);
  });

  it('a record that is not JSON is reported once, with a short message', () => {
    const big = `{"datasets":[\n{"a":"${'x'.repeat(2_000_000)}", "b": tru}\n]}`;
    const read = split(big, [1 << 20]);
    expect(read).toBeInstanceOf(SnapshotError);
    expect((read as Error).message.length).toBeLessThan(200);
  });
});
