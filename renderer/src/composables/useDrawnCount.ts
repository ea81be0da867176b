/**
 * How many items of a long list to draw, growing frame by frame (docs/decisions.md "Drawing a long list
 * a screen first"): the first screen's worth at once, then `step` more per animation frame until all are
 * drawn. Mounting a few hundred rich cards costs hundreds of milliseconds in one task; drawn this way
 * the first screen shows in a fraction of that and the rest follows before anyone can scroll to it.
 *
 * The count only grows: a reload of the list keeps what is drawn (no flicker, no scroll jump), and
 * `reveal(index)` draws at least up to an item at once (a link or the keyboard going to it).
 */
import { type Ref, onUnmounted, ref, watch } from 'vue';

export interface DrawnCountOptions {
  /** Drawn at once: about a screen. */
  first: number;
  /** Added each frame after it. */
  step: number;
  /** Schedules the next growth (a test drives it by hand); requestAnimationFrame by default. */
  nextFrame?: (grow: () => void) => void;
}

export function useDrawnCount(
  total: () => number,
  options: DrawnCountOptions,
): {
  drawn: Ref<number>;
  reveal(index: number): void;
} {
  const nextFrame = options.nextFrame ?? ((grow: () => void) => void requestAnimationFrame(grow));
  const drawn = ref(options.first);
  let scheduled = false;
  let stopped = false;

  function grow(): void {
    scheduled = false;
    if (stopped || drawn.value >= total()) return;
    drawn.value += options.step;
    schedule();
  }

  function schedule(): void {
    if (scheduled || stopped || drawn.value >= total()) return;
    scheduled = true;
    nextFrame(grow);
  }

  watch(total, schedule, { immediate: true });
  onUnmounted(() => (stopped = true));

  return {
    drawn,
    reveal(index: number): void {
      if (index >= drawn.value) drawn.value = index + 1;
      schedule();
    },
  };
}
