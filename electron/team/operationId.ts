/**
 * An operation's id, made by its author before it is sent (docs/decisions.md "On call as a team:
 * operations"): a UUID version 7 (RFC 9562 §5.7), 48 bits of milliseconds then random bits, so ids sort
 * roughly by time and two members never make the same one. A push sent again after a lost answer
 * carries the same id, and the operation is applied once.
 *
 * Time and randomness are injected, so tests control them.
 */
import { v7 } from 'uuid';

/** `random(n)`: n random bytes (crypto.getRandomValues in the app). */
export function operationId(nowMs: number, random: (count: number) => Uint8Array): string {
  if (!Number.isSafeInteger(nowMs) || nowMs < 0 || nowMs >= 2 ** 48)
    throw new Error(`an operation id needs a time in 48 bits of milliseconds, not ${nowMs}`);
  return v7({ msecs: nowMs, random: random(16) });
}
