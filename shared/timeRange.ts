/**
 * The instants a time of the product may name: RFC 3339's years 0000–9999, in UTC. A time outside them
 * (`0000-01-01T00:00:00+01:00` is in year -1 once in UTC) has no RFC 3339 form: stored, it would be
 * written as `-000001-…`, which no reader of the export, the API or the window takes back. Every parse
 * point refuses it with the field named (docs/decisions.md, "Hardening (issue 22)").
 */
import Type from 'typebox';

export const EARLIEST_TIME = '0000-01-01T00:00:00.000Z';
export const LATEST_TIME = '9999-12-31T23:59:59.999Z';
export const EARLIEST_TIME_MS = Date.parse(EARLIEST_TIME);
export const LATEST_TIME_MS = Date.parse(LATEST_TIME);

/** The range as messages name it. */
export const TIME_RANGE = 'from 0000-01-01T00:00:00Z to 9999-12-31T23:59:59Z in UTC';

/** True for an instant (epoch ms) that has an RFC 3339 form in UTC. */
export const inTimeRange = (ms: number): boolean => ms >= EARLIEST_TIME_MS && ms <= LATEST_TIME_MS;

/**
 * An RFC 3339 date-time whose instant lies in the range (a TypeBox refinement: checked wherever the
 * schema is compiled, invisible to JSON Schema readers such as the settings file's).
 */
export const DateTimeInRange = Type.Refine(
  Type.String({ format: 'date-time' }),
  (value) => inTimeRange(Date.parse(value)),
  (value) => `'${value}' is outside the times this app keeps (${TIME_RANGE})`,
);
