/**
 * The knowledge parts of a snapshot file (timeline, acknowledgements, sync outages, incidents): where
 * each sits in the file, and the reader that checks each as it is read and writes it once the file's
 * datasets are all read.
 */
import { jsonKey } from './importRules';
import {
  normalizeAcknowledgement,
  normalizeIncident,
  normalizeSyncOutage,
  normalizeTimeline,
} from './knowledgeRecords';
import type { KnowledgeWriter } from './knowledgeWriter';
import type { SnapshotPart } from './snapshotText';

type KnowledgePart = Extract<
  SnapshotPart,
  { kind: 'timeline' | 'acknowledgement' | 'syncOutage' | 'incident' }
>;

export const timelinePath = (datasetId: string): string => `$.timeline[${jsonKey(datasetId)}]`;
export const acknowledgementPath = (index: number): string => `$.acknowledgements[${index}]`;
export const syncOutagePath = (index: number): string => `$.syncOutages[${index}]`;
export const incidentPath = (index: number): string => `$.incidents[${index}]`;

/**
 * The knowledge parts of a file: each checked as it is read (its problems come in file order with the
 * records'), written once the file's datasets are all read and checked, as what they say is checked
 * against them: a file that gives them first (export writes them last) has them held until the next
 * part after the datasets, or the end; one read after the datasets waits for their checks only.
 */
export class KnowledgeReader {
  private readonly waiting: (() => void)[] = [];
  /** A part read after the datasets waits: what waits is due as soon as they are checked. */
  private due = false;

  constructor(private readonly writer: KnowledgeWriter) {}

  /** `read`: the file's datasets are all read; `checked`: and checked (SnapshotWriter.datasetsDone). */
  take(part: KnowledgePart, read: boolean, checked: boolean): void {
    const write = this.check(part);
    if (!checked) {
      this.waiting.push(write);
      this.due ||= read;
      return;
    }
    this.flush();
    write();
  }

  /** Writes what waits if a part read after the datasets does (it would have been written at once). */
  flushDue(): void {
    if (this.due) this.flush();
  }

  /** Writes what waits (call once the datasets are checked). */
  flush(): void {
    this.due = false;
    for (const write of this.waiting.splice(0)) write();
  }

  private check(part: KnowledgePart): () => void {
    const writer = this.writer;
    if (part.kind === 'timeline') {
      const path = timelinePath(part.datasetId);
      const entries = normalizeTimeline(part.value, path);
      return () => writer.timeline(part.datasetId, entries, path);
    }
    if (part.kind === 'acknowledgement') {
      const path = acknowledgementPath(part.index);
      const ack = normalizeAcknowledgement(part.value, path);
      return () => writer.acknowledgement(ack, path);
    }
    if (part.kind === 'syncOutage') {
      const path = syncOutagePath(part.index);
      const outage = normalizeSyncOutage(part.value, path);
      return () => writer.syncOutage(outage, path);
    }
    const path = incidentPath(part.index);
    const incident = normalizeIncident(part.value, path);
    return () => writer.incident(incident, path);
  }
}
