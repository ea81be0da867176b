/** The import's rules beyond shapes (docs/decisions.md "Import"), as tables: what passes, what is said. */
import { describe, expect, it } from 'vitest';
import {
  MAX_ID_LENGTH,
  MAX_NAME_LENGTH,
  MAX_TEXT_LENGTH,
  maxLength,
  scheduleProblem,
  shortQuote,
  statusProblem,
  timeZoneProblem,
} from '../../../../electron/store/snapshot/importRules';

const EMPTY = {
  minute: '',
  hour: '',
  dayOfTheMonth: '',
  month: '',
  dayOfWeek: '',
  year: '',
  timezone: '',
  cronExpression: '',
};

describe('import rules', () => {
  it.each([
    ['datasetId', MAX_ID_LENGTH],
    ['status', MAX_ID_LENGTH],
    ['datasetName', MAX_NAME_LENGTH],
    ['name', MAX_NAME_LENGTH],
    ['message', MAX_TEXT_LENGTH],
    ['codeDetails', MAX_TEXT_LENGTH],
  ])('%s may hold up to %i characters', (field, max) => expect(maxLength(field)).toBe(max));

  it.each(['', 'FAILED', 'IN_PROGRESS', 'failed', 'x-1'])('status %j is a word', (status) =>
    expect(statusProblem(status)).toBeNull(),
  );
  it.each(['<b>', 'NOT OK', 'FAILED\n', 'É'])('status %j is refused', (status) =>
    expect(statusProblem(status)).toMatch(/is not a status/),
  );

  it.each(['', 'UTC', 'Europe/London', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5'])(
    'time zone %j is accepted',
    (zone) => expect(timeZoneProblem(zone)).toBeNull(),
  );
  it.each(['Mars/Olympus', '../../etc/passwd', '+05:00', 'Europe//London', 'Europe/', ' UTC'])(
    'time zone %j is refused',
    (zone) => expect(timeZoneProblem(zone)).toMatch(/is not an IANA time zone/),
  );

  it.each([
    [{}, null],
    [{ cronExpression: '30 6 * * 1-5' }, null],
    [{ cronExpression: '30 6 * * * 2026' }, null],
    [{ minute: '30', hour: '6', dayOfWeek: 'MON-FRI' }, null],
    [{ minute: '60' }, 'minute'],
    [{ hour: '24' }, 'hour'],
    [{ dayOfTheMonth: '32' }, 'dayOfTheMonth'],
    [{ month: '13' }, 'month'],
    [{ dayOfWeek: '8' }, 'dayOfWeek'],
    [{ year: '10000' }, 'year'],
    [{ minute: '1 2' }, 'minute'],
    [{ cronExpression: '0 4 * *' }, 'cronExpression'],
    [{ cronExpression: '0 0 4 * * * *' }, null],
    [{ cronExpression: '30 0 4 * * 1-5 2027' }, null],
    [{ cronExpression: '0 0 4 * * * * *' }, 'cronExpression'],
    [{ cronExpression: '60 0 4 * * * *' }, 'cronExpression'],
    [{ cronExpression: '61 4 * * *' }, 'cronExpression'],
  ])('schedule %j: problem in %s', (fields, field) =>
    expect(scheduleProblem({ ...EMPTY, ...fields })?.[0] ?? null).toBe(field),
  );

  it('quotes are cut and escaped, so a message never echoes megabytes or control characters', () => {
    expect(shortQuote('x'.repeat(1_000_000))).toBe(`'${'x'.repeat(64)}…'`);
    expect(shortQuote('a\u001bb')).toBe("'a\\u001bb'");
  });
});
