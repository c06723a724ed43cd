// Layout of the request size distribution: one group of bars per power-of-two size class
// ([4 KiB, 8 KiB) ...), one bar per series, height = share of the series' I/Os. Pure; tests in
// charts.test.tsx.
import { scaleBand, scaleLinear } from 'd3-scale';
import { formatSize, valueAxis } from '../logic/blockFormat';
import type { Plot } from './timeSeries';

export interface SizeInputSeries {
  key: string;
  color: string;
  bins: readonly { low: number; high: number; share: number }[];
}

export interface SizeLayout {
  width: number;
  height: number;
  plot: Plot;
  /** One per size class, in increasing size. */
  groups: { low: number; high: number; x: number; w: number; label: string }[];
  yTicks: { y: number; label: string }[];
  bars: { key: string; group: number; color: string; x: number; y: number; w: number; h: number }[];
}

export const SIZE_MARGIN = { left: 44, right: 12, top: 12, bottom: 30 };
const r1 = (v: number) => Math.round(v * 10) / 10;

/** '4K', '512', '1M', '0' (no data): a size class's short label. */
export function sizeClassLabel(low: number): string {
  if (low === 0) return '0';
  return formatSize(low).replace(' B', '').replace(/ ([KMGTP])iB/, '$1');
}

export function layoutSizeBars(series: readonly SizeInputSeries[], width: number, height: number): SizeLayout {
  const m = SIZE_MARGIN;
  const plot: Plot = { left: m.left, top: m.top, right: width - m.right, bottom: height - m.bottom };
  const lows = [...new Set(series.flatMap((s) => s.bins.filter((b) => b.share > 0).map((b) => b.low)))].sort((a, b) => a - b);
  const highOf = new Map<number, number>();
  for (const s of series) for (const b of s.bins) highOf.set(b.low, b.high);
  const top = Math.max(0, ...series.flatMap((s) => s.bins.map((b) => b.share)));
  const ya = valueAxis(top, 'share', 4);
  const y = scaleLinear().domain(ya.domain).range([plot.bottom, plot.top]);
  const band = scaleBand<number>().domain(lows).range([plot.left, plot.right]).paddingInner(0.25).paddingOuter(0.15);
  // bars no wider than 28 px: a lone size class should not become one huge block
  const inner = Math.min(band.bandwidth(), 28 * Math.max(1, series.length));
  const sub = scaleBand<string>().domain(series.map((s) => s.key)).range([0, inner]).paddingInner(0.08);
  const groups = lows.map((low) => ({ low, high: highOf.get(low) ?? low * 2, x: r1((band(low) ?? 0) + band.bandwidth() / 2), w: r1(band.bandwidth()), label: sizeClassLabel(low) }));
  const bars: SizeLayout['bars'] = [];
  series.forEach((s) => {
    for (const b of s.bins) {
      const gi = lows.indexOf(b.low);
      if (gi < 0 || b.share <= 0) continue;
      const gx = (band(b.low) ?? 0) + (band.bandwidth() - inner) / 2;
      const yy = y(b.share);
      bars.push({ key: `${s.key}|${b.low}`, group: gi, color: s.color, x: r1(gx + (sub(s.key) ?? 0)), y: r1(yy), w: r1(Math.max(1, sub.bandwidth())), h: r1(Math.max(1, plot.bottom - yy)) });
    }
  });
  return { width, height, plot, groups, yTicks: ya.ticks.map((t) => ({ y: r1(y(t.v)), label: t.label })), bars };
}
