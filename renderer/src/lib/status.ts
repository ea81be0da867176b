/** How statuses look: one colour and one label per delivery and task status, the same everywhere. */
import type { DeliveryStatus } from '../../../shared/status';

export type Tone = 'error' | 'warning' | 'info' | 'success' | 'default';

const TONES: Record<string, Tone> = {
  FAILED: 'error',
  MISSING: 'warning',
  DELIVERED_LATE: 'info',
  HEALTHY: 'success',
  SUCCEEDED: 'success',
  RUNNING: 'info',
  PENDING: 'default',
  SKIPPED: 'default',
};

export const toneOf = (status: string | null | undefined): Tone =>
  status ? (TONES[status] ?? 'default') : 'default';

const LABELS: Record<DeliveryStatus, string> = {
  FAILED: 'Failed',
  MISSING: 'Missing',
  DELIVERED_LATE: 'Late',
  HEALTHY: 'Healthy',
};

export function labelOf(status: string | null | undefined): string {
  if (!status) return 'Unknown';
  return LABELS[status as DeliveryStatus] ?? status.charAt(0) + status.slice(1).toLowerCase();
}

/** CSS colours of the status strip's cells (readable in light and dark themes). */
export const STRIP_COLOURS: Record<Tone, string> = {
  error: '#d03050',
  warning: '#f0a020',
  info: '#8a6dd6',
  success: '#18a058',
  default: '#9aa0a6',
};

export type ColourScheme = 'light' | 'dark';

/**
 * Text in a status's colour (status pills, error messages), per theme: the strip's colours are too light
 * on white and too dark on the dark theme for text (WCAG AA: 4.5:1). Each keeps at least 5:1 against
 * its pill (the strip colour at 13 % over the page, the table's hover and the highlighted row).
 */
export const TONE_TEXT: Record<ColourScheme, Record<Tone, string>> = {
  light: { error: '#a01a37', warning: '#7a4f00', info: '#5a3aa8', success: '#075c30', default: '#51575d' },
  dark: { error: '#f5a0b0', warning: '#f5b94a', info: '#c2b2f4', success: '#5fd699', default: '#c0c4c9' },
};

/** The theme's text colours as CSS custom properties (`--tone-error` …), set once on the window's root. */
export function toneTextVars(scheme: ColourScheme): Record<string, string> {
  return Object.fromEntries(
    Object.entries(TONE_TEXT[scheme]).map(([tone, colour]) => [`--tone-${tone}`, colour]),
  );
}
