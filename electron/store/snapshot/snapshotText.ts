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
import { type Collecting, JsonCollector, PASSED, lineValue } from './jsonCollector';
import {
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
import { jsonPath } from './recordFields';
import { SnapshotError } from './snapshotError';
import { KeySets, type SnapshotKeys } from './snapshotKeys';
import { SNAPSHOT_LIMITS, type SnapshotLimits } from './snapshotLimits';
import {
  LISTS,
  type ListName,
  MAPS,
  type MapName,
  type Member,
  SNAPSHOT_MEMBERS,
  isList,
  isMap,
  memberShape,
} from './snapshotMembers';
import { nameTooLong, notAnObject, pastLimit } from './snapshotRefusals';

export { SnapshotError };

/** One record of the file, parsed, in file order. */
export type SnapshotPart =
  | { kind: 'dataset'; index: number; value: unknown }
  | { kind: 'tasks'; deliveryId: string; value: unknown }
  | { kind: 'timeline'; datasetId: string; value: unknown }
  | { kind: 'acknowledgement'; index: number; value: unknown }
  | { kind: 'syncOutage'; index: number; value: unknown }
  | { kind: 'incident'; index: number; value: unknown };

/**
 * Where the scan is. `top-*`: in the snapshot object; `list-*`: in one of its arrays (`datasets`…);
 * `map-*`: in one of its keyed objects (`tasks`, `timeline`); `whole`: the text is not an object, so a
 * few KiB of it are kept for `JSON.parse` to say what it is (more is refused at once).
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

export class SnapshotSplitter {
  private state: State = 'start';
  private readonly limits: SnapshotLimits;
  /** The name or value being cut out of the bytes, and the place in the file. */
  private readonly text: JsonCollector;
  private name = '';
  private readonly names = new Set<string>();
  /** The members given as an array or keyed object (not null), empty ones too. */
  private readonly opened = new Set<Member>();
  /** The array or keyed object being read. */
  private section: Member = 'datasets';
  /** The records read in each array. */
  private readonly counts: Record<ListName, number> = {
    datasets: 0,
    acknowledgements: 0,
    syncOutages: 0,
    incidents: 0,
  };
  private sawDatasets = false;
  private datasetsEnded = false;
  /** The start of a file that is not an object (at most `limits.notObjectBytes`). */
  private whole: Buffer[] = [];
  private wholeBytes = 0;
  private emitted = 0;

  constructor(
    private readonly emit: (part: SnapshotPart) => void,
    /** The keys read in each keyed object. */
    private readonly keys: SnapshotKeys = new KeySets(),
    limits: Partial<SnapshotLimits> = {},
  ) {
    this.limits = { ...SNAPSHOT_LIMITS, ...limits };
    this.text = new JsonCollector(this.limits);
  }

  /** The records emitted so far (for progress). */
  get records(): number {
    return this.emitted;
  }

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
      if (this.text.collecting !== null) {
        i = this.collect(chunk, i);
        continue;
      }
      const c = chunk[i]!;
      if (isSpace(c) && this.state !== 'whole') {
        if (c === NEWLINE) this.text.newline(i);
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
          this.keepWhole(chunk.subarray(i));
          i = length;
          continue;
        case 'top-name-or-end':
        case 'top-name':
          if (c === QUOTE) this.text.begin('name', i);
          else if (c === CLOSE_BRACE && this.state === 'top-name-or-end') this.state = 'end';
          else this.text.unexpected(chunk, i, 'a member name');
          break;
        case 'top-colon':
        case 'map-colon':
          if (c !== COLON) this.text.unexpected(chunk, i, "':' after the member name");
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
            this.text.begin('top-value', i);
            continue;
          }
          break;
        case 'top-comma-or-end':
          if (c === COMMA) this.state = 'top-name';
          else if (c === CLOSE_BRACE) this.state = 'end';
          else this.text.unexpected(chunk, i, "',' or '}' after a member");
          break;
        case 'list-item-or-end':
        case 'list-item':
          if (c === CLOSE_BRACKET && this.state === 'list-item-or-end') this.endList();
          else if (c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE || c === COLON)
            this.text.unexpected(chunk, i, `${this.item()} at ${this.recordPath()}`);
          else {
            i = this.quick(chunk, i);
            continue;
          }
          break;
        case 'list-comma-or-end':
          if (c === COMMA) this.state = 'list-item';
          else if (c === CLOSE_BRACKET) this.endList();
          else this.text.unexpected(chunk, i, `',' or ']' after ${this.item()}`);
          break;
        case 'map-name-or-end':
        case 'map-name':
          if (c === QUOTE) this.text.begin('name', i);
          else if (c === CLOSE_BRACE && this.state === 'map-name-or-end') this.state = 'top-comma-or-end';
          else {
            const { key, value } = MAPS[this.section as MapName];
            this.text.unexpected(chunk, i, `a ${key} naming a ${value}`);
          }
          break;
        case 'map-value':
          if (c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE || c === COLON)
            this.text.unexpected(
              chunk,
              i,
              `the ${MAPS[this.section as MapName].value} of ${jsonKey(this.name)}`,
            );
          i = this.quick(chunk, i);
          continue;
        case 'map-comma-or-end':
          if (c === COMMA) this.state = 'map-name';
          else if (c === CLOSE_BRACE) this.state = 'top-comma-or-end';
          else this.text.unexpected(chunk, i, `',' or '}' after a ${MAPS[this.section as MapName].value}`);
          break;
        case 'end':
          this.text.unexpected(chunk, i, 'nothing after the end of the snapshot object');
      }
      i++;
    }
    this.text.endChunk(chunk);
  }

  /** The file has ended: it must have ended where the snapshot object does. */
  end(): void {
    if (this.state === 'whole' || this.state === 'start')
      throw new SnapshotError(notAnObject(Buffer.concat(this.whole), true));
    if (this.state !== 'end') {
      throw new SnapshotError(
        `not valid JSON: the file ends before the snapshot does (${this.inside()}, line ${this.text.line})`,
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
    const value = lineValue(chunk, start, this.limits.recordBytes);
    if (value === null) {
      this.text.begin('record', start);
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

  /** Collects the name or value begun from `start`; returns where reading goes on. */
  private collect(chunk: Buffer, start: number): number {
    const end = this.text.scan(chunk, start);
    if (end === PASSED) this.refusePassed(chunk);
    if (end < 0) return chunk.length;
    const what = this.text.collecting!;
    if (what === 'name') {
      this.finishName(this.text.take(chunk, end));
      return end;
    }
    this.finishValue(what, this.text.take(chunk, end), chunk[end]!, chunk, end);
    // Ended by whitespace: what follows it is read as the state now says.
    return isSpace(chunk[end]!) ? end : end + 1;
  }

  private finishName(text: string): void {
    const name = this.text.parse(text) as string;
    const inMap = this.state === 'map-name-or-end' || this.state === 'map-name';
    if (inMap) {
      const map = this.section as MapName;
      if (!this.keys.note(map, name)) {
        const { key, value } = MAPS[map];
        throw new SnapshotError(`$.${map}[${jsonKey(name)}]: given twice (a ${key} names one ${value})`);
      }
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

  private finishValue(
    collected: Exclude<Collecting, null>,
    text: string,
    end: number,
    chunk: Buffer,
    at: number,
  ): void {
    if (collected === 'top-value') {
      const value = this.text.parse(text);
      // Only the datasets must be there; any other member may be null (none).
      if (this.name === 'datasets' || value !== null) throw new SnapshotError(memberShape(this.name));
      if (isSpace(end)) this.state = 'top-comma-or-end';
      else if (end === CLOSE_BRACE) this.state = 'end';
      else if (end === COMMA) this.state = 'top-name';
      else this.text.unexpected(chunk, at, "',' or '}' after a member");
      return;
    }
    this.emitValue(this.text.parse(text, this.recordPath()));
    if (this.state.startsWith('list')) {
      if (isSpace(end)) this.state = 'list-comma-or-end';
      else if (end === COMMA) this.state = 'list-item';
      else if (end === CLOSE_BRACKET) this.endList();
      else this.text.unexpected(chunk, at, `',' or ']' after ${this.item()}`);
      return;
    }
    if (isSpace(end)) this.state = 'map-comma-or-end';
    else if (end === COMMA) this.state = 'map-name';
    else if (end === CLOSE_BRACE) this.state = 'top-comma-or-end';
    else this.text.unexpected(chunk, at, `',' or '}' after a ${MAPS[this.section as MapName].value}`);
  }

  private emitValue(value: unknown): void {
    this.emitted++;
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

  /** Keeps the start of a file that is not an object, and refuses it once that start is all it keeps. */
  private keepWhole(bytes: Buffer): void {
    const room = this.limits.notObjectBytes - this.wholeBytes;
    // A copy: the reader may reuse its buffer for the next chunk.
    const kept = Buffer.from(bytes.subarray(0, room));
    this.whole.push(kept);
    this.wholeBytes += kept.length;
    if (bytes.length > room) throw new SnapshotError(notAnObject(Buffer.concat(this.whole), false));
  }

  /** The name or value being collected passed a limit (snapshotLimits.ts): refused at that byte. */
  private refusePassed(chunk: Buffer): never {
    const what = this.text.collecting;
    if (what === 'name') {
      const inMap = this.state === 'map-name-or-end' || this.state === 'map-name';
      const map = inMap ? { name: this.section, key: MAPS[this.section as MapName].key } : null;
      throw new SnapshotError(nameTooLong(this.text.nameSoFar(chunk), map, SNAPSHOT_MEMBERS, this.limits));
    }
    const [path, of] =
      what === 'record' ? [this.recordPath(), 'one record'] : [jsonPath('$', this.name), 'one value'];
    throw new SnapshotError(pastLimit(this.text.passed!, path, of, this.limits));
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

  /** Where an unfinished file stopped, as a JSON path. */
  private inside(): string {
    if (this.text.collecting === 'record') return `inside ${this.recordPath()}`;
    if (this.state.startsWith('list')) {
      const n = this.counts[this.section as ListName];
      return `inside $.${this.section}, after ${n} record${n === 1 ? '' : 's'}`;
    }
    if (this.state.startsWith('map')) return `inside $.${this.section}`;
    return 'inside the snapshot object';
  }
}
