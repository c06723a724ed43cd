// Sweeps: the matrix (captures x parameter points) and the line chart (a metric against one swept
// parameter), shaped from the API's SweepMatrix. Pure; tests in sweep.test.ts.
//
// Statistics come from the server (backend/iolens/store/stats.py): mean, 95% CI of the mean, Welch's
// t-test against the baseline. Colours here follow significance, not range overlap: a change is
// green or red only when the t-test says p < 0.05 with at least 3 repeats on both sides.
import type { Schemas } from '../api/client';
import { captureColor } from './colors';
import { extentOf, formatRatio, formatValue, scaleFor } from './format';

export type SweepMatrix = Schemas['SweepMatrix'];
export type SweepCell = Schemas['SweepCell'];
export type SweepMetric = Schemas['SweepMetric'];
export type SweepRowData = Schemas['SweepRow'];

/** A value of any run_metrics unit: the app's usual units, plus seconds, bytes and the command's own. */
export function formatMetric(v: number | null | undefined, unit: string): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  switch (unit) {
    case 's':
      return formatValue(v * 1e9, 'ns');
    case 'B':
      return formatBytes(v);
    case 'KiB':
      return formatBytes(v * 1024);
    case 'count':
      return formatValue(v, '');
    default:
      return formatValue(v, unit);
  }
}

function formatBytes(v: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (i < units.length - 1 && Math.abs(v) >= 1024 ** (i + 1) * 0.99995) i++;
  const s = v / 1024 ** i;
  const d = i === 0 ? 0 : Math.max(0, Math.min(2, 2 - Math.floor(Math.log10(Math.abs(s) || 1))));
  return `${s.toFixed(d)} ${units[i]}`;
}

/** '+12.3 %', '-8.1 %', '±0.0 %', '×12.3' (as the fio table writes ratios). */
export function formatChange(ratio: number | null | undefined): string {
  return formatRatio(ratio);
}

/** Half-width of the 95% CI of a mean, relative to it: '±2.5 %'. */
export function ciText(c: SweepCell): string {
  if (c.mean === null || c.ci_high === null || !c.mean || c.n < 2) return '';
  const half = (Math.abs(c.ci_high - c.mean) / Math.abs(c.mean)) * 100;
  return `±${half < 99.95 ? half.toFixed(1) : half.toFixed(0)} %`;
}

export type SweepTone = 'better' | 'worse' | 'neutral' | 'same' | 'few' | 'none';

/** Tone of a cell against the baseline: by significance (p < alpha with enough repeats) and direction. */
export function sweepTone(c: SweepCell | undefined, better: SweepMetric['better'], isBaseline: boolean): SweepTone {
  if (!c || isBaseline || c.mean === null || c.ratio === null) return 'none';
  if (c.too_few) return 'few';
  if (!c.significant) return 'same';
  if (better === 'neutral') return 'neutral';
  return (c.ratio > 1) === (better === 'higher') ? 'better' : 'worse';
}

export interface HeaderCell {
  text: string;
  span: number;
  /** Last header row: the point key of the column. */
  key?: string;
}

export interface MatrixCellView {
  key: string;
  main: string;
  sub: string;
  mark: string;
  tone: SweepTone;
  title: string;
  empty: boolean;
}

export interface MatrixRowView {
  id: string;
  label: string;
  color: string;
  isBaseline: boolean;
  repeats: number;
  cells: MatrixCellView[];
}

export interface MatrixView {
  metric: SweepMetric;
  /** One header row per swept parameter; equal neighbours merged except in the last row. */
  headers: { param: string; cells: HeaderCell[] }[];
  rows: MatrixRowView[];
  points: string[];
  relative: boolean;
}

