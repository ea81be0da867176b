/**
 * The window's icons, drawn here as small SVG shapes on a 24 × 24 grid (no icon library is a
 * dependency, and a dozen shapes do not need one): strokes in the text's colour, 2 wide, round ends.
 * Glyphs that carry meaning are drawn with these, not typed as emoji or dingbats, whose look (colour
 * emoji, a missing font's box) and spoken name ("alarm clock") depend on the machine (docs/decisions.md,
 * issue 23 part 4).
 */

/** One SVG element of an icon: its tag and attributes; `fill`: drawn solid instead of stroked. */
export interface Shape {
  tag: 'path' | 'circle' | 'rect';
  attrs: Record<string, string | number>;
  fill?: boolean;
}

const path = (d: string, fill = false): Shape => ({ tag: 'path', attrs: { d }, fill });

export const ICON_SHAPES = {
  /** Acknowledged. */
  check: [path('M5 12.5l4.5 4.5L19 7.5')],
  /** A notification raised. */
  bell: [path('M6 16.5V11a6 6 0 0 1 12 0v5.5l1.5 1.5h-15z'), path('M10 20.5a2 2 0 0 0 4 0')],
  /** A reminder raised. */
  'bell-off': [
    path('M6 16.5V11a6 6 0 0 1 9-5.2M18 10.5v6l1.5 1.5h-12'),
    path('M10 20.5a2 2 0 0 0 4 0'),
    path('M4 4l16 16'),
  ],
  alarm: [
    { tag: 'circle', attrs: { cx: 12, cy: 13, r: 7 } },
    path('M12 9.5V13l2.5 2'),
    path('M4.5 6.5l3-2.5M19.5 6.5l-3-2.5'),
  ],
  /** An acknowledgement withdrawn (undone). */
  undo: [path('M4 12a8 8 0 1 0 2.4-5.7L4 8.5'), path('M4 4v4.5h4.5')],
  /** An acknowledgement ended by itself. */
  stop: [{ tag: 'rect', attrs: { x: 6.5, y: 6.5, width: 11, height: 11, rx: 1.5 }, fill: true }],
  /** A sync outage, a warning. */
  warning: [path('M12 3.5L21.5 20h-19z'), path('M12 10v4.5'), path('M12 17.25v.25')],
  /** A status (coloured by it). */
  dot: [{ tag: 'circle', attrs: { cx: 12, cy: 12, r: 5.5 }, fill: true }],
  /** Back. */
  'arrow-left': [path('M19 12H5M11 6l-6 6 6 6')],
  /** A closed disclosure, and an open one. */
  'chevron-right': [path('M9.5 6l6 6-6 6')],
  'chevron-down': [path('M6 9.5l6 6 6-6')],
} as const satisfies Record<string, readonly Shape[]>;

export type IconName = keyof typeof ICON_SHAPES;
