/**
 * Failure reasons for failed tasks: a stable `shortCode`, technical `codeDetails` and a
 * human `message` an on-call engineer can act on.
 */
import type { Rng } from './random';

export interface FailureContext {
  supplierName: string;
  supplierHost: string;
  /** The supplier file of this delivery, e.g. `equity_prices_20261121.csv.gz`. */
  fileName: string;
  destinationName: string;
  destinationType: string;
  rng: Rng;
}

export interface FailureText {
  shortCode: string;
  codeDetails: string;
  message: string;
}

/** A task failed by the orchestrator's timeout, not by the worker: its reported status stays RUNNING. */
export const TIMEOUT_CODE = 'E_SOURCE_TIMEOUT';
export const TIMEOUT_SECONDS = 900;

const COLUMNS = [
  'close_px',
  'isin',
  'rating_date',
  'notional',
  'currency',
  'as_of_date',
  'issuer_id',
  'mid_rate',
];
const TYPES = ['DECIMAL(18,6)', 'DATE', 'VARCHAR(12)', 'BIGINT'];

type Describe = (context: FailureContext) => Omit<FailureText, 'shortCode'>;

const FAILURES: Record<string, Describe> = {
  E_SOURCE_TIMEOUT: (c) => ({
    codeDetails: `GET https://feeds.${c.supplierHost}.example/v2/files/${c.fileName} timed out after ${TIMEOUT_SECONDS} s (3 retries)`,
    message: `${c.supplierName} did not respond within ${TIMEOUT_SECONDS / 60} minutes; the file could not be fetched.`,
  }),
  E_FILE_NOT_FOUND: (c) => ({
    codeDetails: `404 Not Found: /outbound/${c.fileName}`,
    message: `${c.supplierName} has not published today's file yet.`,
  }),
  E_AUTH_FAILED: (c) => ({
    codeDetails: `401 Unauthorized from feeds.${c.supplierHost}.example: credential 'svc-ingest' expired`,
    message: `The credentials for ${c.supplierName} were rejected; they may have expired or been rotated.`,
  }),
  E_CHECKSUM_MISMATCH: (c) => ({
    codeDetails: `sha256 of ${c.fileName} does not match the manifest (expected ${hex(c.rng)}…, got ${hex(c.rng)}…)`,
    message: 'The downloaded file is incomplete or corrupted; its checksum does not match the manifest.',
  }),
  E_SCHEMA_MISMATCH: (c) => {
    const column = c.rng.pick(COLUMNS);
    return {
      codeDetails: `column '${column}': expected ${c.rng.pick(TYPES)}, got VARCHAR(255) (row 1 of ${c.fileName})`,
      message: `The file layout from ${c.supplierName} changed: column '${column}' has an unexpected type.`,
    };
  },
  E_EMPTY_FILE: (c) => ({
    codeDetails: `${c.fileName}: 0 data rows after header`,
    message: `${c.supplierName} delivered an empty file.`,
  }),
  E_UNMAPPED_IDENTIFIER: (c) => {
    const count = c.rng.int(3, 400);
    return {
      codeDetails: `${count} instrument identifiers have no mapping in the securities master (first: XS${c.rng.int(1e9, 9e9)})`,
      message: `${count} records reference instruments that are not in the securities master.`,
    };
  },
  E_MISSING_FX_RATE: (c) => ({
    codeDetails: `no ${c.rng.pick(['BRL', 'TRY', 'ZAR', 'INR', 'KRW'])}/USD fixing for the business date`,
    message: 'A currency conversion rate for the business date is missing.',
  }),
  E_MISSING_REFERENCE: (c) => ({
    codeDetails: `corporate action ${c.rng.int(100000, 999999)} references an unknown issuer`,
    message: 'A corporate action refers to an issuer that is not in the reference data.',
  }),
  E_DUPLICATE_KEYS: (c) => {
    const count = c.rng.int(2, 250);
    return {
      codeDetails: `unique key (instrument_id, as_of_date) violated by ${count} rows`,
      message: `The delivery contains ${count} duplicate records for the same instrument and date.`,
    };
  },
  E_NULL_CONSTRAINT: (c) => ({
    codeDetails: `column '${c.rng.pick(COLUMNS)}' is NULL in ${c.rng.int(1, 90)} rows`,
    message: 'Required values are missing, so derived fields could not be computed.',
  }),
  E_OUT_OF_MEMORY: (c) => ({
    codeDetails: `container killed: memory limit 8 GiB exceeded (peak ${c.rng.int(82, 99) / 10} GiB)`,
    message: 'The processing job ran out of memory; the input is larger than usual.',
  }),
  E_QUALITY_THRESHOLD: (c) => {
    const share = c.rng.int(6, 40);
    return {
      codeDetails: `row count changed by -${share}% versus the 20-day median (threshold 5%)`,
      message: `Quality check failed: ${share}% fewer records than usual.`,
    };
  },
  E_DEST_UNREACHABLE: (c) => ({
    codeDetails: `${c.destinationType} endpoint for '${c.destinationName}' unreachable: connect ETIMEDOUT after 3 attempts`,
    message: `The destination '${c.destinationName}' could not be reached.`,
  }),
  E_PERMISSION_DENIED: (c) => ({
    codeDetails: `${c.destinationType} write to '${c.destinationName}' denied: AccessDenied for role svc-dispatch`,
    message: `Writing to '${c.destinationName}' was refused; the subscriber's permissions changed.`,
  }),
  E_QUOTA_EXCEEDED: (c) => ({
    codeDetails: `${c.destinationType} quota exceeded on '${c.destinationName}' (storage 100% of limit)`,
    message: `The destination '${c.destinationName}' is full.`,
  }),
};

function hex(rng: Rng): string {
  return rng.int(0x10000000, 0xffffffff).toString(16);
}

export function describeFailure(shortCode: string, context: FailureContext): FailureText {
  const describe = FAILURES[shortCode];
  if (describe === undefined) {
    return { shortCode, codeDetails: shortCode, message: 'The task failed.' };
  }
  return { shortCode, ...describe(context) };
}
