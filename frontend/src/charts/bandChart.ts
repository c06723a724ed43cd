// Layout of a line chart with a band around each line: a metric against a swept parameter (the
// band is the 95% confidence interval of each point's mean), or a fio log over time (the band is
// the min–max over the repeats). Pure; tests in bandChart.test.ts. Drawn by BandChart.tsx.
//
// x is categorical (the parameter's values, evenly spaced, in plan order) or linear (seconds).
// y starts at 0 when every value is >= 0, so that a change reads as the size it is; bands are then
// cut at 0.
import { scaleLinear, scalePoint } from 'd3-scale';
import { area, line } from 'd3-shape';

export interface BandPointIn {
  x: number | string;
  mean: number;
  lo: number;
  hi: number;
  title: string;
}

export interface BandSeriesIn {
  key: string;
  label: string;
  color: string;
  dash: string;
  points: readonly BandPointIn[];
}

export interface BandChartInput {
  width: number;
  height: number;
  x: { kind: 'category'; values: readonly string[] } | { kind: 'linear'; unit: string };
  series: readonly BandSeriesIn[];
  /** Label of a y value (the metric's unit), given the largest value on the axis. */
  yLabel: (v: number, top: number) => string;
  xTitle: string;
  /** Draw the bands (default true). */
  bands?: boolean;
}

export interface BandSeriesOut {
  key: string;
  label: string;
  color: string;
  dash: string;
  line: string | null;
  band: string | null;
  dots: { x: number; y: number; title: string }[];
}

export interface BandChartLayout {
  width: number;
  height: number;
  plot: { left: number; top: number; right: number; bottom: number };
  xTicks: { x: number; label: string }[];
  yTicks: { y: number; label: string }[];
  series: BandSeriesOut[];
  xTitle: string;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

export function layoutBandChart(input: BandChartInput): BandChartLayout | Error {
  const { width, height } = input;
  const all = input.series.flatMap((s) => s.points);
  if (!all.length) return new Error('no values to draw');
  const bands = input.bands ?? true;
  // Values that cannot be negative (every mean >= 0: IOPS, latency, time) keep their bands above 0:
  // the interval of a mean of two or three noisy repeats can reach below it.
  const floor = all.every((p) => p.mean >= 0) ? 0 : -Infinity;
  const low = (p: BandPointIn) => Math.max(floor, p.lo);
  const ys = all.flatMap((p) => (bands ? [low(p), p.hi, p.mean] : [p.mean])).filter((v) => Number.isFinite(v));
  let lo = Math.min(...ys);
  let hi = Math.max(...ys);
  if (lo >= 0) lo = 0;
  if (lo === hi) hi = lo + (Math.abs(lo) || 1);
  const plot = { left: 62, top: 12, right: width - 16, bottom: height - 36 };
  const y = scaleLinear().domain([lo, hi]).nice(5).range([plot.bottom, plot.top]);
  const top = Math.max(Math.abs(y.domain()[0] ?? 0), Math.abs(y.domain()[1] ?? 0));
  const yTicks = y.ticks(5).map((t) => ({ y: r1(y(t)), label: input.yLabel(t, top) }));

  let xOf: (v: number | string) => number;
  let xTicks: { x: number; label: string }[];
  if (input.x.kind === 'category') {
    const cats = input.x.values;
    const sx = scalePoint<string>().domain([...cats]).range([plot.left, plot.right]).padding(0.4);
    xOf = (v) => sx(String(v)) ?? plot.left;
    xTicks = cats.map((c) => ({ x: r1(sx(c) ?? 0), label: c }));
  } else {
    const xs = all.map((p) => Number(p.x));
    const sx = scaleLinear().domain([Math.min(0, ...xs), Math.max(...xs) || 1]).nice(8).range([plot.left, plot.right]);
    xOf = (v) => sx(Number(v));
    const unit = input.x.unit;
    xTicks = sx.ticks(8).map((t) => ({ x: r1(sx(t)), label: `${+t.toFixed(3)}${unit}` }));
  }

  const series = input.series.map((s): BandSeriesOut => {
    const pts = [...s.points].sort((a, b) => xOf(a.x) - xOf(b.x));
    const dots = pts.map((p) => ({ x: r1(xOf(p.x)), y: r1(y(p.mean)), title: p.title }));
    const lineD = pts.length > 1 ? line<BandPointIn>((p) => r1(xOf(p.x)), (p) => r1(y(p.mean)))(pts) : null;
    const bandD = bands && pts.length > 1 && pts.some((p) => p.hi > p.lo)
      ? area<BandPointIn>((p) => r1(xOf(p.x)), (p) => r1(y(low(p))), (p) => r1(y(p.hi)))(pts)
      : null;
    return { key: s.key, label: s.label, color: s.color, dash: s.dash, line: lineD, band: bandD, dots };
  });
  return { width, height, plot, xTicks, yTicks, series, xTitle: input.xTitle };
}
