/** Operation ids (electron/team/operationId.ts): UUID version 7 with the time first, as RFC 9562 lays it out. */
import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import Type from 'typebox';
import { OPERATION_ID_PATTERN } from '../../../shared/team';
import { operationId } from '../../../electron/team/operationId';

const bytes = (value: number) => (count: number) => new Uint8Array(count).fill(value);

describe('operation ids', () => {
  it('lay out the milliseconds, the version and the variant around the random bits', () => {
    // RFC 9562 appendix A.6: 2022-02-22 19:22:22 UTC is 0x017F22E279B0 ms.
    expect(operationId(0x017f22e279b0, bytes(0))).toBe('017f22e2-79b0-7000-8000-000000000000');
    expect(operationId(0x017f22e279b0, bytes(0xff))).toMatch(
      /^017f22e2-79b0-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-f{12}$/,
    );
  });

  it('sort by time and match the pattern the team server checks', () => {
    const check = Compile(Type.String({ pattern: OPERATION_ID_PATTERN }));
    const random = (count: number) => crypto.getRandomValues(new Uint8Array(count));
    const ids = [1, 2, 1_000, 1_795_955_933_380].map((ms) => operationId(ms, random));
    expect([...ids].sort()).toEqual(ids);
    for (const id of ids) expect(check.Check(id)).toBe(true);
    expect(operationId(5, random)).not.toBe(operationId(5, random));
  });

  it('refuses a time it cannot hold', () => {
    for (const bad of [-1, 2 ** 48, 1.5, Number.NaN])
      expect(() => operationId(bad, bytes(0))).toThrow('48 bits of milliseconds');
  });
});
