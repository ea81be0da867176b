/**
 * The status strip of a dataset: its recent delivery statuses as coloured cells, oldest on the left so
 * time reads left to right, with an accessible label that lists them in the same order.
 */
import { type VueWrapper, mount } from '@vue/test-utils';
import { afterEach, describe, expect, it } from 'vitest';
import StatusStrip from '../../../../renderer/src/components/StatusStrip.vue';
import { STRIP_COLOURS } from '../../../../renderer/src/lib/status';

let wrapper: VueWrapper | null = null;
afterEach(() => {
  wrapper?.unmount();
  wrapper = null;
});

function strip(statuses: (string | null)[], cellWidth?: number): VueWrapper {
  wrapper = mount(StatusStrip, { props: cellWidth === undefined ? { statuses } : { statuses, cellWidth } });
  return wrapper;
}

const cells = (w: VueWrapper) => w.findAll<HTMLElement>('.cell').map((cell) => cell.element.style);

describe('StatusStrip', () => {
  // The engine sends statuses newest first.
  const NEWEST_FIRST = ['FAILED', 'HEALTHY', null, 'DELIVERED_LATE', 'MISSING'];

  it('draws one cell per delivery, oldest on the left, in the colour of its status', () => {
    const w = strip(NEWEST_FIRST);
    expect(cells(w).map((style) => style.background)).toEqual([
      STRIP_COLOURS.warning, // MISSING, the oldest
      STRIP_COLOURS.info, // DELIVERED_LATE
      STRIP_COLOURS.default, // no status
      STRIP_COLOURS.success, // HEALTHY
      STRIP_COLOURS.error, // FAILED, the newest
    ]);
  });

  it('is an image whose label lists the deliveries in the order drawn, newest last', () => {
    const w = strip(NEWEST_FIRST);
    const image = w.get('[role="img"]');
    const label = 'Last 5 deliveries, newest last: Missing, Late, Unknown, Healthy, Failed';
    expect(image.attributes('aria-label')).toBe(label);
    expect(image.attributes('title')).toBe(label);
  });

  it('names task-like or unknown statuses readably and draws them neutral', () => {
    const w = strip(['SKIPPED', 'SOMETHING_NEW']);
    expect(w.get('[role="img"]').attributes('aria-label')).toBe(
      'Last 2 deliveries, newest last: Something_new, Skipped',
    );
    expect(cells(w).map((style) => style.background)).toEqual([STRIP_COLOURS.default, STRIP_COLOURS.default]);
  });

  it('says there are no deliveries yet, and draws no cell, for a dataset without any', () => {
    const w = strip([]);
    expect(w.get('[role="img"]').attributes('aria-label')).toBe('No deliveries yet');
    expect(cells(w)).toHaveLength(0);
  });

  it('draws cells 8 px wide unless told otherwise', () => {
    expect(cells(strip(['FAILED', 'HEALTHY'])).map((style) => style.width)).toEqual(['8px', '8px']);
    wrapper!.unmount();
    expect(cells(strip(['FAILED'], 14)).map((style) => style.width)).toEqual(['14px']);
  });

  it('does not reorder the statuses it was given', () => {
    const statuses = ['FAILED', 'HEALTHY'];
    strip(statuses);
    expect(statuses).toEqual(['FAILED', 'HEALTHY']);
  });

  it('follows new statuses', async () => {
    const w = strip(['HEALTHY']);
    await w.setProps({ statuses: ['FAILED', 'HEALTHY'] });
    expect(w.get('[role="img"]').attributes('aria-label')).toBe(
      'Last 2 deliveries, newest last: Healthy, Failed',
    );
    expect(cells(w).map((style) => style.background)).toEqual([STRIP_COLOURS.success, STRIP_COLOURS.error]);
  });
});
