/** What a member may push (electron/team/access.ts): its org's operations, as itself, and nothing as a viewer. */
import { describe, expect, it } from 'vitest';
import type { TeamOperation } from '../../../shared/team';
import { pushProblem } from '../../../electron/team/access';

const op = (orgId: string, author: string, n = 1): TeamOperation => ({
  opId: `0190a000-0000-7000-8000-${String(n).padStart(12, '0')}`,
  orgId,
  author,
  at: '2026-11-29T12:00:00.000Z#0000',
  kind: 'unsnooze',
  payload: { datasetId: 'ds-a' },
});
const alice = { orgId: 'acme', member: 'Alice', role: 'member' as const };

describe('what a member may push', () => {
  it('its own operations on its own org', () => {
    expect(pushProblem(alice, [op('acme', 'Alice'), op('acme', 'Alice', 2)])).toBeNull();
    expect(pushProblem(alice, [])).toBeNull();
  });

  it('not another org’s, nor as someone else, nor anything as a viewer', () => {
    expect(pushProblem(alice, [op('acme', 'Alice'), op('other', 'Alice', 2)])).toBe(
      'operation 0190a000-0000-7000-8000-000000000002 is for org "other"; this token is for "acme" only',
    );
    expect(pushProblem(alice, [op('acme', 'Bob')])).toBe(
      'operation 0190a000-0000-7000-8000-000000000001 is by "Bob"; this token is "Alice"\'s',
    );
    expect(pushProblem({ ...alice, role: 'viewer' }, [op('acme', 'Alice')])).toBe(
      'Alice is a viewer: a viewer reads, and cannot acknowledge or snooze',
    );
  });
});
