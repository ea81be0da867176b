/** Words for a delivery's stages and times, shared by the delivery view's parts. */
export { STAGE_LABELS } from '../../../../shared/status';

/** "11:04:36" in the user's zone: tasks of one delivery share a day, which the hover title gives. */
export function timeOfDay(iso: string | null): string {
  if (!iso) return '—';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(
    at,
  );
}
