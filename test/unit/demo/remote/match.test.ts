/** Compiled filters agree with the naive one-filter-at-a-time semantics, whatever the order. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFilters, matches } from '../../../../electron/demo/remote/match';
import { SimulatedOrg } from '../../../../electron/demo/remote/org';
import { parseFilter } from '../../../../shared/filter';

const NOW = Date.parse('2026-11-21T04:41:00.000Z');
const org = new SimulatedOrg({ datasets: 80, seed: 5 });
const records = Array.from({ length: org.size }, (_, index) => org.record(index, NOW, 1));

const FILTERS = [
  'deliveryStatus.in.(FAILED,MISSING)',
  'deliveryStatus.neq.HEALTHY',
  'deliveryStatus.eq.DELIVERED_LATE',
  'datasetName.ilike.*equity*',
  'datasetName.like.EMEA*',
  'dataProduct.in.("FX Rates","Yield Curves")',
  'supplierId.like.SUP-10*',
  'legacyDatasetId.neq.v1-000001',
  `datasetId.eq.${records[4]!.datasetId}`,
  `deliveryId.in.(${records[2]!.deliveryId},${records[9]!.deliveryId})`,
].map(parseFilter);

describe('compileFilters', () => {
  it('matches exactly what every filter matches alone', () => {
    fc.assert(
      fc.property(fc.subarray(FILTERS, { maxLength: 3 }), (filters) => {
        const test = compileFilters(filters);
        for (const record of records) {
          expect(test(record)).toBe(filters.every((filter) => matches(record, filter)));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('tests fixed fields before the derived ones, so a view derives only when it must', () => {
    let derived = 0;
    const view = {
      ...records[0]!,
      datasetName: 'Nothing like it',
      get latestDeliveryStatus() {
        derived += 1;
        return 'FAILED';
      },
    };
    const test = compileFilters([parseFilter('deliveryStatus.eq.FAILED'), parseFilter('datasetName.eq.x')]);
    expect(test(view)).toBe(false);
    expect(derived).toBe(0);
  });
});
