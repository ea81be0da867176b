/**
 * The replay's chart in Settings → Rules (docs/decisions.md "Settings → Rules"): notifications per day,
 * what the rules being edited would have sent beside what the rules in force did send, as grouped
 * bars. Built on lib/charts.ts, which registers the parts of ECharts it draws with; import it only from
 * lazily loaded components, as that module says.
 */
import type { BarSeriesOption } from 'echarts/charts';
import type { ReplayResult } from '../../../shared/rulesView';
// Registers the parts of ECharts the chart draws with (bars, grid, tooltip, ARIA, SVG).
import './charts';
import type { TrendOption } from './charts';
import { type ColourScheme, STRIP_COLOURS, TONE_TEXT } from './status';

/** The two series, with the legend's words and colours. */
export const REPLAY_SERIES = [
  { key: 'count', label: 'Would send (these rules)', colour: '#2080f0' },
  { key: 'sent', label: 'Sent (rules in force)', colour: STRIP_COLOURS.default },
] as const;

const GRID_LINES: Record<ColourScheme, string> = {
  light: 'rgba(0, 0, 0, 0.12)',
  dark: 'rgba(255, 255, 255, 0.14)',
};

/** "Sat 21 Nov" for a day as the replay names it (YYYY-MM-DD of the user's zone). */
export function dayLabel(day: string): string {
  return new Date(`${day}T12:00:00Z`).toLocaleDateString('en-GB', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  });
}

export function replayOption(
  byDay: ReplayResult['byDay'],
  scheme: ColourScheme,
  description: string,
): TrendOption {
  const text = TONE_TEXT[scheme].default;
  const axisLabel = { color: text, fontSize: 11 };
  const series = REPLAY_SERIES.map((each): BarSeriesOption => ({
    type: 'bar',
    name: each.label,
    barMaxWidth: 22,
    itemStyle: { color: each.colour },
    data: byDay.map((day) => day[each.key]),
  }));
  return {
    animation: false,
    backgroundColor: 'transparent',
    textStyle: { color: text, fontFamily: 'system-ui, sans-serif' },
    aria: { enabled: true, label: { enabled: true, description } },
    grid: { left: 40, right: 16, top: 16, bottom: 28 },
    tooltip: { trigger: 'axis' },
    xAxis: {
      type: 'category',
      data: byDay.map((day) => dayLabel(day.day)),
      axisLabel,
      axisLine: { lineStyle: { color: GRID_LINES[scheme] } },
      axisTick: { show: false },
    },
    yAxis: {
      type: 'value',
      minInterval: 1,
      axisLabel,
      splitLine: { lineStyle: { color: GRID_LINES[scheme] } },
    },
    series,
  };
}
