/**
 * The tray's icons (docs/architecture.md#the-tray: red FAILED, amber MISSING/late, green healthy, grey stale) and the
 * app's icon, drawn from shapes so every size is crisp and the files can be made again exactly
 * (`npm run icons`). Each state also has its own glyph (×, !, ✓, …): the state reads without colour,
 * which is all macOS template images (black and alpha, tinted by the menu bar) can show.
 */
import type { TrayLevel } from '../../alerts/trayState';
import { encodePng } from './png';

type Point = readonly [number, number];
/** A shape in unit coordinates (0–1 across the icon). */
type Shape = (x: number, y: number) => boolean;

const disc =
  (cx: number, cy: number, r: number): Shape =>
  (x, y) =>
    (x - cx) ** 2 + (y - cy) ** 2 <= r * r;

/** A stroke of width `w` from a to b, with round ends. */
function segment(a: Point, b: Point, w: number): Shape {
  const [ax, ay] = a;
  const [dx, dy] = [b[0] - ax, b[1] - ay];
  const length2 = dx * dx + dy * dy;
  return (x, y) => {
    const t = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / length2));
    return (x - ax - t * dx) ** 2 + (y - ay - t * dy) ** 2 <= (w / 2) ** 2;
  };
}

const union =
  (...shapes: Shape[]): Shape =>
  (x, y) =>
    shapes.some((shape) => shape(x, y));

const GLYPHS: Record<TrayLevel, Shape> = {
  failed: union(segment([0.34, 0.34], [0.66, 0.66], 0.13), segment([0.66, 0.34], [0.34, 0.66], 0.13)),
  warning: union(segment([0.5, 0.26], [0.5, 0.56], 0.13), disc(0.5, 0.73, 0.075)),
  healthy: union(segment([0.3, 0.52], [0.44, 0.66], 0.12), segment([0.44, 0.66], [0.71, 0.35], 0.12)),
  stale: union(disc(0.3, 0.5, 0.07), disc(0.5, 0.5, 0.07), disc(0.7, 0.5, 0.07)),
};

export const LEVEL_COLOURS: Record<TrayLevel, readonly [number, number, number]> = {
  failed: [208, 48, 80],
  warning: [240, 160, 32],
  healthy: [24, 160, 88],
  stale: [144, 147, 153],
};

const SAMPLES = 4;

/**
 * Rasterizes with 4×4 supersampling: each pixel's colour is `paint` of the samples' hits, alpha the
 * share of samples that hit anything.
 */
function raster(size: number, layers: { shape: Shape; rgb: readonly [number, number, number] }[]): Buffer {
  const rgba = new Uint8Array(size * size * 4);
  for (let py = 0; py < size; py++)
    for (let px = 0; px < size; px++) {
      const sum = [0, 0, 0];
      let hits = 0;
      for (let sy = 0; sy < SAMPLES; sy++)
        for (let sx = 0; sx < SAMPLES; sx++) {
          const x = (px + (sx + 0.5) / SAMPLES) / size;
          const y = (py + (sy + 0.5) / SAMPLES) / size;
          // The last layer that contains the sample paints it.
          const layer = layers.findLast((l) => l.shape(x, y));
          if (!layer) continue;
          hits += 1;
          for (let c = 0; c < 3; c++) sum[c]! += layer.rgb[c]!;
        }
      const at = (py * size + px) * 4;
      if (hits === 0) continue;
      for (let c = 0; c < 3; c++) rgba[at + c] = Math.round(sum[c]! / hits);
      rgba[at + 3] = Math.round((255 * hits) / (SAMPLES * SAMPLES));
    }
  return encodePng(size, size, rgba);
}

const WHITE = [255, 255, 255] as const;
const BLACK = [0, 0, 0] as const;
const ROUND = disc(0.5, 0.5, 0.46);

/** A coloured disc with the state's glyph in white (Windows, Linux). */
export function trayIcon(level: TrayLevel, size: number): Buffer {
  return raster(size, [
    { shape: ROUND, rgb: LEVEL_COLOURS[level] },
    { shape: GLYPHS[level], rgb: WHITE },
  ]);
}

/** A black disc with the glyph cut out (macOS template image: the menu bar tints it). */
export function trayTemplateIcon(level: TrayLevel, size: number): Buffer {
  const glyph = GLYPHS[level];
  return raster(size, [{ shape: (x, y) => ROUND(x, y) && !glyph(x, y), rgb: BLACK }]);
}

/** The app's icon: a rounded blue square with a white pulse line. */
export function appIcon(size: number): Buffer {
  const radius = 0.2;
  const inset = 0.06;
  const roundedSquare: Shape = (x, y) => {
    const qx = Math.max(Math.abs(x - 0.5) - (0.5 - inset - radius), 0);
    const qy = Math.max(Math.abs(y - 0.5) - (0.5 - inset - radius), 0);
    return qx * qx + qy * qy <= radius * radius;
  };
  const pulse: Point[] = [
    [0.2, 0.55],
    [0.38, 0.55],
    [0.46, 0.34],
    [0.56, 0.72],
    [0.63, 0.5],
    [0.8, 0.5],
  ];
  const line = union(...pulse.slice(1).map((point, i) => segment(pulse[i]!, point, 0.07)));
  return raster(size, [
    { shape: roundedSquare, rgb: [45, 108, 223] },
    { shape: line, rgb: WHITE },
  ]);
}
