/**
 * The status chips above the datasets table: one per delivery status with how many datasets have it,
 * pressed ones narrow the table; what they emit is always in the contract's status order.
 */
import { type VueWrapper, mount } from '@vue/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import StatusChips from '../../../../renderer/src/components/datasets/StatusChips.vue';
import type { StatusCounts } from '../../../../shared/rows';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../../../shared/status';
import type { OverdueSummary } from '../../../../shared/upcoming';

const COUNTS: StatusCounts = {
  byStatus: { FAILED: 12, MISSING: 3, DELIVERED_LATE: 7, HEALTHY: 1234, NONE: 5 },
  total: 1255,
};

let wrapper: VueWrapper | null = null;
afterEach(() => {
  wrapper?.unmount();
  wrapper = null;
});

function chips(props: {
  counts: StatusCounts | null;
  selected: DeliveryStatus[];
  overdue?: OverdueSummary | null;
}): VueWrapper {
  wrapper = mount(StatusChips, { props });
  return wrapper;
}

/** The chip buttons, in screen order. */
const chipButtons = (w: VueWrapper) => w.findAll('button[data-chip]');
const chip = (w: VueWrapper, status: DeliveryStatus) => w.get(`button[data-chip="${status}"]`);
const allStatuses = (w: VueWrapper) => w.findAll('button').filter((b) => b.text() === 'All statuses');

/** What the chips asked for, one array per click. */
const emitted = (w: VueWrapper): DeliveryStatus[][] =>
  (w.emitted('update:selected') ?? []).map(([statuses]) => statuses as DeliveryStatus[]);

describe('StatusChips', () => {
  it('shows one chip per delivery status, worst first, each named with its label and count', () => {
    const w = chips({ counts: COUNTS, selected: [] });
    expect(w.get('[role="group"]').attributes('aria-label')).toBe('Filter by status');
    expect(chipButtons(w).map((b) => b.attributes('data-chip'))).toEqual([...DELIVERY_STATUSES]);
    const names = chipButtons(w).map((b) => b.attributes('aria-label'));
    expect(names.slice(0, 3)).toEqual(['Failed: 12 datasets', 'Missing: 3 datasets', 'Late: 7 datasets']);
    // With or without a thousands separator: both read right.
    expect(names[3]).toMatch(/^Healthy: 1,?234 datasets$/);
    expect(chip(w, 'FAILED').text()).toContain('Failed');
    expect(chip(w, 'FAILED').get('.count').text()).toBe((12).toLocaleString());
    expect(chip(w, 'HEALTHY').get('.count').text()).toBe((1234).toLocaleString());
  });

  it('counts zero for every status while the counts are not loaded yet', () => {
    const w = chips({ counts: null, selected: [] });
    expect(chipButtons(w).map((b) => b.attributes('aria-label'))).toEqual([
      'Failed: 0 datasets',
      'Missing: 0 datasets',
      'Late: 0 datasets',
      'Healthy: 0 datasets',
    ]);
  });

  it('follows new counts', async () => {
    const w = chips({ counts: COUNTS, selected: [] });
    await w.setProps({ counts: { ...COUNTS, byStatus: { ...COUNTS.byStatus, FAILED: 40 } } });
    expect(chip(w, 'FAILED').attributes('aria-label')).toBe('Failed: 40 datasets');
  });

  it('marks exactly the selected statuses as pressed', async () => {
    const w = chips({ counts: COUNTS, selected: ['MISSING', 'HEALTHY'] });
    const pressed = () => chipButtons(w).map((b) => b.attributes('aria-pressed'));
    expect(pressed()).toEqual(['false', 'true', 'false', 'true']);
    await w.setProps({ selected: ['FAILED'] });
    expect(pressed()).toEqual(['true', 'false', 'false', 'false']);
  });

  it('pressing a chip adds its status, keeping the contract order whatever order they were pressed in', async () => {
    const w = chips({ counts: COUNTS, selected: ['HEALTHY'] });
    await chip(w, 'MISSING').trigger('click');
    await w.setProps({ selected: ['MISSING', 'HEALTHY'] });
    await chip(w, 'FAILED').trigger('click');
    await w.setProps({ selected: ['FAILED', 'MISSING', 'HEALTHY'] });
    await chip(w, 'DELIVERED_LATE').trigger('click');
    expect(emitted(w)).toEqual([
      ['MISSING', 'HEALTHY'],
      ['FAILED', 'MISSING', 'HEALTHY'],
      ['FAILED', 'MISSING', 'DELIVERED_LATE', 'HEALTHY'],
    ]);
  });

  it('pressing a pressed chip removes its status and keeps the others in order', async () => {
    const w = chips({ counts: COUNTS, selected: ['FAILED', 'MISSING', 'HEALTHY'] });
    await chip(w, 'MISSING').trigger('click');
    expect(emitted(w)).toEqual([['FAILED', 'HEALTHY']]);
  });

  it('pressing the only pressed chip shows all statuses again', async () => {
    const w = chips({ counts: COUNTS, selected: ['DELIVERED_LATE'] });
    await chip(w, 'DELIVERED_LATE').trigger('click');
    expect(emitted(w)).toEqual([[]]);
  });

  it('offers "All statuses" only when a chip is pressed, and it clears the selection', async () => {
    const w = chips({ counts: COUNTS, selected: [] });
    expect(allStatuses(w)).toHaveLength(0);
    await w.setProps({ selected: ['FAILED', 'HEALTHY'] });
    expect(allStatuses(w)).toHaveLength(1);
    await allStatuses(w)[0]!.trigger('click');
    expect(emitted(w)).toEqual([[]]);
  });

  it('does not change the selection by itself: it only asks its parent', async () => {
    const w = chips({ counts: COUNTS, selected: ['FAILED'] });
    await chip(w, 'MISSING').trigger('click');
    expect(chip(w, 'MISSING').attributes('aria-pressed')).toBe('false');
    expect(emitted(w)).toEqual([['FAILED', 'MISSING']]);
  });

  it('while deadlines passed since the last sync, an "Overdue (unverified)" note beside the chips, not a filter', async () => {
    const overdue: OverdueSummary = {
      orgId: 'acme',
      stale: true,
      lastSuccessAt: '2026-11-21T04:41:00.000Z',
      datasets: [
        { datasetId: 'a', datasetName: 'A', deadlines: 2, since: '2026-11-21T05:00:00.000Z' },
        { datasetId: 'b', datasetName: 'B', deadlines: 1, since: '2026-11-21T06:00:00.000Z' },
      ],
      deadlines: 3,
    };
    const w = chips({ counts: COUNTS, selected: [], overdue });
    const note = w.get('[data-chip="OVERDUE"]');
    expect(note.element.tagName).toBe('SPAN');
    expect(note.attributes('role')).toBe('note');
    expect(note.text()).toMatch(/^Overdue \(unverified\)\s*2$/);
    expect(note.attributes('title')).toBe(
      '3 deadlines passed since the last sync (2 datasets): not a status from the remote, which could not be asked',
    );
    await note.trigger('click');
    expect(emitted(w)).toEqual([]);
    // Fresh again (or none passed): no note.
    await w.setProps({ overdue: { ...overdue, stale: false, datasets: [], deadlines: 0 } });
    expect(w.find('[data-chip="OVERDUE"]').exists()).toBe(false);
  });
});