function pValue(p: number | null): string {
  if (p === null) return '';
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toPrecision(2)}`;
}

/** Tooltip of a cell: what the number is, its repeats and its test. */
export function cellTitle(label: string, point: string, c: SweepCell, m: SweepMetric, isBaseline: boolean, minRepeats: number): string {
  const lines = [`${label} · ${point}`, `${m.label}: mean ${formatMetric(c.mean, m.unit)} over ${c.n} repeat${c.n === 1 ? '' : 's'}`];
  if (c.ci_low !== null && c.ci_high !== null) lines.push(`95% CI of the mean: ${formatMetric(c.ci_low, m.unit)} – ${formatMetric(c.ci_high, m.unit)}`);
  if (c.stddev !== null) lines.push(`stddev ${formatMetric(c.stddev, m.unit)}, CV ${c.cv === null ? '–' : (c.cv * 100).toFixed(1) + ' %'}`);
  lines.push(`values: ${c.values.map((v) => formatMetric(v, m.unit)).join(', ')} (runs ${c.runs.join(', ')})`);
  if (!isBaseline) {
    if (c.ratio !== null) lines.push(`vs baseline: ${formatChange(c.ratio)} (ratio ${c.ratio.toFixed(3)})`);
    if (c.delta_low !== null && c.delta_high !== null) lines.push(`95% CI of the change: ${formatChange(1 + c.delta_low)} … ${formatChange(1 + c.delta_high)}`);
    if (c.p !== null) lines.push(`Welch's t-test: t = ${c.t?.toFixed(2)}, df = ${c.df?.toFixed(1)}, ${pValue(c.p)}${c.significant ? ' (significant)' : ''}`);
    if (c.too_few) lines.push(`too few repeats to mark a difference (${minRepeats} needed on both sides)`);
    else if (c.note) lines.push(c.note);
  } else if (c.n < minRepeats) lines.push(`too few repeats for a test (${minRepeats} needed)`);
  return lines.join('\n');
}

/** A cell's number without a unit the caption already gives ('81.61k' for IO/s); other units stay ('1.2 ms'). */
function compact(text: string, unit: string): string {
  return unit === 'IO/s' ? text.replace(/ IO\/s$/, '') : text;
}

/** The matrix table: captures as rows (baseline first), points as columns. */
export function buildMatrix(m: SweepMatrix, captures: readonly string[], relative: boolean): MatrixView {
  const metric = m.metric;
  const params = m.params.length ? m.params.map((p) => p.name) : ['point'];
  const headers = params.map((name, level) => {
    const cells: HeaderCell[] = [];
    m.points.forEach((p, i) => {
      const text = m.params.length ? (p.params[name] ?? '') : p.key;
      const last = level === params.length - 1;
      const prefix = (q: (typeof m.points)[number]) => params.slice(0, level + 1).map((n) => q.params[n] ?? '').join('\u0000');
      const prev = m.points[i - 1];
      if (!last && prev && prefix(prev) === prefix(p) && cells.length) cells[cells.length - 1]!.span += 1;
      else cells.push({ text, span: 1, ...(last ? { key: p.key } : {}) });
    });
    return { param: m.params.length ? name : '', cells };
  });
  const rows = m.rows.map((r) => {
    const isBaseline = r.capture === m.baseline;
    const cells = m.points.map((p): MatrixCellView => {
      const c = r.cells[p.key];
      if (!c || c.mean === null) return { key: p.key, main: '–', sub: '', mark: '', tone: 'none', title: `${r.label} · ${p.key}: no value`, empty: true };
      const title = cellTitle(r.label, p.key, c, metric, isBaseline, m.min_repeats);
      if (isBaseline || !relative || c.ratio === null) {
        return { key: p.key, main: compact(formatMetric(c.mean, metric.unit), metric.unit), sub: ciText(c), mark: '', tone: isBaseline ? 'none' : sweepTone(c, metric.better, false), title, empty: false };
      }
      const tone = sweepTone(c, metric.better, false);
      return { key: p.key, main: formatChange(c.ratio), sub: '', mark: c.significant ? '*' : c.too_few ? '?' : '', tone, title, empty: false };
    });
    return {
      id: r.capture,
      label: r.label,
      color: captureColor(Math.max(0, captures.indexOf(r.capture))),
      isBaseline,
      repeats: r.repeats,
      cells,
    };
  });
  return { metric, headers, rows, points: m.points.map((p) => p.key), relative };
}

// --- line chart: a metric against one swept parameter ------------------------------------------

export interface LinePoint {
  /** The x value (a value of the swept parameter). */
  x: string;
  mean: number;
  lo: number;
  hi: number;
  n: number;
  title: string;
}

export interface LineSeries {
  key: string;
  label: string;
  color: string;
  dash: string;
  points: LinePoint[];
}

