/**
 * ECharts for the window's trend charts (docs/architecture.md#reliability): only what they draw is
 * registered (bars, a line, the grid, the tooltip, ARIA, the SVG renderer), so the bundle carries no
 * more of ECharts than that. Import it only from lazily loaded components: it is the view's weight,
 * never the first window paint's. Colours are the status strip's (the same red, amber and purple
 * everywhere) with axis text per theme, readable in light and dark.
 */
import type { BarSeriesOption, LineSeriesOption } from 'echarts/charts';
import { BarChart, LineChart } from 'echarts/charts';
import type { AriaComponentOption, GridComponentOption, TooltipComponentOption } from 'echarts/components';
import { AriaComponent, GridComponent, TooltipComponent } from 'echarts/components';
import { type ComposeOption, use } from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import type { WeekFigures } from '../../../shared/reliability';
import { rateText, weekLabel, weekSentence } from '../components/reliability/format';
import { type ColourScheme, STRIP_COLOURS, TONE_TEXT } from './status';

use([BarChart, LineChart, GridComponent, TooltipComponent, AriaComponent, SVGRenderer]);

export type TrendOption = ComposeOption<
  BarSeriesOption | LineSeriesOption | GridComponentOption | TooltipComponentOption | AriaComponentOption
>;

/** The series of a trend chart, in drawing order, with the legend's words and colours. */
export const TREND_SERIES = [
  { key: 'late', label: 'Late', colour: STRIP_COLOURS.info },
  { key: 'missing', label: 'Missing', colour: STRIP_COLOURS.warning },
  { key: 'failed', label: 'Failed', colour: STRIP_COLOURS.error },
  { key: 'onTimeRate', label: 'On time (%)', colour: STRIP_COLOURS.success },
] as const;

const GRID_LINES: Record<ColourScheme, string> = {
  light: 'rgba(0, 0, 0, 0.12)',
  dark: 'rgba(255, 255, 255, 0.14)',
};

/**
 * Weekly late, missing and failed counts stacked as bars (left axis), and the on-time rate as a line
 * with a point per week that had deliveries (right axis, 0–100 %). `description` is what a screen
 * reader hears for the chart (ECharts' ARIA label).
 */
export function trendOption(weeks: WeekFigures[], scheme: ColourScheme, description: string): TrendOption {
  const text = TONE_TEXT[scheme].default;
  const axisLabel = { color: text, fontSize: 11 };
  const bars = TREND_SERIES.slice(0, 3).map((series): BarSeriesOption => ({
    type: 'bar',
    name: series.label,
    stack: 'not on time',
    barMaxWidth: 28,
    itemStyle: { color: series.colour },
    // A week without any is no bar (ECharts would draw one of height 0).
    data: weeks.map((week) => (week[series.key] === 0 ? null : week[series.key])),
  }));
  const line: LineSeriesOption = {
    type: 'line',
    name: TREND_SERIES[3].label,
    yAxisIndex: 1,
    symbol: 'circle',
    symbolSize: 7,
    connectNulls: false,
    lineStyle: { color: TREND_SERIES[3].colour, width: 2 },
    itemStyle: { color: TREND_SERIES[3].colour },
    data: weeks.map((week) => (week.onTimeRate === null ? null : Math.round(week.onTimeRate * 1000) / 10)),
  };
  return {
    animation: false,
    backgroundColor: 'transparent',
    textStyle: { color: text, fontFamily: 'system-ui, sans-serif' },
    aria: { enabled: true, label: { enabled: true, description } },
    grid: { left: 44, right: 48, top: 16, bottom: 28 },
    tooltip: {
      trigger: 'axis',
      formatter: (params) => {
        const index = Array.isArray(params) ? (params[0]?.dataIndex ?? 0) : params.dataIndex;
        const week = weeks[index];
        return week ? weekSentence(week).replace('; ', '<br>') : '';
      },
    },
    xAxis: {
      type: 'category',
      data: weeks.map(weekLabel),
      axisLabel,
      axisLine: { lineStyle: { color: GRID_LINES[scheme] } },
      axisTick: { show: false },
    },
    yAxis: [
      {
        type: 'value',
        name: '',
        minInterval: 1,
        axisLabel,
        splitLine: { lineStyle: { color: GRID_LINES[scheme] } },
      },
      {
        type: 'value',
        min: 0,
        max: 100,
        interval: 25,
        axisLabel: { ...axisLabel, formatter: (value: number) => rateText(value / 100) },
        splitLine: { show: false },
      },
    ],
    series: [...bars, line],
  };
}
