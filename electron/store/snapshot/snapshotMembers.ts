/**
 * The snapshot object's members (docs/architecture.md#snapshots): its arrays of records, its objects
 * keyed by an id, and what each is called in messages.
 */
/** The snapshot object's arrays of records, and what each element is called in messages. */
export const LISTS = {
  datasets: { kind: 'dataset', item: 'a dataset record' },
  acknowledgements: { kind: 'acknowledgement', item: 'an acknowledgement' },
  syncOutages: { kind: 'syncOutage', item: 'a sync outage' },
  incidents: { kind: 'incident', item: 'an incident' },
} as const;
export type ListName = keyof typeof LISTS;

/** The snapshot object's objects keyed by an id, and what their names and values are. */
export const MAPS = {
  tasks: { key: 'deliveryId', value: 'tasks record' },
  timeline: { key: 'datasetId', value: 'timeline' },
} as const;
export type MapName = keyof typeof MAPS;

/** Every member the snapshot object may have, in the order messages list them. */
export const SNAPSHOT_MEMBERS = [
  'datasets',
  'tasks',
  'timeline',
  'acknowledgements',
  'syncOutages',
  'incidents',
] as const;
export type Member = (typeof SNAPSHOT_MEMBERS)[number];
export const isList = (name: string): name is ListName => Object.hasOwn(LISTS, name);
export const isMap = (name: string): name is MapName => Object.hasOwn(MAPS, name);

/** The message for a member that is not the array or keyed object it must be. */
export function memberShape(name: string): string {
  if (isMap(name)) return `$.${name}: expected an object keyed by ${MAPS[name].key}`;
  const plural = {
    datasets: 'dataset records',
    acknowledgements: 'acknowledgements',
    syncOutages: 'sync outages',
    incidents: 'incidents',
  };
  return `$.${name}: expected an array of ${plural[name as ListName]}`;
}
