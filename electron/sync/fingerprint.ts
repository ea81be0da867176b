/**
 * A fingerprint of a record as the remote sent it, stored beside the dataset: a crawl writes only the
 * records whose fingerprint changed, so a steady-state crawl of a large org writes almost nothing.
 * It covers the record's own fields and its newest `FINGERPRINT_EVENTS` events — the window every
 * crawl after the first asks for — so a deep first crawl and a later shallow one of the same,
 * unchanged dataset agree (merging the shallow one would change nothing).
 */
import { createHash } from 'node:crypto';
import type { DatasetRecord } from '../../shared/schemas';

export const FINGERPRINT_EVENTS = 10;

export function fingerprint(record: DatasetRecord): string {
  const { deliveryEventList, ...fields } = record;
  const text = JSON.stringify([fields, deliveryEventList.slice(0, FINGERPRINT_EVENTS)]);
  return createHash('sha1').update(text).digest('base64url');
}

/** The delivery a FAILED status is about: the newest FAILED event (the record's latest attempt may be newer). */
export function failedDeliveryOf(record: DatasetRecord): string | null {
  if (record.latestDeliveryStatus !== 'FAILED') return null;
  return record.deliveryEventList.find((event) => event.status === 'FAILED')?.deliveryId ?? record.deliveryId;
}
