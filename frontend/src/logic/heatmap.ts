// The subsecond-offset heatmap (FlameScope): layout, colour scale and the time range of a selection
// of cells. Pure; tests in heatmap.test.ts.
//
// Cells are column-major as the API sends them (views/flame_heatmap.py): index = col x rows + row,
// column = a second since the run's first sample, row = a fraction of it, top to bottom. A
// selection goes from one cell to another in time order (down a column, then the next column),
// and is the time range [from, to) of the flame graph, ns since the run's first sample.
import { interpolateYlOrRd } from './colors';

export const SECOND_NS = 1_000_000_000;

export interface HeatmapGrid {
  cols: number;
  rows: number;
  rowNs: number;
}

export interface HeatmapLayout {
  /** Plot area inside the element, px. */
  left: number;
  top: number;
  cellW: number;
  cellH: number;
  width: number;
  height: number;
}

/** Cell sizes for a plot of `width` px: columns at least 2 px wide, at most 48; rows 2-12 px, the
 *  plot about 250 px high. */
export function heatmapLayout(g: HeatmapGrid, width: number, left = 44, top = 4): HeatmapLayout {
  const cellW = Math.max(2, Math.min(48, Math.floor((width - left - 8) / Math.max(1, g.cols))));
  const cellH = Math.max(2, Math.min(12, Math.floor(250 / g.rows)));
  return { left, top, cellW, cellH, width: left + cellW * g.cols, height: top + cellH * g.rows };
}

/** The cell under a point of the plot, or null outside it. */
export function cellAt(g: HeatmapGrid, l: HeatmapLayout, x: number, y: number): number | null {
  const col = Math.floor((x - l.left) / l.cellW);
  const row = Math.floor((y - l.top) / l.cellH);
  if (col < 0 || col >= g.cols || row < 0 || row >= g.rows) return null;
  return col * g.rows + row;
}

/** The time range [from, to) of the cells from `a` to `b` (either order), ns since the first sample. */
export function rangeOfCells(g: HeatmapGrid, a: number, b: number): { from: number; to: number } {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  const start = (i: number) => Math.floor(i / g.rows) * SECOND_NS + (i % g.rows) * g.rowNs;
  return { from: start(lo), to: start(hi) + g.rowNs };
}

/** The cells a time range covers (wholly or in part): [first, last], or null when it misses the grid. */
export function cellsOfRange(g: HeatmapGrid, from: number | null, to: number | null): [number, number] | null {
  const n = g.cols * g.rows;
  const idx = (t: number) => Math.floor(t / SECOND_NS) * g.rows + Math.floor((t % SECOND_NS) / g.rowNs);
  const first = from === null ? 0 : idx(from);
  const last = to === null ? n - 1 : idx(Math.max(0, to - 1));
  if (first > n - 1 || last < first) return null;
  return [first, Math.min(last, n - 1)];
}

/** Sequential colour of a count: empty cells near white, then yellow to dark red by count / max
 *  (square root, so that sparse cells stay visible beside a busy second, as FlameScope scales). */
export function heatColour(count: number, max: number): string {
  if (count <= 0 || max <= 0) return '#f4f5f7';
  return interpolateYlOrRd(0.12 + 0.88 * Math.sqrt(Math.min(1, count / max)));
}

/** Legend stops: counts at which to show a swatch (0, then a few up to max). */
export function legendStops(max: number): number[] {
  if (max <= 0) return [0];
  const qs = [0.01, 0.1, 0.25, 0.5, 1].map((q) => Math.max(1, Math.round(q * max)));
  return [0, ...new Set(qs)];
}

/** Text of a range, seconds with ms. */
export function rangeText(from: number | null, to: number | null): string {
  const s = (ns: number) => (ns / SECOND_NS).toFixed(3);
  return `${from === null ? '0.000' : s(from)}–${to === null ? 'end' : s(to)} s`;
}
