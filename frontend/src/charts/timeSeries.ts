// Layout of a time-series line chart: values per time bucket (ns since run start) as lines, on a
// shared time domain. Pure; tests and golden SVGs in timeSeries.test.tsx. Drawn by
// TimeSeriesChart.tsx; used by the block cell (queue depth, IOPS, throughput, latency) and meant
// for every other "X over time" view (scheduler switch rates, ...).
//
// Charts stacked in one cell share TIME_MARGIN, so their time axes line up pixel for pixel.
import { scaleLinear, scaleLog } from 'd3-scale';
import type { Axis } from '../logic/blockFormat';
import { timeAxis } from '../logic/blockFormat';

export interface Margin {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
export const TIME_MARGIN: Margin = { left: 52, right: 14, top: 6, bottom: 20 };

/** One line: a value per bucket of the grid (null: no value, a gap). */
export interface TimeLine {
  key: string;
  color: string;
  /** SVG stroke-dasharray ('' = solid). */
  dash: string;
  values: readonly (number | null)[];
  /** Stroke width (default 1.4); a line drawn wider also gets a white halo, to read over noisy lines. */
  width?: number;
}

export interface TimeSeriesInput {
  width: number;
  height: number;
  /** The visible time range, ns. */
  domain: [number, number];
  /** Bucket starts (ns) and width of the values. */
  grid: { t: readonly number[]; interval: number };
  lines: readonly TimeLine[];
  /** y axis (domain, ticks and their labels): logic/blockFormat.ts valueAxis / latencyAxis. */
  y: Axis;
  margin?: Margin;
}

export interface Plot {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface TimeSeriesLayout {
  width: number;
  height: number;
  plot: Plot;
  xTicks: { x: number; label: string }[];
  /** Unit of the time tick labels ('s', 'ms', ...). */
  xUnit: string;
  yTicks: { y: number; label: string }[];
  paths: { key: string; color: string; dash: string; d: string; width?: number }[];
  /** time (ns) -> x (px) */
  x: (t: number) => number;
  /** x (px) -> time (ns) */
  t: (x: number) => number;
  /** value -> y (px); NaN for values a log axis cannot show */
  y: (v: number) => number;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/**
 * An SVG path through the points (x, y) with gaps where y is not finite; coordinates rounded to a
 * tenth of a pixel (stable golden files, shorter paths). Runs of points on one pixel column are
 * kept: a spike inside a pixel must stay visible.
 */
export function linePath(xs: readonly number[], ys: readonly number[]): string {
  let d = '';
  let pen = false;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    if (!Number.isFinite(y) || !Number.isFinite(x)) {
      pen = false;
      continue;
    }
    const next = ys[i + 1];
    const prevOk = pen;
    if (!prevOk && (next === undefined || !Number.isFinite(next))) {
      // a lone point between gaps: a short horizontal dash so that it shows
      d += `M${r1(x - 1)},${r1(y)}h2`;
      continue;
    }
    d += `${pen ? 'L' : 'M'}${r1(x)},${r1(y)}`;
    pen = true;
  }
  return d;
}

export function layoutTimeSeries(inp: TimeSeriesInput): TimeSeriesLayout {
  const m = inp.margin ?? TIME_MARGIN;
  const plot: Plot = { left: m.left, top: m.top, right: inp.width - m.right, bottom: inp.height - m.bottom };
  const xs = scaleLinear().domain(inp.domain).range([plot.left, plot.right]);
  const ys =
    inp.y.kind === 'log'
      ? scaleLog().domain(inp.y.domain).range([plot.bottom, plot.top]).clamp(false)
      : scaleLinear().domain(inp.y.domain).range([plot.bottom, plot.top]);
  const y = (v: number) => (inp.y.kind === 'log' && !(v > 0) ? NaN : ys(v));
  const ta = timeAxis(inp.domain, Math.max(2, Math.round((plot.right - plot.left) / 90)));
  const half = inp.grid.interval / 2;
  // only the buckets near the visible range (kept answers of a wider range are clipped)
  const lo = inp.domain[0] - inp.grid.interval;
  const hi = inp.domain[1] + inp.grid.interval;
  const idx: number[] = [];
  inp.grid.t.forEach((t, i) => {
    if (t + half >= lo && t + half <= hi) idx.push(i);
  });
  const px = idx.map((i) => xs((inp.grid.t[i] ?? 0) + half));
  const paths = inp.lines.map((l) => ({
    key: l.key,
    color: l.color,
    dash: l.dash,
    ...(l.width !== undefined ? { width: l.width } : {}),
    d: linePath(
      px,
      idx.map((i) => {
        const v = l.values[i];
        return v === null || v === undefined ? NaN : y(v);
      }),
    ),
  }));
  return {
    width: inp.width,
    height: inp.height,
    plot,
    xTicks: ta.ticks.map((tk) => ({ x: r1(xs(tk.v)), label: tk.label })),
    xUnit: ta.unit,
    yTicks: inp.y.ticks.map((tk) => ({ y: r1(y(tk.v)), label: tk.label })).filter((tk) => Number.isFinite(tk.y)),
    paths,
    x: (t) => xs(t),
    t: (x) => xs.invert(x),
    y,
  };
}

/** The bucket of the grid that holds time t (ns), or -1. */
export function bucketAt(grid: { t: readonly number[]; interval: number }, t: number): number {
  const t0 = grid.t[0];
  if (t0 === undefined || !Number.isFinite(t)) return -1;
  const i = Math.floor((t - t0) / grid.interval);
  return i >= 0 && i < grid.t.length ? i : -1;
}
