/**
 * Triage's search and a cause's acknowledgement badge (renderer/src/components/triage/search.ts) as
 * tables: what a search text keeps of each cause, and which acknowledgement a whole cause shows.
 */
import { describe, expect, it } from 'vitest';
import { causeAcknowledgement, searchCauses } from '../../../../renderer/src/components/triage/search';
import type { AcknowledgementView, CauseDataset, Incident } from '../../../../shared/causes';

function ack(datasetId: string, at: string, causeId: string | null = null): AcknowledgementView {
  return {
    orgId: 'acme',
    datasetId,
    deliveryId: `dlv-${datasetId}`,
    status: 'FAILED',
    causeId,
    note: null,
    by: 'sam',
    at,
    endedAt: null,
    endReason: null,
  };
}

function dataset(datasetId: string, name: string, extra: Partial<CauseDataset> = {}): CauseDataset {
  return {
    datasetId,
    datasetName: name,
    dataProductName: 'Prices',
    supplierId: 'SUP-1',
    supplierName: 'Bluefin Exchange Feeds',
    status: 'FAILED',
    deliveryId: `dlv-${datasetId}`,
    since: '2026-11-21T03:00:00.000Z',
    message: 'The credentials were rejected.',
    acknowledgement: null,
    ...extra,
  };
}

/** An incident of one cause (its id the cause's, to keep the table short: the search reads both). */
function cause(causeId: string, title: string, datasets: CauseDataset[]): Incident {
  return {
    incidentId: causeId,
    causeId,
    kind: 'failed',
    title,
    stage: 'ingest',
    shortCode: causeId.split(':')[1] ?? null,
    count: datasets.length,
    unacknowledged: datasets.filter((d) => d.acknowledgement === null).length,
    suppliers: [...new Set(datasets.map((d) => d.supplierId))].map((id) => ({
      id,
      name: datasets.find((d) => d.supplierId === id)!.supplierName,
      count: datasets.filter((d) => d.supplierId === id).length,
    })),
    recovered: 0,
    firstFailureAt: '2026-11-21T05:00:00.000Z',
    lastFailureAt: '2026-11-21T05:00:00.000Z',
    endedAt: null,
    representative: { datasetId: datasets[0]!.datasetId, datasetName: null, deliveryId: null, message: 'x' },
    datasets,
  };
}

const AUTH = cause('ingest:E_AUTH_FAILED', 'Ingest failed: E_AUTH_FAILED', [
  dataset('ds-1', 'Daily prices'),
  dataset('ds-2', 'Weekly curves', { dataProductName: 'Curves' }),
]);
const SCHEMA = cause('normalize:E_SCHEMA_MISMATCH', 'Normalize failed: E_SCHEMA_MISMATCH', [
  dataset('ds-3', 'Daily ratings', { supplierId: 'SUP-2', supplierName: 'Castellan Ratings' }),
]);
const CAUSES = [AUTH, SCHEMA];

describe('searchCauses', () => {
  it.each([
    {
      search: '',
      kept: { 'ingest:E_AUTH_FAILED': ['ds-1', 'ds-2'], 'normalize:E_SCHEMA_MISMATCH': ['ds-3'] },
      byDatasets: [],
    },
    { search: '  auth ', kept: { 'ingest:E_AUTH_FAILED': ['ds-1', 'ds-2'] }, byDatasets: [] },
    { search: 'normalize:', kept: { 'normalize:E_SCHEMA_MISMATCH': ['ds-3'] }, byDatasets: [] },
    {
      search: 'BLUEFIN',
      kept: { 'ingest:E_AUTH_FAILED': ['ds-1', 'ds-2'] },
      byDatasets: [],
    },
    {
      search: 'daily',
      kept: { 'ingest:E_AUTH_FAILED': ['ds-1'], 'normalize:E_SCHEMA_MISMATCH': ['ds-3'] },
      byDatasets: ['ingest:E_AUTH_FAILED', 'normalize:E_SCHEMA_MISMATCH'],
    },
    { search: 'curves', kept: { 'ingest:E_AUTH_FAILED': ['ds-2'] }, byDatasets: ['ingest:E_AUTH_FAILED'] },
    {
      search: 'ds-3',
      kept: { 'normalize:E_SCHEMA_MISMATCH': ['ds-3'] },
      byDatasets: ['normalize:E_SCHEMA_MISMATCH'],
    },
    { search: 'castellan', kept: { 'normalize:E_SCHEMA_MISMATCH': ['ds-3'] }, byDatasets: [] },
    { search: 'nothing like it', kept: {}, byDatasets: [] },
  ])('"$search" keeps $kept', ({ search, kept, byDatasets }) => {
    const shown = searchCauses(CAUSES, search);
    expect(
      Object.fromEntries(shown.map((s) => [s.cause.causeId, s.datasets.map((d) => d.datasetId)])),
    ).toEqual(kept);
    expect(shown.filter((s) => s.byDatasets).map((s) => s.cause.causeId)).toEqual(byDatasets);
  });

  it('keeps the engine order of the causes', () => {
    expect(searchCauses([SCHEMA, AUTH], 'daily').map((s) => s.cause.causeId)).toEqual([
      'normalize:E_SCHEMA_MISMATCH',
      'ingest:E_AUTH_FAILED',
    ]);
  });
});

describe('causeAcknowledgement', () => {
  const own = ack('ds-1', '2026-11-21T04:00:00.000Z', 'ingest:E_AUTH_FAILED');
  const later = ack('ds-2', '2026-11-21T04:30:00.000Z');
  const earlier = ack('ds-2', '2026-11-21T03:30:00.000Z');
  const withAcks = (a: AcknowledgementView | null, b: AcknowledgementView | null): Incident =>
    cause(AUTH.causeId, AUTH.title, [
      dataset('ds-1', 'Daily prices', { acknowledgement: a }),
      dataset('ds-2', 'Weekly curves', { acknowledgement: b }),
    ]);

  it.each([
    { case: 'none acknowledged', a: null, b: null, shown: null },
    { case: 'one of two acknowledged', a: own, b: null, shown: null },
    { case: "the cause's own acknowledgement over a later one", a: own, b: later, shown: own },
    {
      case: 'without one of the cause, the latest',
      a: ack('ds-1', '2026-11-21T04:00:00.000Z'),
      b: earlier,
      shown: ack('ds-1', '2026-11-21T04:00:00.000Z'),
    },
  ])('$case', ({ a, b, shown }) => {
    expect(causeAcknowledgement(withAcks(a, b))).toEqual(shown);
  });
});
