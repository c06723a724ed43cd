// Layout of a SQL cell's chart (line, bar or scatter of y columns against x). Pure; tests in
// sqlChart.test.ts. Same rules as the HTML export (backend iolens/exports/svgchart.py): x is
// linear when every x value is a number (line, scatter; sorted by x), otherwise categorical in row
// order; bars are grouped per x value and start at 0.
import { format as d3format } from 'd3-format';
import { scaleBand, scaleLinear, scalePoint } from 'd3-scale';
import { line } from 'd3-shape';
import type { SqlChartSpec } from '../api/client';
import { captureColor } from '../logic/colors';
import { extentOf } from '../logic/format';

export interface ChartPoint {
  x: number;
  y: number;
  title: string;
}
export interface ChartBar {
  x: number;
  y: number;
  w: number;
  h: number;
  title: string;
}
export interface ChartSeries {
  name: string;
  color: string;
  path: string | null;
  points: ChartPoint[];
  bars: ChartBar[];
}
export interface ChartLayout {
  width: number;
  height: number;
  plot: { left: number; top: number; right: number; bottom: number };
  xTicks: { x: number; label: string }[];
  /** Characters an x tick label may use before it is cut (from the spacing of the ticks). */
  xLabelChars: number;
  yTicks: { y: number; label: string }[];
  series: ChartSeries[];
  xLabel: string;
  /** Rows whose x or y was not a number and were left out. */
  skipped: number;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const short = (v: number) => (Math.abs(v) >= 1000 ? d3format('.3~s')(v) : d3format('.3~r')(v)).replace(/−/g, '-');
export const cellText = (v: unknown): string => (v === null || v === undefined ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** Columns that hold numbers in every non-null row (what can go on a y axis). */
export function numericColumns(columns: readonly string[], rows: readonly unknown[][]): string[] {
  return columns.filter((_, i) => rows.some((r) => num(r[i]) !== null) && rows.every((r) => r[i] === null || num(r[i]) !== null));
}

export function layoutSqlChart(columns: readonly string[], rows: readonly unknown[][], spec: SqlChartSpec, width = 720, height = 240): ChartLayout | Error {
  const xi = columns.indexOf(spec.x);
  if (xi < 0) return new Error(`the x column '${spec.x}' is not in the result`);
  const ys = spec.y.map((y) => ({ name: y, i: columns.indexOf(y) })).filter((y) => y.i >= 0);
  if (!ys.length) return new Error(`the y column${spec.y.length > 1 ? 's' : ''} ${spec.y.join(', ')} ${spec.y.length > 1 ? 'are' : 'is'} not in the result`);
  const plot = { left: 56, top: 10, right: width - 14, bottom: height - 32 };
  const values = rows.flatMap((r) => ys.map((y) => num(r[y.i])).filter((v): v is number => v !== null));
  if (!values.length) return new Error('no numbers in the y columns');
  let [lo, hi] = extentOf(values);
  if (spec.mark === 'bar') {
    lo = Math.min(lo, 0);
    hi = Math.max(hi, 0);
  }
  if (lo === hi) {
    lo -= Math.abs(lo) * 0.1 || 1;
    hi += Math.abs(hi) * 0.1 || 1;
  }
  const y = scaleLinear().domain([lo, hi]).nice(5).range([plot.bottom, plot.top]);
  const yTicks = y.ticks(5).map((t) => ({ y: Math.round(y(t) * 10) / 10, label: short(t) }));
  const r1 = (v: number) => Math.round(v * 10) / 10;

  const xsNumeric = spec.mark !== 'bar' && rows.some((r) => num(r[xi]) !== null) && rows.every((r) => r[xi] === null || num(r[xi]) !== null);
  let skipped = 0;
  const series: ChartSeries[] = [];
  let xTicks: ChartLayout['xTicks'];
  if (xsNumeric) {
    const xv = rows.map((r) => num(r[xi])).filter((v): v is number => v !== null);
    const x = scaleLinear().domain(extentOf(xv)).nice(6).range([plot.left, plot.right]);
    xTicks = x.ticks(6).map((t) => ({ x: r1(x(t)), label: short(t) }));
    ys.forEach((s, k) => {
      const pts = rows
        .map((r) => [num(r[xi]), num(r[s.i]), r] as const)
        .filter((p): p is readonly [number, number, unknown[]] => {
          const ok = p[0] !== null && p[1] !== null;
          if (!ok) skipped++;
          return ok;
        })
        .sort((a, b) => a[0] - b[0]);
      const points = pts.map(([a, b]) => ({ x: r1(x(a)), y: r1(y(b)), title: `${spec.x}=${cellText(a)}, ${s.name}=${cellText(b)}` }));
      const path = spec.mark === 'line' && points.length > 1 ? line<ChartPoint>((p) => p.x, (p) => p.y)(points) : null;
      series.push({ name: s.name, color: captureColor(k), path, points, bars: [] });
    });
  } else {
    const cats = [...new Set(rows.map((r) => cellText(r[xi])))];
    const every = Math.max(1, Math.ceil(cats.length / 12));
    if (spec.mark === 'bar') {
      const band = scaleBand().domain(cats).range([plot.left, plot.right]).paddingInner(0.2).paddingOuter(0.1);
      const inner = scaleBand().domain(ys.map((s) => s.name)).range([0, band.bandwidth()]).padding(0.05);
      xTicks = cats.filter((_, i) => i % every === 0).map((c) => ({ x: r1((band(c) ?? 0) + band.bandwidth() / 2), label: c }));
      ys.forEach((s, k) => {
        const bars: ChartBar[] = [];
        for (const r of rows) {
          const v = num(r[s.i]);
          if (v === null) {
            skipped++;
            continue;
          }
          const top = y(Math.max(v, 0));
          const bottom = y(Math.min(v, 0));
          bars.push({
            x: r1((band(cellText(r[xi])) ?? 0) + (inner(s.name) ?? 0)),
            y: r1(top),
            w: r1(Math.max(1, inner.bandwidth())),
            h: r1(Math.max(0.5, bottom - top)),
            title: `${spec.x}=${cellText(r[xi])}, ${s.name}=${cellText(v)}`,
          });
        }
        series.push({ name: s.name, color: captureColor(k), path: null, points: [], bars });
      });
    } else {
      const x = scalePoint().domain(cats).range([plot.left, plot.right]).padding(0.5);
      xTicks = cats.filter((_, i) => i % every === 0).map((c) => ({ x: r1(x(c) ?? 0), label: c }));
      ys.forEach((s, k) => {
        const points: ChartPoint[] = [];
        for (const r of rows) {
          const v = num(r[s.i]);
          if (v === null) {
            skipped++;
            continue;
          }
          points.push({ x: r1(x(cellText(r[xi])) ?? 0), y: r1(y(v)), title: `${spec.x}=${cellText(r[xi])}, ${s.name}=${cellText(v)}` });
        }
        const path = spec.mark === 'line' && points.length > 1 ? line<ChartPoint>((p) => p.x, (p) => p.y)(points) : null;
        series.push({ name: s.name, color: captureColor(k), path, points, bars: [] });
      });
    }
  }
  const spacing = xTicks.length > 1 ? Math.abs((xTicks[1]?.x ?? 0) - (xTicks[0]?.x ?? 0)) : plot.right - plot.left;
  const xLabelChars = Math.max(4, Math.floor(spacing / 6.2) - 1);
  return { width, height, plot, xTicks, xLabelChars, yTicks, series, xLabel: spec.x, skipped };
}
