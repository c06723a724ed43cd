// Layout of a latency histogram: log-scale bins (8 per doubling, from the block views) as shares of
// each series' I/Os, one outlined step area per series so that several captures overlay; markers
// at each series' p50 (hollow) and p99 (filled) above the plot. Pure; tests in charts.test.tsx.
import { scaleLinear, scaleLog } from 'd3-scale';
import { latencyAxis, valueAxis } from '../logic/blockFormat';
import type { Plot } from './timeSeries';

export interface HistInputSeries {
  key: string;
  color: string;
  bins: readonly { low: number; high: number; share: number }[];
  p50: number | null;
  p99: number | null;
}

export interface HistLayout {
  width: number;
  height: number;
  plot: Plot;
  xTicks: { x: number; label: string }[];
  yTicks: { y: number; label: string }[];
  series: { key: string; color: string; area: string; line: string; marks: { x: number; p: 'p50' | 'p99' }[] }[];
  /** x (px) -> latency (ns) */
  v: (x: number) => number;
  x: (v: number) => number;
}

export const HIST_MARGIN = { left: 44, right: 12, top: 12, bottom: 30 };
const r1 = (v: number) => Math.round(v * 10) / 10;

export function layoutLogHistogram(series: readonly HistInputSeries[], width: number, height: number): HistLayout {
  const m = HIST_MARGIN;
  const plot: Plot = { left: m.left, top: m.top, right: width - m.right, bottom: height - m.bottom };
  let lo = Infinity;
  let hi = 0;
  let top = 0;
  for (const s of series)
    for (const b of s.bins) {
      if (b.share <= 0) continue;
      lo = Math.min(lo, b.low);
      hi = Math.max(hi, b.high);
      top = Math.max(top, b.share);
    }
  if (!Number.isFinite(lo)) [lo, hi] = [1000, 1e6];
  const xa = latencyAxis(lo, hi, width >= 400 ? 3 : 1.5);
  const ya = valueAxis(top, 'share', 4);
  const x = scaleLog().domain(xa.domain).range([plot.left, plot.right]);
  const y = scaleLinear().domain(ya.domain).range([plot.bottom, plot.top]);
  const base = r1(plot.bottom);
  const out = series.map((s) => {
    let area = '';
    let line = '';
    let prevHigh: number | null = null;
    for (const b of s.bins) {
      const x0 = r1(x(b.low));
      const x1 = r1(x(b.high));
      const yy = r1(y(b.share));
      if (prevHigh === null || Math.abs(prevHigh - b.low) > b.low * 1e-9) {
        if (prevHigh !== null) {
          const xp = r1(x(prevHigh));
          area += `L${xp},${base}Z`;
          line += `L${xp},${base}`;
        }
        area += `M${x0},${base}`;
        line += `M${x0},${base}`;
      }
      area += `L${x0},${yy}L${x1},${yy}`;
      line += `L${x0},${yy}L${x1},${yy}`;
      prevHigh = b.high;
    }
    if (prevHigh !== null) {
      const xp = r1(x(prevHigh));
      area += `L${xp},${base}Z`;
      line += `L${xp},${base}`;
    }
    const marks: { x: number; p: 'p50' | 'p99' }[] = [];
    if (s.p50 !== null) marks.push({ x: r1(x(s.p50)), p: 'p50' });
    if (s.p99 !== null) marks.push({ x: r1(x(s.p99)), p: 'p99' });
    return { key: s.key, color: s.color, area, line, marks };
  });
  return {
    width,
    height,
    plot,
    xTicks: xa.ticks.map((t) => ({ x: r1(x(t.v)), label: t.label })),
    yTicks: ya.ticks.map((t) => ({ y: r1(y(t.v)), label: t.label })),
    series: out,
    v: (px) => x.invert(px),
    x: (v) => x(v),
  };
}
