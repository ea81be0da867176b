/**
 * The Host check (electron/api/guards.ts) of a server that listens beyond loopback: the names given are
 * served with the port or without it (behind a TLS proxy), a specific listening address with its port,
 * and nothing else — "undefined" included when the server listens on every interface.
 */
import { describe, expect, it } from 'vitest';
import { checkHostAndOrigin } from '../../../electron/api/guards';

const PORT = 47810;
const served = (host: string, extra: Parameters<typeof checkHostAndOrigin>[3]) => {
  try {
    checkHostAndOrigin(host, undefined, PORT, extra);
    return true;
  } catch {
    return false;
  }
};

describe('the Host check beyond loopback', () => {
  it('serves loopback, the names given, and a specific address with its port', () => {
    const extra = { address: '10.0.0.5', names: ['team.example'] };
    expect(
      ['127.0.0.1:47810', 'team.example', 'team.example:47810', '10.0.0.5:47810'].map((host) =>
        served(host, extra),
      ),
    ).toEqual([true, true, true, true]);
    expect(['10.0.0.5', 'team.example:1', 'evil.example:47810'].map((host) => served(host, extra))).toEqual([
      false,
      false,
      false,
    ]);
  });

  it('serves no made-up name when it listens on every interface (no address of its own)', () => {
    expect(served(`undefined:${PORT}`, { names: ['team.example'] })).toBe(false);
    expect(served(`undefined:${PORT}`, {})).toBe(false);
  });
});