export interface LineData {
  x: string;
  xValues: string[];
  /** Parameters other than x: fixed to a value, or null = one line per value. */
  others: { name: string; values: string[]; fixed: string | null }[];
  series: LineSeries[];
  metric: SweepMetric;
}

const DASHES = ['', '6 3', '2 2', '8 3 2 3', '1 3'];

/** The parameter to put on x by default: the last one whose values are all numbers, else the last. */
export function defaultX(m: SweepMatrix): string | null {
  const numeric = m.params.filter((p) => p.values.length > 1 && p.values.every((v) => /^-?\d+(\.\d+)?$/.test(v)));
  return (numeric[numeric.length - 1] ?? m.params.filter((p) => p.values.length > 1).pop() ?? m.params[m.params.length - 1])?.name ?? null;
}

/**
 * One line per capture and combination of the non-fixed other parameters, points in the order of
 * the x parameter's values. `fixed` maps a parameter to its chosen value; a parameter missing from
 * `fixed` takes its first value, and one fixed to null gets a line per value.
 */
export function buildLines(m: SweepMatrix, captures: readonly string[], x: string | null, fixed: Readonly<Record<string, string | null>>): LineData | Error {
  const xName = x && m.params.some((p) => p.name === x) ? x : defaultX(m);
  if (!xName) return new Error('these captures sweep no parameter');
  const xParam = m.params.find((p) => p.name === xName)!;
  const others = m.params
    .filter((p) => p.name !== xName)
    .map((p) => {
      const f = Object.prototype.hasOwnProperty.call(fixed, p.name) ? fixed[p.name]! : (p.values[0] ?? null);
      return { name: p.name, values: p.values, fixed: f !== null && p.values.includes(f) ? f : f === null ? null : (p.values[0] ?? null) };
    });
  const split = others.filter((o) => o.fixed === null);
  const combos: Record<string, string>[] = split.reduce<Record<string, string>[]>((acc, o) => acc.flatMap((c) => o.values.map((v) => ({ ...c, [o.name]: v }))), [{}]);
  const series: LineSeries[] = [];
  for (const r of m.rows) {
    const color = captureColor(Math.max(0, captures.indexOf(r.capture)));
    combos.forEach((combo, ci) => {
      const points: LinePoint[] = [];
      for (const xv of xParam.values) {
        const want: Record<string, string> = { [xName]: xv, ...combo };
        for (const o of others) if (o.fixed !== null) want[o.name] = o.fixed;
        const point = m.points.find((p) => Object.keys(p.params).length === Object.keys(want).length && Object.entries(want).every(([k, v]) => p.params[k] === v));
        const c = point ? r.cells[point.key] : undefined;
        if (!point || !c || c.mean === null) continue;
        points.push({
          x: xv,
          mean: c.mean,
          lo: c.ci_low ?? c.mean,
          hi: c.ci_high ?? c.mean,
          n: c.n,
          title: cellTitle(r.label, point.key, c, m.metric, r.capture === m.baseline, m.min_repeats),
        });
      }
      if (!points.length) return;
      const comboText = Object.entries(combo)
        .map(([k, v]) => `${k}=${v}`)
        .join(' ');
      // the repeats each mean is over, in the legend: 'n=3', 'n=2–3' (a point whose run failed has fewer)
      const [lo, hi] = extentOf(points.map((p) => p.n));
      const reps = lo === hi ? `n=${hi}` : `n=${lo}–${hi}`;
      series.push({ key: `${r.capture}|${comboText}`, label: `${comboText ? `${r.label} · ${comboText}` : r.label} (${reps})`, color, dash: DASHES[ci % DASHES.length] ?? '', points });
    });
  }
  return { x: xName, xValues: xParam.values, others, series, metric: m.metric };
}

/** Tick label of a y value in the metric's unit, short: '81.6k', '1.2 ms'. */
export function axisLabel(v: number, unit: string, top: number): string {
  if (v === 0) return '0';
  if (unit === 'IO/s' || unit === '/s' || unit === 'count' || unit === '') {
    const s = scaleFor(Math.abs(top) || 1, 'IO/s');
    const txt = (v / s.factor).toFixed(Math.max(0, Math.min(2, s.decimals - 1)));
    return `${txt.replace(/\.0+$/, '')}${s.suffix.replace(' IO/s', '')}`;
  }
  return formatMetric(v, unit);
}
