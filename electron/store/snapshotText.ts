/**
 * Reads a snapshot file's JSON (docs/architecture.md#snapshots) as it arrives, one record at a time: each element of the
 * top-level arrays (`datasets`, `acknowledgements`, `syncOutages`, `incidents`) and each member of the keyed objects
 * (`tasks`, `timeline`) is cut out of the bytes and parsed on its own.
 * `JSON.parse` of a whole 10k snapshot (~180 MB) builds a gigabyte of objects that live until the last
 * one is written, and collecting them costs more than parsing (docs/architecture.md#performance-budgets); a record
 * parsed alone is garbage as soon as it is written. Strictness is kept: every record goes through
 * `JSON.parse`, and the two levels around them are checked here, so text that is not JSON still fails.
 * A name given twice in the snapshot object or in `tasks` is refused (`JSON.parse` would silently keep
 * the last one).
 */
import { jsonKey, shortQuote } from './importRules';
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  NEWLINE,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  isSpace,
} from './jsonBytes';
import { jsonPath } from './normalize';

export class SnapshotError extends Error {}

/** One record of the file, parsed, in file order. */
export type SnapshotPart =
  | { kind: 'dataset'; index: number; value: unknown }
  | { kind: 'tasks'; deliveryId: string; value: unknown }
  | { kind: 'timeline'; datasetId: string; value: unknown }
  | { kind: 'acknowledgement'; index: number; value: unknown }
  | { kind: 'syncOutage'; index: number; value: unknown }
  | { kind: 'incident'; index: number; value: unknown };

/** The snapshot object's arrays of records, and what each element is called in messages. */
const LISTS = {
  datasets: { kind: 'dataset', item: 'a dataset record' },
  acknowledgements: { kind: 'acknowledgement', item: 'an acknowledgement' },
  syncOutages: { kind: 'syncOutage', item: 'a sync outage' },
  incidents: { kind: 'incident', item: 'an incident' },
} as const;
type ListName = keyof typeof LISTS;

/** The snapshot object's objects keyed by an id, and what their names and values are. */
const MAPS = {
  tasks: { key: 'deliveryId', value: 'tasks record' },
  timeline: { key: 'datasetId', value: 'timeline' },
} as const;
type MapName = keyof typeof MAPS;

/** Every member the snapshot object may have, in the order messages list them. */
export const SNAPSHOT_MEMBERS = [
  'datasets',
  'tasks',
  'timeline',
  'acknowledgements',
  'syncOutages',
  'incidents',
] as const;
type Member = (typeof SNAPSHOT_MEMBERS)[number];
const isList = (name: string): name is ListName => Object.hasOwn(LISTS, name);
const isMap = (name: string): name is MapName => Object.hasOwn(MAPS, name);

/**
 * Where the scan is. `top-*`: in the snapshot object; `list-*`: in one of its arrays (`datasets`…);
 * `map-*`: in one of its keyed objects (`tasks`, `timeline`); `whole`: the text is not an object, so it
 * is kept and `JSON.parse` says what it is.
 */
type State =
  | 'start'
  | 'whole'
  | 'top-name-or-end'
  | 'top-name'
  | 'top-colon'
  | 'top-value'
  | 'top-comma-or-end'
  | 'list-item-or-end'
  | 'list-item'
  | 'list-comma-or-end'
  | 'map-name-or-end'
  | 'map-name'
  | 'map-colon'
  | 'map-value'
  | 'map-comma-or-end'
  | 'end';

/** What the text being collected is: a member name, or a value (a member's, or a record of `section`). */
type Collecting = 'name' | 'top-value' | 'record' | null;

