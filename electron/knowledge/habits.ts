/**
 * A dataset's delivery habits (docs/architecture.md#deadlines): from its newest HABIT_DELIVERIES settled
 * deliveries, how often it was on time, when it typically delivers relative to its deadline, and
 * whether its next deadline is *at risk* by the rule in shared/upcoming.ts (AT_RISK_RULE) — a rule a
 * person can check against the dataset's history by hand.
 */
import {
  AT_RISK_ON_TIME_RATE,
  type DeliveryHabits,
  HABIT_DELIVERIES,
  HABIT_MIN_SETTLED,
} from '../../shared/upcoming';
import { arraysReader, type DeliveryReader } from './deliveryColumns';
import { type DatasetHistory, STATUS_CODE, STATUS_NAME, isSettled } from './historyColumns';

/** The median of values (sorted in place); null when there are none. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  const middle = values.length >> 1;
  return values.length % 2 === 1 ? values[middle]! : (values[middle - 1]! + values[middle]!) / 2;
}

type Deliveries = DeliveryReader | Pick<DatasetHistory, 'deadlines' | 'delivered' | 'statuses'>;

/**
 * The newest HABIT_DELIVERIES settled deliveries of [start, end): how many, how many on time, the latest
 * one's status code, and (when `offsets` is given) each delivered one's delivered − deadline.
 */
function tally(deliveries: Deliveries, start: number, end: number, offsets: number[] | null) {
  const history = 'deadline' in deliveries ? deliveries : arraysReader(deliveries);
  let settled = 0;
  let onTime = 0;
  let latest: number | null = null;
  for (let i = start; i < end && settled < HABIT_DELIVERIES; i += 1) {
    const code = history.statuses[i]!;
    if (!isSettled(code)) continue;
    settled += 1;
    latest ??= code;
    if (code === STATUS_CODE.HEALTHY) onTime += 1;
    if (offsets === null) continue;
    const delivered = history.delivered(i);
    const deadline = history.deadline(i);
    const wasDelivered = code === STATUS_CODE.HEALTHY || code === STATUS_CODE.DELIVERED_LATE;
    if (wasDelivered && !Number.isNaN(delivered) && !Number.isNaN(deadline))
      offsets.push(delivered - deadline);
  }
  const onTimeRate = settled >= HABIT_MIN_SETTLED ? onTime / settled : null;
  const latestStatus = latest === null ? null : STATUS_NAME[latest]!;
  let riskReason: string | null = null;
  if (latestStatus === 'MISSING' || latestStatus === 'FAILED') {
    riskReason = `its latest delivery was ${latestStatus}`;
  } else if (onTimeRate !== null && onTimeRate < AT_RISK_ON_TIME_RATE) {
    riskReason = `${onTime} of its last ${settled} deliveries were on time (${Math.round(onTimeRate * 100)}%)`;
  }
  return { settled, onTime, onTimeRate, latestStatus, riskReason };
}

/** The habits of the deliveries [start, end) of `history`'s arrays (a block holds many datasets' end to end). */
export function habitsOf(history: Deliveries, start = 0, end = history.statuses.length): DeliveryHabits {
  const offsets: number[] = [];
  const { settled, onTime, onTimeRate, latestStatus, riskReason } = tally(history, start, end, offsets);
  return {
    settled,
    onTime,
    onTimeRate,
    typicalDeliveryMs: median(offsets),
    latestStatus,
    atRisk: riskReason !== null,
    riskReason,
  };
}

/** Whether the deliveries [start, end) make their dataset at risk: habitsOf's `atRisk`, without the median. */
export const isAtRisk = (history: Deliveries, start: number, end: number): boolean =>
  tally(history, start, end, null).riskReason !== null;
