/**
 * Supplier-wide outages: a supplier's credentials expire, its server stops answering, or it publishes
 * nothing, and every dataset it feeds is hit at once. During an outage window every attempt of that
 * supplier's datasets whose ingestion is due in the window fails at the fetch step with the outage's
 * shortCode, or (an outage without a code) never starts and turns MISSING. That is what on-call life
 * looks like and what causes (docs/architecture.md#incidents) are for: one problem, many red datasets.
 *
 * Outages come from the org's seed, one per 36-hour slot at a random time, for a random supplier,
 * lasting 2 to 6 hours (about five a week across the org). Whether an attempt is hit depends only on
 * the plan and the deadline, so a live simulator re-deriving it later agrees. A simulator may also be
 * given outages of its own (the built-in demo stages one in its first minutes).
 */
import { SUPPLIERS } from './catalog';
import { unitHash } from './random';

/** The ingest failures a supplier causes: its fetch step (always the pipeline's first) fails with one. */
export const OUTAGE_CODES = ['E_AUTH_FAILED', 'E_SOURCE_TIMEOUT', 'E_FILE_NOT_FOUND'] as const;
export type OutageCode = (typeof OUTAGE_CODES)[number];

export interface SupplierOutage {
  supplierId: string;
  /** The window (epoch ms, end exclusive) in which an attempt's ingestion is due. */
  start: number;
  end: number;
  /** The fetch step's failure; null: the supplier publishes nothing and the deliveries are MISSING. */
  shortCode: OutageCode | null;
}

/** What a dataset plan carries to find its supplier's outages. */
export interface OutageSource {
  /** The org's key (seed and org id): outages are per org. */
  orgKey: number;
  /** Index of the dataset's supplier in SUPPLIERS. */
  supplierIndex: number;
  /** Share of seeded outages that fail (the rest are missing data). */
  failShare: number;
  /** Outages given to this org for this supplier, beside the seeded ones. */
  extra: readonly SupplierOutage[];
}

const HOUR = 3_600_000;
export const OUTAGE_SLOT_MS = 36 * HOUR;
const MIN_OUTAGE_MS = 2 * HOUR;
const MAX_OUTAGE_MS = 6 * HOUR;
/**
 * Arbitrary like every salt here; this one puts the instant the UI tests and the benchmark generate at
 * (2026-11-21T04:41Z: seed 11 org acme, seed 1 org bench) inside an outage, so their Triage shows one.
 */
const OUTAGE_SALT = 1751;
/** Of failing outages: expired credentials, an unresponsive server, a file never published. */
const CODE_WEIGHTS: readonly (readonly [OutageCode, number])[] = [
  ['E_AUTH_FAILED', 0.45],
  ['E_SOURCE_TIMEOUT', 0.35],
  ['E_FILE_NOT_FOUND', 0.2],
];
/** Of seeded outages at the default fail rate, the share that fail (scaled down with the fail rate). */
const FAIL_SHARE = 0.8;

/** `failShare` for an org's fail rate: no failures at all at 0, FAIL_SHARE at the default and above. */
export function outageFailShare(failRate: number, defaultFailRate: number): number {
  return defaultFailRate <= 0 ? 0 : Math.min(FAIL_SHARE, (FAIL_SHARE * failRate) / defaultFailRate);
}

/** The seeded outage of one slot of an org, whichever supplier it hits. */
export function seededOutage(orgKey: number, slot: number, failShare: number): SupplierOutage {
  const supplier = SUPPLIERS[Math.floor(unitHash(orgKey, slot, OUTAGE_SALT, 0) * SUPPLIERS.length)]!;
  return outageOfSlot(orgKey, slot, failShare, supplier.id);
}

function outageOfSlot(orgKey: number, slot: number, failShare: number, supplierId: string): SupplierOutage {
  const length = MIN_OUTAGE_MS + unitHash(orgKey, slot, OUTAGE_SALT, 1) * (MAX_OUTAGE_MS - MIN_OUTAGE_MS);
  // Within its slot, so an instant is covered by at most its own slot's outage.
  const start = Math.round(
    slot * OUTAGE_SLOT_MS + unitHash(orgKey, slot, OUTAGE_SALT, 2) * (OUTAGE_SLOT_MS - length),
  );
  let shortCode: OutageCode | null = null;
  if (unitHash(orgKey, slot, OUTAGE_SALT, 3) < failShare) {
    let roll = unitHash(orgKey, slot, OUTAGE_SALT, 4);
    shortCode = CODE_WEIGHTS[CODE_WEIGHTS.length - 1]![0];
    for (const [code, weight] of CODE_WEIGHTS) {
      roll -= weight;
      if (roll < 0) {
        shortCode = code;
        break;
      }
    }
  }
  return { supplierId, start, end: start + Math.round(length), shortCode };
}

/** The seeded outages of an org that overlap [from, to), oldest first. */
export function seededOutages(orgKey: number, failShare: number, from: number, to: number): SupplierOutage[] {
  if (!Number.isFinite(from) || !Number.isFinite(to))
    throw new RangeError('from and to must be finite epoch milliseconds');
  const outages: SupplierOutage[] = [];
  for (let slot = Math.floor(from / OUTAGE_SLOT_MS); slot * OUTAGE_SLOT_MS < to; slot++) {
    const outage = seededOutage(orgKey, slot, failShare);
    if (outage.end > from && outage.start < to) outages.push(outage);
  }
  return outages;
}

/**
 * The outage of the dataset's supplier covering `at` (when the attempt's ingestion is due), or null.
 * Called for every attempt: one hash unless the slot's outage is this supplier's.
 */
export function supplierOutageAt(source: OutageSource, at: number): SupplierOutage | null {
  for (const outage of source.extra) if (at >= outage.start && at < outage.end) return outage;
  const slot = Math.floor(at / OUTAGE_SLOT_MS);
  const { orgKey, supplierIndex, failShare } = source;
  if (Math.floor(unitHash(orgKey, slot, OUTAGE_SALT, 0) * SUPPLIERS.length) !== supplierIndex) return null;
  const outage = outageOfSlot(orgKey, slot, failShare, SUPPLIERS[supplierIndex]!.id);
  return at >= outage.start && at < outage.end ? outage : null;
}

/** Checks outages given to a simulator: a known supplier, a window, a fetch code or null. */
export function checkOutages(outages: readonly SupplierOutage[]): void {
  outages.forEach((outage, i) => {
    const where = `outages[${i}]`;
    if (!SUPPLIERS.some((supplier) => supplier.id === outage.supplierId))
      throw new RangeError(
        `${where}.supplierId '${outage.supplierId}' is not a demo supplier (one of ${SUPPLIERS.map((s) => s.id).join(', ')})`,
      );
    if (!Number.isFinite(outage.start) || !Number.isFinite(outage.end) || outage.end <= outage.start)
      throw new RangeError(`${where}: start and end must be epoch milliseconds with start before end`);
    if (outage.shortCode !== null && !(OUTAGE_CODES as readonly string[]).includes(outage.shortCode))
      throw new RangeError(
        `${where}.shortCode '${String(outage.shortCode)}' is not an ingest outage code (${OUTAGE_CODES.join(', ')} or null for missing data)`,
      );
  });
}
