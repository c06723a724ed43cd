// The timeline cell's layout: rows of tracks on one time axis, the time under a pixel, the brushed
// range, the colours of task groups. Pure; tests in timeline.test.ts.
import { TABLEAU10 } from './colors';

export const LABEL_W = 118;
export const AXIS_H = 20;
export const CPU_ROW = 14;
export const CHART_ROW = 44;
export const EMPTY_ROW = 20;

export type TrackKind = 'cpu' | 'block' | 'fio' | 'samples';

export interface RowSpec {
  key: string;
  track: TrackKind;
  label: string;
  /** px from the top of the plot */
  y: number;
  h: number;
  /** null: drawn from data; a string: the track has no data, this says why */
  empty: string | null;
  cpu?: number;
  series?: 'depth' | 'iops';
}

export interface TrackShape {
  track: TrackKind;
  available: boolean;
  note: string | null;
  cpus?: number[];
}

/** Rows in track order: one per CPU, the device's queue depth and IOPS, fio's IOPS, samples. */
export function layoutRows(tracks: TrackShape[]): { rows: RowSpec[]; height: number } {
  const rows: RowSpec[] = [];
  let y = AXIS_H;
  const push = (r: Omit<RowSpec, 'y'>) => {
    rows.push({ ...r, y });
    y += r.h + 2;
  };
  for (const t of tracks) {
    if (!t.available || (t.track === 'cpu' && !(t.cpus ?? []).length)) {
      push({ key: `${t.track}-none`, track: t.track, label: TRACK_NAMES[t.track], h: EMPTY_ROW, empty: t.note ?? 'no data in this run' });
      continue;
    }
    if (t.track === 'cpu') for (const c of t.cpus!) push({ key: `cpu${c}`, track: 'cpu', label: `CPU ${c}`, h: CPU_ROW, empty: null, cpu: c });
    else if (t.track === 'block') {
      push({ key: 'depth', track: 'block', label: 'queue depth', h: CHART_ROW, empty: null, series: 'depth' });
      push({ key: 'iops', track: 'block', label: 'device IOPS', h: CHART_ROW, empty: null, series: 'iops' });
    } else push({ key: t.track, track: t.track, label: TRACK_NAMES[t.track], h: CHART_ROW, empty: null });
  }
  return { rows, height: y };
}

/** A text placed on the canvas: middle baseline at y; aligned at x on its left or right end. */
export interface TextBox {
  text: string;
  x: number;
  y: number;
  align: 'left' | 'right';
  colour: 'ink' | 'muted' | 'faint';
}

/** Text line height of the canvas's 11 px font. */
export const LINE_H = 13;

/** `text`, cut with an ellipsis to at most `maxW` px ('' when not even the ellipsis fits). */
export function fitText(text: string, maxW: number, measure: (s: string) => number): string {
  if (measure(text) <= maxW) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (measure(text.slice(0, mid).trimEnd() + '…') <= maxW) lo = mid;
    else hi = mid - 1;
  }
  return lo > 0 ? text.slice(0, lo).trimEnd() + '…' : measure('…') <= maxW ? '…' : '';
}

/** The texts of one row: its name in the label column, right-aligned; a chart row's scale (`value`,
 *  "max 44.0") on a second line under the name, in the label column too, never over the bars; a
 *  track without data its note in the plot, cut to the plot's width. */
export function rowTexts(r: RowSpec, value: string | null, s: Scale, measure: (s: string) => number): TextBox[] {
  const right = LABEL_W - 8;
  const fit = (t: string) => fitText(t, right - 4, measure);
  const mid = r.y + r.h / 2;
  const out: TextBox[] = [];
  if (value !== null && r.h >= 2 * LINE_H + 4) {
    out.push({ text: fit(r.label), x: right, y: mid - LINE_H / 2, align: 'right', colour: 'ink' });
    out.push({ text: fit(value), x: right, y: mid + LINE_H / 2, align: 'right', colour: 'muted' });
  } else out.push({ text: fit(r.label), x: right, y: mid, align: 'right', colour: 'ink' });
  if (r.empty !== null) out.push({ text: fitText(r.empty, s.width - 12, measure), x: s.left + 6, y: mid, align: 'left', colour: 'faint' });
  return out.filter((b) => b.text !== '');
}

export const TRACK_NAMES: Record<TrackKind, string> = { cpu: 'CPUs (sched)', block: 'block device', fio: "fio's IOPS log", samples: 'perf samples' };

export interface Scale {
  from: number;
  to: number;
  left: number;
  width: number;
}

export const xOf = (s: Scale, t: number) => s.left + ((t - s.from) / (s.to - s.from)) * s.width;
export const tOf = (s: Scale, x: number) => s.from + ((Math.min(Math.max(x, s.left), s.left + s.width) - s.left) / s.width) * (s.to - s.from);

/** A drag from x0 to x1 as a time range, or null for a click (under 4 px). Rounded to the µs. */
export function brushed(s: Scale, x0: number, x1: number): [number, number] | null {
  if (Math.abs(x1 - x0) < 4) return null;
  const a = Math.round(tOf(s, Math.min(x0, x1)) / 1000) * 1000;
  const b = Math.round(tOf(s, Math.max(x0, x1)) / 1000) * 1000;
  return b > a ? [Math.max(0, a), b] : null;
}

/** Tick times: a round step (1, 2, 5 x 10^k ns) giving about n ticks, and never fewer than two
 *  (4.004 s in 2 ticks: a step of 2 s, not 5 s, which would leave "0 s" alone). */
export function ticks(from: number, to: number, n = 8): { t: number[]; step: number } {
  const raw = (to - from) / Math.max(1, n);
  const p = 10 ** Math.floor(Math.log10(Math.max(1, raw)));
  const steps = [0.5, 1, 2, 5, 10].map((m) => m * p);
  let k = steps.findIndex((v) => v >= raw);
  if (k < 0) k = steps.length - 1;
  while (k > 0 && Math.floor(to / steps[k]!) - Math.ceil(from / steps[k]!) + 1 < 2) k--;
  const step = steps[k]!;
  const out: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return { t: out, step };
}

/** "1.5 s", "250 ms", "20 µs" for a tick, with the step's precision. */
export function tickText(t: number, step: number): string {
  const digits = (unit: number) => Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9));
  if (step >= 1e8) return `${(t / 1e9).toFixed(digits(1e9))} s`;
  if (step >= 1e5) return `${(t / 1e6).toFixed(digits(1e6))} ms`;
  return `${(t / 1e3).toFixed(digits(1e3))} µs`;
}

/** Colour of the i-th task group (busiest first); 'other' and unknown grey. */
export function taskColour(i: number, names: readonly string[]): string {
  if (i < 0) return 'transparent';
  if (names[i] === 'other' || i >= 10) return '#9aa1ad';
  return TABLEAU10[i]!;
}

/**
 * The selection [from, to) (ns since a run's start) on a track of that run whose first event lies
 * `offsetNs` after the run's start (samples_offset_ns, sched_offset_ns; negative: before it): ns since
 * the track's first event, clamped to it and never empty. Each run is moved by its own offset, never
 * by the brushed run's. The exports and the scheduler views keep the same rule
 * (backend/iolens/store/rules/run_span.py; testdata/vectors/run-span.json).
 */
export function runSpan(from: number, to: number, offsetNs: number): [number, number] {
  const lo = Math.max(0, from - offsetNs);
  return [lo, Math.max(lo + 1, to - offsetNs)];
}
