/**
 * Where a grouped notification leads (docs/decisions.md "Incidents"): its incident in Triage; a failure
 * no incident holds (grouped by its cause key alone) its cause's newest incident — never a link the
 * window reads as a bad incident id.
 */
import { describe, expect, it } from 'vitest';
import { triageTarget } from '../../../electron/alerts/causes';
import { targetPath } from '../../../shared/routes';

describe('a notification of an incident', () => {
  it('opens the incident when one holds the failures', () => {
    const target = triageTarget('acme', { incidentId: 'inc-3f9a0c2b71', causeId: 'ingest:E_AUTH_FAILED' });
    expect(targetPath(target)).toBe('/orgs/acme/triage?incident=inc-3f9a0c2b71');
  });

  it('opens the cause when none does (grouped by the cause key)', () => {
    const target = triageTarget('acme', {
      incidentId: 'ingest:E_AUTH_FAILED',
      causeId: 'ingest:E_AUTH_FAILED',
    });
    expect(targetPath(target)).toBe('/orgs/acme/triage?cause=ingest%3AE_AUTH_FAILED');
  });
});
