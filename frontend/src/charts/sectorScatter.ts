// Layout of the sector-vs-time scatter (seekwatcher's plot): each I/O a point at its issue time and
// disk offset (first sector x 512 B), on the cell's shared time axis and margins. Pure; tests in
// charts.test.tsx. Drawn on a canvas by SectorScatter.tsx (tens of thousands of points).
import { scaleLinear } from 'd3-scale';
import { offsetAxis, timeAxis } from '../logic/blockFormat';
import { TIME_MARGIN, type Plot } from './timeSeries';

export interface ScatterInputSeries {
  key: string;
  color: string;
  t: readonly number[];
  sector: readonly number[];
  bytes: readonly (number | null)[];
  op: readonly string[];
}

export interface ScatterLayout {
  width: number;
  height: number;
  plot: Plot;
  xTicks: { x: number; label: string }[];
  xUnit: string;
  yTicks: { y: number; label: string }[];
  /** Unit of the offset tick labels ('MiB', 'GiB'). */
  yUnit: string;
  x: (t: number) => number;
  t: (x: number) => number;
  /** offset in bytes -> y */
  y: (bytes: number) => number;
}

const r1 = (v: number) => Math.round(v * 10) / 10;

export function layoutScatter(series: readonly ScatterInputSeries[], domain: [number, number], width: number, height: number): ScatterLayout {
  const m = TIME_MARGIN;
  const plot: Plot = { left: m.left, top: m.top, right: width - m.right, bottom: height - m.bottom };
  let lo = Infinity;
  let hi = -Infinity;
  for (const s of series)
    for (let i = 0; i < s.sector.length; i++) {
      const a = s.sector[i]! * 512;
      const b = a + (s.bytes[i] ?? 0);
      if (a < lo) lo = a;
      if (b > hi) hi = b;
    }
  if (!Number.isFinite(lo)) [lo, hi] = [0, 1024 * 1024];
  const ya = offsetAxis(lo, hi);
  const xs = scaleLinear().domain(domain).range([plot.left, plot.right]);
  const ys = scaleLinear().domain(ya.domain).range([plot.bottom, plot.top]);
  const ta = timeAxis(domain, Math.max(2, Math.round((plot.right - plot.left) / 90)));
  return {
    width,
    height,
    plot,
    xTicks: ta.ticks.map((t) => ({ x: r1(xs(t.v)), label: t.label })),
    xUnit: ta.unit,
    yTicks: ya.ticks.map((t) => ({ y: r1(ys(t.v)), label: t.label })),
    yUnit: ya.unit,
    x: (t) => xs(t),
    t: (x) => xs.invert(x),
    y: (b) => ys(b),
  };
}

/** The point nearest to (px, py) within `radius` pixels: [series index, point index], or null. */
export function nearestPoint(series: readonly ScatterInputSeries[], l: ScatterLayout, px: number, py: number, radius = 6): [number, number] | null {
  let best: [number, number] | null = null;
  let bestD = radius * radius;
  series.forEach((s, si) => {
    for (let i = 0; i < s.t.length; i++) {
      const dx = l.x(s.t[i]!) - px;
      if (dx > radius || dx < -radius) continue;
      const dy = l.y(s.sector[i]! * 512) - py;
      const d = dx * dx + dy * dy;
      if (d <= bestD) {
        bestD = d;
        best = [si, i];
      }
    }
  });
  return best;
}
