// The timeline's canvas drawing: the time axis and one row of a track. Text has places of its own,
// so that nothing written overlaps the bars or other text at any width: the row's name and its
// scale ("max 44.0") in the label column left of the plot (logic/timeline.ts rowTexts), the axis
// ticks above the rows kept inside the canvas, a track's "no data" note fitted to the plot.
// Drawing calls go through the Paint subset of CanvasRenderingContext2D, so tests record them
// (draw.test.ts).
import { formatValue } from '../../logic/format';
import { AXIS_H, LABEL_W, rowTexts, taskColour, tickText, ticks, xOf, type RowSpec, type Scale, type TextBox } from '../../logic/timeline';
import type { components } from '../../api/schema';

type Track = components['schemas']['TimelineTrack'];

export type Paint = Pick<
  CanvasRenderingContext2D,
  'font' | 'textBaseline' | 'textAlign' | 'fillStyle' | 'strokeStyle' | 'lineWidth' | 'globalAlpha' | 'fillText' | 'fillRect' | 'strokeRect' | 'measureText' | 'save' | 'restore' | 'beginPath' | 'rect' | 'clip'
>;

export const FONT = '11px Inter Variable, system-ui, sans-serif';
export const INK = '#3b4250';
export const MUTED = '#5b6270';
export const FAINT = '#8a909c';
export const ROW_BG = '#f7f8fa';
export const GRID = '#eef0f3';

/** The canvas's CSS width for a plot of `plotW` px. */
export const canvasWidth = (plotW: number) => LABEL_W + plotW + 8;

const measurer = (g: Paint) => (s: string) => g.measureText(s).width;

function put(g: Paint, b: TextBox) {
  g.fillStyle = b.colour === 'muted' ? MUTED : b.colour === 'faint' ? FAINT : INK;
  g.textAlign = b.align;
  g.textBaseline = 'middle';
  g.fillText(b.text, b.x, b.y);
}

/** Tick labels above the rows, each kept inside the canvas; grid lines down the rows. */
export function drawAxis(g: Paint, s: Scale, height: number) {
  const { t, step } = ticks(s.from, s.to, Math.max(2, Math.floor(s.width / 110)));
  g.font = FONT;
  g.textBaseline = 'middle';
  g.textAlign = 'left';
  const right = canvasWidth(s.width);
  for (const v of t) {
    const x = xOf(s, v);
    g.fillStyle = GRID;
    g.fillRect(x, AXIS_H, 1, height - AXIS_H);
    const text = tickText(v, step);
    const w = g.measureText(text).width;
    g.fillStyle = MUTED;
    g.fillText(text, Math.min(Math.max(x - w / 2, 2), right - w - 2), AXIS_H / 2);
  }
}

/** The values a chart row draws (null: no value in that column). */
export function rowValues(r: RowSpec, t: Track): (number | null)[] {
  if (r.series === 'depth') return t.depth ?? [];
  if (r.series === 'iops') return t.iops ?? [];
  if (r.track === 'fio') {
    return Array.from({ length: t.buckets }, (_, i) => {
      const v = (t.ddirs ?? []).map((d) => d.iops[i]).filter((v): v is number => v !== null && v !== undefined);
      return v.length ? v.reduce((a, b) => a + b, 0) : null;
    });
  }
  if (r.track === 'samples') return t.counts ?? [];
  return [];
}

const COLOURS: Record<string, string> = { depth: '#3a6fb0', iops: '#2a8a57', fio: '#c0612b', samples: '#8a4fbf' };

/** A chart row's scale, its tallest column with the unit, as the timeline export writes it
 *  (exports/timeline.py series_of; one number rule, testdata/vectors/number-format.json): queue
 *  depth in I/Os in flight ('max 32 I/Os', an integer as an integer), IOPS in IO/s, perf samples per
 *  second of the column. */
export function rowMaxText(r: RowSpec, t: Track, max: number): string {
  if (r.series === 'depth') return `max ${formatValue(max, 'I/Os')}`;
  if (r.track === 'samples') return `max ${formatValue(max / (t.bucket_ns / 1e9), '/s')}`;
  return `max ${formatValue(max, 'IO/s')}`;
}

/** One row: its name (and scale) in the label column, its data or its note in the plot. */
export function drawRow(g: Paint, r: RowSpec, s: Scale, t: Track | undefined) {
  g.font = FONT;
  g.fillStyle = ROW_BG;
  g.fillRect(s.left, r.y, s.width, r.h);
  const chart = r.empty === null && r.track !== 'cpu' && t?.available ? rowValues(r, t) : null;
  const max = chart ? Math.max(1e-9, ...chart.map((v) => v ?? 0)) : null;
  for (const b of rowTexts(r, max === null || !t ? null : rowMaxText(r, t, max), s, measurer(g))) put(g, b);
  if (r.empty !== null || !t || !t.available) return;
  const x = (i: number) => xOf(s, t.grid_lo_ns + i * t.bucket_ns);
  const cw = Math.max(1, (t.bucket_ns / (s.to - s.from)) * s.width);
  g.save();
  g.beginPath();
  g.rect(s.left, r.y, s.width, r.h);
  g.clip();
  if (r.track === 'cpu') {
    const c = t.cpus?.find((v) => v.cpu === r.cpu);
    const names = t.names ?? [];
    if (c) {
      for (let i = 0; i < c.busy.length; i++) {
        const b = c.busy[i]!;
        if (b <= 0) continue;
        g.fillStyle = taskColour(c.task[i]!, names);
        const h = Math.max(2, b * r.h);
        g.fillRect(x(i), r.y + r.h - h, cw + 0.5, h);
      }
    }
  } else if (chart && max !== null) {
    g.fillStyle = COLOURS[r.series ?? r.track] ?? '#3a6fb0';
    g.globalAlpha = 0.85;
    for (let i = 0; i < chart.length; i++) {
      const v = chart[i];
      if (v === null || v === undefined || v <= 0) continue;
      const h = Math.max(1, (v / max) * (r.h - 4));
      g.fillRect(x(i), r.y + r.h - h, cw + 0.5, h);
    }
    g.globalAlpha = 1;
  }
  g.restore();
}