export class SnapshotSplitter {
  private state: State = 'start';
  private collecting: Collecting = null;
  /** Bytes of the name or value being collected, from earlier chunks. */
  private pending: Buffer[] = [];
  /** Where the text being collected starts in this chunk (-1: it started in an earlier one). */
  private from = -1;
  /** Nesting inside the value being collected. */
  private depth = 0;
  private inString = false;
  /** The string's next byte is escaped (a backslash ended the previous chunk). */
  private escaped = false;
  /** The file's bytes before the current chunk, and its line and the offset where that line starts. */
  private offset = 0;
  private line = 1;
  private lineStart = 0;
  /** Where the value being collected starts in the file, for messages. */
  private valueLine = 1;
  private valueColumn = 1;
  private name = '';
  private readonly names = new Set<string>();
  /** The members given as an array or keyed object (not null), empty ones too. */
  private readonly opened = new Set<Member>();
  /** The array or keyed object being read. */
  private section: Member = 'datasets';
  /** The keys read in each keyed object. */
  private readonly keys: Record<MapName, Set<string>> = { tasks: new Set(), timeline: new Set() };
  /** The records read in each array. */
  private readonly counts: Record<ListName, number> = {
    datasets: 0,
    acknowledgements: 0,
    syncOutages: 0,
    incidents: 0,
  };
  private sawDatasets = false;
  private datasetsEnded = false;
  private whole: Buffer[] = [];

  constructor(private readonly emit: (part: SnapshotPart) => void) {}

  /** The whole `datasets` array has been read (every dataset record is emitted). */
  get datasetsRead(): boolean {
    return this.datasetsEnded;
  }

  /** The file gives `member` (an array or keyed object, maybe empty; not absent, not null). */
  gave(member: Member): boolean {
    return this.opened.has(member);
  }

  /** Scans the next bytes of the file, emitting every record they complete (`chunk` is not kept). */
  push(chunk: Buffer): void {
    const length = chunk.length;
    let i = 0;
    while (i < length) {
      if (this.collecting !== null) {
        i = this.collect(chunk, i);
        continue;
      }
      const c = chunk[i]!;
      if (isSpace(c) && this.state !== 'whole') {
        if (c === NEWLINE) this.newline(i);
        i++;
        continue;
      }
      switch (this.state) {
        case 'start':
          if (c === OPEN_BRACE) this.state = 'top-name-or-end';
          else {
            this.state = 'whole';
            continue;
          }
          break;
        case 'whole':
          // A copy: the reader may reuse its buffer for the next chunk.
          this.whole.push(Buffer.from(chunk.subarray(i)));
          i = length;
          continue;
        case 'top-name-or-end':
        case 'top-name':
          if (c === QUOTE) this.begin('name', chunk, i);
          else if (c === CLOSE_BRACE && this.state === 'top-name-or-end') this.state = 'end';
          else this.unexpected(chunk, i, 'a member name');
          break;
        case 'top-colon':
        case 'map-colon':
          if (c !== COLON) this.unexpected(chunk, i, "':' after the member name");
          this.state = this.state === 'top-colon' ? 'top-value' : 'map-value';
          break;
        case 'top-value':
          // Arrays and keyed objects are read record by record; anything else is parsed whole, and refused
          // or accepted (`"tasks": null`) once it is.
          if (isList(this.name) && c === OPEN_BRACKET) {
            if (this.name === 'datasets') this.sawDatasets = true;
            this.section = this.name;
            this.opened.add(this.name);
            this.state = 'list-item-or-end';
          } else if (isMap(this.name) && c === OPEN_BRACE) {
            this.section = this.name;
            this.opened.add(this.name);
            this.state = 'map-name-or-end';
          } else {
            this.begin('top-value', chunk, i);
            continue;
          }
          break;
        case 'top-comma-or-end':
          if (c === COMMA) this.state = 'top-name';
          else if (c === CLOSE_BRACE) this.state = 'end';
          else this.unexpected(chunk, i, "',' or '}' after a member");
          break;
        case 'list-item-or-end':
        case 'list-item':
          if (c === CLOSE_BRACKET && this.state === 'list-item-or-end') this.endList();
          else if (c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE || c === COLON)
            this.unexpected(chunk, i, `${this.item()} at ${this.recordPath()}`);
          else {
            i = this.quick(chunk, i);
            continue;
          }
          break;
        case 'list-comma-or-end':
          if (c === COMMA) this.state = 'list-item';
          else if (c === CLOSE_BRACKET) this.endList();
          else this.unexpected(chunk, i, `',' or ']' after ${this.item()}`);
          break;
        case 'map-name-or-end':
        case 'map-name':
          if (c === QUOTE) this.begin('name', chunk, i);
          else if (c === CLOSE_BRACE && this.state === 'map-name-or-end') this.state = 'top-comma-or-end';
          else {
            const { key, value } = MAPS[this.section as MapName];
            this.unexpected(chunk, i, `a ${key} naming a ${value}`);
          }
          break;
        case 'map-value':
          if (c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE || c === COLON)
            this.unexpected(chunk, i, `the ${MAPS[this.section as MapName].value} of ${jsonKey(this.name)}`);
          i = this.quick(chunk, i);
          continue;
        case 'map-comma-or-end':
          if (c === COMMA) this.state = 'map-name';
          else if (c === CLOSE_BRACE) this.state = 'top-comma-or-end';
          else this.unexpected(chunk, i, `',' or '}' after a ${MAPS[this.section as MapName].value}`);
          break;
        case 'end':
          this.unexpected(chunk, i, 'nothing after the end of the snapshot object');
      }
      i++;
    }
    this.keepPending(chunk);
    this.offset += length;
  }

