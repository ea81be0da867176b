/**
 * A well-formed snapshot of any size, generated as it is read and never held whole (the memory tests
 * of import: test/integration/store/importMemory.test.ts): `datasets` records of `events` deliveries
 * each, a record per line as export writes them, then the tasks of every `tasksEvery`-th delivery,
 * whose messages carry most of the bytes when `messageLength` is large (they cost the import little:
 * packed on a worker, stored deflated).
 */
export interface SnapshotShape {
  datasets: number;
  events: number;
  /** 0: no tasks. */
  tasksEvery: number;
  messageLength: number;
}

const STATUSES = ['HEALTHY', 'HEALTHY', 'HEALTHY', 'DELIVERED_LATE', 'FAILED', 'MISSING'];
const DAY_MS = 86_400_000;
const LATEST = Date.UTC(2026, 10, 20, 6, 0);

const datasetId = (i: number): string => `ds-${String(i).padStart(7, '0')}`;
const deliveryId = (i: number, j: number): string => `${datasetId(i)}-d${j}`;

function datasetLine(i: number, events: number): string {
  const list = Array.from(
    { length: events },
    (_, j) =>
      `{"deliveryId":"${deliveryId(i, j)}","status":"${STATUSES[(i + j) % STATUSES.length]}","deliveryDeadline":"${new Date(LATEST - j * DAY_MS).toISOString()}"}`,
  );
  const latest = events > 0 ? `"${deliveryId(i, 0)}"` : 'null';
  return `{"datasetId":"${datasetId(i)}","datasetName":"Dataset ${i}","supplier":{"id":"SUP-${i % 50}","name":"Supplier ${i % 50}"},"deliveryId":${latest},"deliveryEventList":[${list.join(',')}],"latestDeliveryStatus":"${STATUSES[i % STATUSES.length]}"}`;
}

function tasksLine(i: number, j: number, messageLength: number): string {
  const id = deliveryId(i, j);
  const words = `step ${i}.${j} wrote rows `;
  const message = words.repeat(Math.ceil(messageLength / words.length)).slice(0, messageLength);
  const task = (taskId: string, stage: string): string =>
    `{"taskId":"${taskId}","taskName":"${stage} step","deliveryId":"${id}","status":"SUCCEEDED","message":"${message}","details":{"deliveryId":"${id}","runId":"run-${i}"}}`;
  const stage = (name: string): string =>
    `"${name}":{"status":"SUCCEEDED","timestamp":"2026-11-20T05:10:00.000Z","tasks":[${task(`${name}-1`, name)}]}`;
  return `"${id}":{${stage('ingest')},${stage('normalize')}}`;
}

/** The snapshot's text, line by line, as it is generated. */
function* lines(shape: SnapshotShape): Generator<string> {
  yield '{"datasets":[';
  for (let i = 0; i < shape.datasets; i++)
    yield `\n${datasetLine(i, shape.events)}${i + 1 < shape.datasets ? ',' : ''}`;
  yield '\n],"tasks":{';
  let first = true;
  if (shape.tasksEvery > 0)
    for (let i = 0; i < shape.datasets; i++)
      for (let j = 0; j < shape.events; j++) {
        if ((i * shape.events + j) % shape.tasksEvery !== 0) continue;
        yield `${first ? '' : ','}\n${tasksLine(i, j, shape.messageLength)}`;
        first = false;
      }
  yield '\n}}\n';
}

/** The snapshot's bytes, about `chunkBytes` at a time (each chunk is a new Buffer). */
export async function* snapshotChunks(shape: SnapshotShape, chunkBytes = 1 << 20): AsyncGenerator<Buffer> {
  let pending: string[] = [];
  let length = 0;
  for (const line of lines(shape)) {
    pending.push(line);
    length += line.length;
    if (length < chunkBytes) continue;
    yield Buffer.from(pending.join(''), 'utf8');
    pending = [];
    length = 0;
  }
  if (pending.length > 0) yield Buffer.from(pending.join(''), 'utf8');
}
