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