  /** The file has ended: it must have ended where the snapshot object does. */
  end(): void {
    if (this.state === 'whole' || this.state === 'start') {
      const text = Buffer.concat(this.whole).toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new SnapshotError(`not valid JSON: ${oneLine((error as Error).message)}`);
      }
      throw new SnapshotError(
        `$: expected an object with "datasets" (and optionally "tasks"), got ${describe(value)}`,
      );
    }
    if (this.state !== 'end') {
      throw new SnapshotError(
        `not valid JSON: the file ends before the snapshot does (${this.inside()}, line ${this.line})`,
      );
    }
    if (!this.sawDatasets) throw new SnapshotError('$.datasets: expected an array of dataset records');
  }

  /**
   * A record alone on its line, as `export` writes them, is parsed without a look at each of its bytes
   * (the scan's work, a fifth of the reading of a file). The line (up to a comma ending it) is the record
   * only if `JSON.parse` takes it as one value: then the scan would have ended it at the same place, as
   * a value never holds a raw newline, nor a comma outside its own brackets and strings. Otherwise (a
   * record over several lines or chunks, or not JSON) it is scanned. Returns where reading goes on.
   */
  private quick(chunk: Buffer, start: number): number {
    const value = this.lineValue(chunk, start);
    if (value === null) {
      this.begin('record', chunk, start);
      return start;
    }
    this.emitValue(value.parsed);
    const list = this.state.startsWith('list');
    if (value.comma) {
      this.state = list ? 'list-item' : 'map-name';
      return value.end + 1;
    }
    this.state = list ? 'list-comma-or-end' : 'map-comma-or-end';
    return value.end;
  }

  /** The value that is the rest of the line from `start`, and where it ends (at its comma, if any). */
  private lineValue(chunk: Buffer, start: number): { parsed: unknown; end: number; comma: boolean } | null {
    const newline = chunk.indexOf(NEWLINE, start);
    if (newline < 0) return null;
    let end = newline;
    while (end > start && isSpace(chunk[end - 1]!)) end--;
    const comma = chunk[end - 1] === COMMA;
    const last = comma ? end - 2 : end - 1;
    // Only a line that ends as it began (`{…}`) may be one whole record: no parse is wasted on `{` alone.
    const open = chunk[start];
    const close = chunk[last];
    if (!(
      (open === OPEN_BRACE && close === CLOSE_BRACE) ||
      (open === OPEN_BRACKET && close === CLOSE_BRACKET)
    ))
      return null;
    try {
      return {
        parsed: JSON.parse(chunk.toString('utf8', start, last + 1)),
        end: comma ? end - 1 : end,
        comma,
      };
    } catch {
      // Scanned instead, and parsed again where the scan ends it: its message is placed there.
      return null;
    }
  }

  private begin(what: Exclude<Collecting, null>, chunk: Buffer, i: number): void {
    this.collecting = what;
    this.from = i;
    this.depth = 0;
    this.valueLine = this.line;
    this.valueColumn = this.offset + i - this.lineStart + 1;
    // A name's opening quote is part of its JSON text; the scan resumes after it (the caller moves on).
    this.inString = what === 'name';
    this.escaped = false;
  }

  /**
   * Scans the name or value being collected from `start`; returns where scanning goes on. A value ends
   * at a `,` or a closing bracket outside any string or nesting of its own; a name at its closing quote.
   * A plain loop over the bytes (strings are most of them): faster than `indexOf` per string.
   */
  private collect(chunk: Buffer, start: number): number {
    const length = chunk.length;
    // Locals in the loop, written back when it stops: it sees every byte of the file.
    let i = start;
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    let end = -1;
    while (i < length) {
      if (inString) {
        if (escaped) {
          escaped = false;
          i++;
        }
        for (; i < length; i++) {
          const c = chunk[i]!;
          if (c === QUOTE) break;
          if (c === BACKSLASH && ++i === length) escaped = true;
        }
        // The string goes on in the next chunk.
        if (i >= length) break;
        inString = false;
        i++;
        if (this.collecting === 'name') {
          end = i;
          break;
        }
        continue;
      }
      const c = chunk[i]!;
      if (c === QUOTE) inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
      else if (c === CLOSE_BRACE || c === CLOSE_BRACKET || c === COMMA) {
        if (depth === 0) {
          end = i;
          break;
        }
        if (c !== COMMA) depth--;
      } else if (c === NEWLINE) this.newline(i);
      i++;
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    if (end < 0) return length;
    const what = this.collecting!;
    if (what === 'name') {
      this.finishName(this.take(chunk, end));
      return end;
    }
    this.depth = 0;
    this.finishValue(what, this.take(chunk, end), chunk[end]!, chunk, end);
    return end + 1;
  }

  /** The collected text up to `end` of this chunk, and the collection reset. */
  private take(chunk: Buffer, end: number): string {
    const from = this.from < 0 ? 0 : this.from;
    const text =
      this.pending.length === 0
        ? chunk.toString('utf8', from, end)
        : Buffer.concat([...this.pending, chunk.subarray(from, end)]).toString('utf8');
    this.pending = [];
    this.from = -1;
    this.collecting = null;
    return text;
  }

  /** Keeps the part of the chunk that belongs to a name or value still being collected. */
  private keepPending(chunk: Buffer): void {
    if (this.collecting === null) return;
    // A copy: the reader may reuse its buffer for the next chunk.
    this.pending.push(Buffer.from(chunk.subarray(this.from < 0 ? 0 : this.from)));
    this.from = -1;
  }

  private finishName(text: string): void {
    const name = this.parse(text) as string;
    const inMap = this.state === 'map-name-or-end' || this.state === 'map-name';
    if (inMap) {
      const map = this.section as MapName;
      if (this.keys[map].has(name)) {
        const { key, value } = MAPS[map];
        throw new SnapshotError(`$.${map}[${jsonKey(name)}]: given twice (a ${key} names one ${value})`);
      }
      this.keys[map].add(name);
      this.name = name;
      this.state = 'map-colon';
      return;
    }
    if (!(SNAPSHOT_MEMBERS as readonly string[]).includes(name)) {
      throw new SnapshotError(
        `${jsonPath('$', name)}: unknown field ${shortQuote(name)} (allowed: ${SNAPSHOT_MEMBERS.join(', ')})`,
      );
    }
    if (this.names.has(name)) throw new SnapshotError(`$.${name}: given twice in the snapshot object`);
    this.names.add(name);
    this.name = name;
    this.state = 'top-colon';
  }

  private finishValue(collected: Collecting, text: string, end: number, chunk: Buffer, at: number): void {
    if (collected === 'top-value') {
      const value = this.parse(text);
      // Only the datasets must be there; any other member may be null (none).
      if (this.name === 'datasets' || value !== null) throw new SnapshotError(memberShape(this.name));
      if (end === CLOSE_BRACE) this.state = 'end';
      else if (end === COMMA) this.state = 'top-name';
      else this.unexpected(chunk, at, "',' or '}' after a member");
      return;
    }
    this.emitValue(this.parse(text, this.recordPath()));
    if (this.state.startsWith('list')) {
      if (end === COMMA) this.state = 'list-item';
      else if (end === CLOSE_BRACKET) this.endList();
      else this.unexpected(chunk, at, `',' or ']' after ${this.item()}`);
      return;
    }
    if (end === COMMA) this.state = 'map-name';
    else if (end === CLOSE_BRACE) this.state = 'top-comma-or-end';
    else this.unexpected(chunk, at, `',' or '}' after a ${MAPS[this.section as MapName].value}`);
  }

  private emitValue(value: unknown): void {
    const section = this.section;
    if (isList(section)) {
      this.emit({ kind: LISTS[section].kind, index: this.counts[section]++, value });
      return;
    }
    if (section === 'tasks') this.emit({ kind: 'tasks', deliveryId: this.name, value });
    else this.emit({ kind: 'timeline', datasetId: this.name, value });
  }

  private endList(): void {
    if (this.section === 'datasets') this.datasetsEnded = true;
    this.state = 'top-comma-or-end';
  }

  /** What an element of the array being read is called. */
  private item(): string {
    return LISTS[this.section as ListName].item;
  }

  /** The JSON path of the record being read. */
  private recordPath(): string {
    const section = this.section;
    return isList(section) ? `$.${section}[${this.counts[section]}]` : `$.${section}[${jsonKey(this.name)}]`;
  }

  /** `JSON.parse` of one piece, its complaint placed in the file (line and column, not the piece's). */
  private parse(text: string, path?: string): unknown {
    try {
      return JSON.parse(text);
    } catch (error) {
      const message = (error as Error).message;
      const at = /^(.*?)(?: in JSON)? at position (\d+)(?: \(line \d+ column \d+\))?$/s.exec(message);
      let where = `line ${this.valueLine}`;
      let problem = message;
      if (at) {
        const position = Number(at[2]);
        const before = text.slice(0, position);
        const lines = before.split('\n');
        const line = this.valueLine + lines.length - 1;
        const column = lines.length === 1 ? this.valueColumn + position : lines.at(-1)!.length + 1;
        where = `line ${line}, column ${column}`;
        problem = at[1]!;
      }
      throw new SnapshotError(`not valid JSON${path ? ` in ${path}` : ''} (${where}): ${oneLine(problem)}`);
    }
  }

  private unexpected(chunk: Buffer, i: number, expected: string): never {
    const column = this.offset + i - this.lineStart + 1;
    const found = chunk.toString('utf8', i, Math.min(i + 16, chunk.length)).split('\n')[0];
    throw new SnapshotError(
      `not valid JSON (line ${this.line}, column ${column}): expected ${expected}, found ${shortQuote(found ?? '', 12)}`,
    );
  }

  private newline(i: number): void {
    this.line++;
    this.lineStart = this.offset + i + 1;
  }

  /** Where an unfinished file stopped, as a JSON path. */
  private inside(): string {
    if (this.collecting === 'record') return `inside ${this.recordPath()}`;
    if (this.state.startsWith('list')) {
      const n = this.counts[this.section as ListName];
      return `inside $.${this.section}, after ${n} record${n === 1 ? '' : 's'}`;
    }
    if (this.state.startsWith('map')) return `inside $.${this.section}`;
    return 'inside the snapshot object';
  }
}

/** The message for a member that is not the array or keyed object it must be. */
function memberShape(name: string): string {
  if (isMap(name)) return `$.${name}: expected an object keyed by ${MAPS[name].key}`;
  const plural = {
    datasets: 'dataset records',
    acknowledgements: 'acknowledgements',
    syncOutages: 'sync outages',
    incidents: 'incidents',
  };
  return `$.${name}: expected an array of ${plural[name as ListName]}`;
}

/** `JSON.parse` quotes a bit of the text in its messages: a refusal stays on one line. */
const oneLine = (message: string): string =>
  // eslint-disable-next-line no-control-regex
  message.replace(/[\u0000-\u001f]/g, (c) => JSON.stringify(c).slice(1, -1));

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
