// The block views' answers (GET /api/block/..., backend/iolens/views/block.py) shaped into what the
// charts draw: one line per capture, run and measure, coloured by capture; histograms as shares;
// and the loss warnings of every series, gathered once. Pure; tests in blockSeries.test.ts.
import type { Schemas } from '../api/client';
import { captureColor } from './colors';
import { formatSize } from './blockFormat';
import { LATENCY_MEASURES, type LatencyMeasure } from './blockLatency';

export type BlockRun = Schemas['BlockRunPublic'];
export type BlockQueueDepth = Schemas['BlockQueueDepth'];
export type BlockIops = Schemas['BlockIops'];
export type BlockLatency = Schemas['BlockLatency'];
export type BlockLatencyHistogram = Schemas['BlockLatencyHistogram'];
export type BlockSizes = Schemas['BlockSizes'];
export type BlockScatter = Schemas['BlockScatter'];
export type BlockFioIops = Schemas['BlockFioIops'];
/** What every series of every block view carries (BlockSeriesInfo in backend/iolens/models/block.py). */
export type BlockSeriesInfo = Omit<Schemas['BlockDepthSeries'], 'depth'>;

/** Who a series is: what every hover text and legend entry says about it. */
export interface SeriesMeta {
  /** `CAPTURE:RUN`, unique per series. */
  key: string;
  captureId: string;
  runId: string;
  /** The capture's label ('ext4 / r001' when it has several runs with block data). */
  label: string;
  /** 'major,minor' of the device, or null when every device is summed. */
  device: string | null;
  source: string;
  eventsLost: boolean;
  color: string;
}

/** One line of a time-series chart: values per bucket of the response's grid. */
export interface LineSeries {
  key: string;
  meta: SeriesMeta;
  /** What the line measures, when a chart draws several per series ('p99', 'write'); '' otherwise. */
  measure: string;
  color: string;
  /** SVG stroke-dasharray ('' = solid). */
  dash: string;
  values: (number | null)[];
  /** Hover detail, when not the series' usual one (run, device, source). */
  detail?: string;
  /** Stroke width, when not the default (fio's line: wider, over a halo). */
  width?: number;
}

export interface TimeGrid {
  /** Bucket starts, ns since run start. */
  t: number[];
  interval: number;
}

/** Mix a #rrggbb colour toward white (k > 0) or black (k < 0) by |k| (0..1). */
export function mix(hex: string, k: number): string {
  const m = /^#?([0-9a-f]{6})$/i.exec(hex);
  if (!m) return hex;
  const n = parseInt(m[1]!, 16);
  const ch = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => Math.round(k >= 0 ? c + (255 - c) * k : c * (1 + k)));
  return `#${ch.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
}

// A capture's second, third, ... run: lighter, darker, lighter still (same hue as the capture).
const RUN_SHADES = [0, 0.4, -0.3, 0.6, -0.5];

/**
 * The colour of each series: the capture's colour (by its position in the notebook, as everywhere
 * in iolens), shaded for its second and later runs.
 */
export function seriesMetas(series: readonly BlockSeriesInfo[], captures: readonly string[]): SeriesMeta[] {
  const runIndex = new Map<string, number>();
  return series.map((s) => {
    const k = runIndex.get(s.capture_id) ?? 0;
    runIndex.set(s.capture_id, k + 1);
    const idx = captures.indexOf(s.capture_id);
    const base = captureColor(idx < 0 ? captures.length : idx);
    return {
      key: `${s.capture_id}:${s.run_id}`,
      captureId: s.capture_id,
      runId: s.run_id,
      label: s.label,
      device: s.device,
      source: s.source,
      eventsLost: s.events_lost,
      color: mix(base, RUN_SHADES[k % RUN_SHADES.length] ?? 0),
    };
  });
}

/**
 * Values of buckets that start after the run's last event become null: a shorter run's line ends
 * where its data ends instead of dropping to zero.
 */
export function endAt(values: readonly (number | null)[], grid: TimeGrid, lastNs: number | null | undefined): (number | null)[] {
  if (lastNs === null || lastNs === undefined) return [...values];
  return values.map((v, i) => ((grid.t[i] ?? 0) > lastNs ? null : v));
}

export type LastNs = ReadonlyMap<string, number | null>;

/** `CAPTURE:RUN` -> last event (ns since run start), from /api/block/runs. */
export function lastEvents(runs: readonly BlockRun[]): Map<string, number | null> {
  const m = new Map<string, number | null>();
  for (const r of runs) {
    const k = `${r.capture_id}:${r.run_id}`;
    m.set(k, Math.max(m.get(k) ?? 0, r.last_ns ?? 0) || null);
  }
  return m;
}

const gridOf = (r: { t_ns: number[]; grid: { interval_ns: number } }): TimeGrid => ({ t: r.t_ns, interval: r.grid.interval_ns });

export function shapeDepth(r: BlockQueueDepth, captures: readonly string[], last: LastNs): { grid: TimeGrid; lines: LineSeries[] } {
  const grid = gridOf(r);
  const metas = seriesMetas(r.series, captures);
  return {
    grid,
    lines: r.series.map((s, i) => {
      const meta = metas[i]!;
      return { key: meta.key, meta, measure: '', color: meta.color, dash: '', values: endAt(s.depth, grid, last.get(meta.key)) };
    }),
  };
}

// --- operations ----------------------------------------------------------------------------------
/** Operations in the order the server sorts them (views/block.py OPS). */
export const OPS = ['read', 'write', 'discard', 'flush', 'none', 'other'] as const;
const OP_DASH: Record<string, string> = { read: '', write: '5 3', discard: '2 2', flush: '1 3', none: '8 2 2 2', other: '8 2 2 2' };
export const opDash = (op: string): string => OP_DASH[op] ?? '8 2 2 2';

/** The op filter of the cell: 'all' (every operation, summed) or one operation. */
export type OpFilter = string;

/** I/Os per operation in an iops answer (rates x interval, summed over every series), most first. */
export function opCounts(r: BlockIops): { op: string; count: number }[] {
  const secs = r.grid.interval_ns / 1e9;
  const by = new Map<string, number>();
  for (const s of r.series) for (const o of s.ops) by.set(o.op, (by.get(o.op) ?? 0) + o.iops.reduce((a, v) => a + v * secs, 0));
  return [...by].map(([op, count]) => ({ op, count: Math.round(count) })).sort((a, b) => b.count - a.count);
}

/**
 * IOPS or throughput lines: per series the sum over operations (op 'all'), one operation, or
 * (`split`) one line per operation, dashed by operation.
 */
export function shapeRates(
  r: BlockIops,
  captures: readonly string[],
  last: LastNs,
  opt: { metric: 'iops' | 'bytes_per_s'; op: OpFilter; split: boolean },
): { grid: TimeGrid; lines: LineSeries[]; ops: string[] } {
  const grid = gridOf(r);
  const metas = seriesMetas(r.series, captures);
  const lines: LineSeries[] = [];
  const seen = new Set<string>();
  r.series.forEach((s, i) => {
    const meta = metas[i]!;
    const end = last.get(meta.key);
    const ops = s.ops.filter((o) => opt.op === 'all' || o.op === opt.op);
    if (opt.split && opt.op === 'all') {
      for (const o of ops) {
        // an operation with nothing to draw (0 everywhere) is left out, e.g. bytes of flushes
        if (!o[opt.metric].some((v) => v > 0)) continue;
        seen.add(o.op);
        lines.push({ key: `${meta.key}|${o.op}`, meta, measure: o.op, color: meta.color, dash: opDash(o.op), values: endAt(o[opt.metric], grid, end) });
      }
    } else {
      const sum = grid.t.map((_, b) => ops.reduce((a, o) => a + (o[opt.metric][b] ?? 0), 0));
      ops.forEach((o) => seen.add(o.op));
      lines.push({ key: meta.key, meta, measure: opt.op === 'all' ? '' : opt.op, color: meta.color, dash: '', values: endAt(sum, grid, end) });
    }
  });
  const known: string[] = OPS.filter((o) => seen.has(o));
  return { grid, lines, ops: known.concat([...seen].filter((o) => !known.includes(o))) };
}

// --- fio's own IOPS log --------------------------------------------------------------------------
/** fio's iops log on the IOPS chart: dashed, in the capture's colour. Distinct from the op dashes. */
export const FIO_DASH = '12 4';
/** ... drawn wider than the device's lines, over a white halo, so that it reads over their noise. */
export const FIO_WIDTH = 2.2;
/** The fio data direction a block operation is counted as (views/block.py fio_iops). */
const DDIR_OF_OP: Record<string, string> = { read: 'read', write: 'write', discard: 'trim' };

export interface FioNote {
  key: string;
  label: string;
  color: string;
  note: string;
}

/** The chart's key for fio's line: 'fio iops log (avg 100 ms)', '(per I/O, avg 100, 500 ms)'. */
export function fioKeyLabel(windows: readonly number[]): string {
  const avg = windows.filter((w) => w > 0);
  const parts = [...(windows.includes(0) ? ['per I/O'] : []), ...(avg.length ? [`avg ${avg.join(', ')} ms`] : [])];
  return `fio iops log (${parts.join(', ')})`;
}

/**
 * fio's own IOPS log of each series (`fio_iops`, when the run wrote one on the run's clock) as a
 * dashed line in the series' colour: the data direction of the op shown (read, write; discard is
 * fio's trim), every direction summed for 'all' (with or without the per-operation split); none for
 * operations fio has no direction for (flush). Null where fio's log does not cover a bucket: the
 * line has gaps there, it does not drop to 0. A log written without a clock is never drawn: its
 * series get a note instead. `windows` are the logs' log_avg_msec values (0: per-I/O logs), for
 * the chart's key.
 */
export function shapeFioIops(r: BlockIops, captures: readonly string[], op: OpFilter): { lines: LineSeries[]; notes: FioNote[]; windows: number[] } {
  const metas = seriesMetas(r.series, captures);
  const lines: LineSeries[] = [];
  const notes: FioNote[] = [];
  const windows = new Set<number>();
  r.series.forEach((s, i) => {
    const f = s.fio_iops;
    const meta = metas[i]!;
    if (!f) return;
    if (!f.aligned) {
      notes.push({ key: meta.key, label: meta.label, color: meta.color, note: f.note ?? 'fio iops log not aligned' });
      return;
    }
    const ddirs = f.ddirs.filter((d) => (op === 'all' ? true : d.ddir === DDIR_OF_OP[op]));
    if (ddirs.length === 0) return;
    const values = r.t_ns.map((_, b) => {
      let sum: number | null = null;
      for (const d of ddirs) {
        const v = d.iops[b];
        if (v !== null && v !== undefined) sum = (sum ?? 0) + v;
      }
      return sum;
    });
    for (const lg of f.logs) windows.add(lg.avg_msec ?? 0);
    const clones = new Map<string, number[]>();
    for (const lg of f.logs) clones.set(lg.job, [...(clones.get(lg.job) ?? []), lg.clone]);
    const jobs = [...clones].map(([job, cs]) => (cs.length > 1 ? `${job} (clones ${cs.join(', ')})` : cs[0]! > 1 ? `${job} (clone ${cs[0]})` : job));
    const files = f.logs.map((lg) => lg.path);
    const win = [...new Set(f.logs.map((lg) => (lg.avg_msec ? `${lg.avg_msec} ms windows` : 'one entry per I/O')))].join(', ');
    const dir = op === 'all' ? (ddirs.length > 1 ? ddirs.map((d) => d.ddir).join(' + ') : ddirs[0]!.ddir) : ddirs[0]!.ddir;
    lines.push({
      key: `${meta.key}|fio`,
      meta,
      measure: `fio iops log, ${dir}`,
      color: meta.color,
      dash: FIO_DASH,
      width: FIO_WIDTH,
      values,
      detail: `run ${meta.runId} · fio job${jobs.length > 1 ? 's' : ''} ${jobs.join(', ')} · ${files.length > 2 ? `${files.length} logs: ${files[0]}, …` : files.join(', ')} · ${win}, on the run's clock`,
    });
  });
  return { lines, notes, windows: [...windows].sort((a, b) => a - b) };
}

// --- latency -------------------------------------------------------------------------------------
export { LATENCY_IDS, LATENCY_MEASURES, type LatencyMeasure } from './blockLatency';

export function shapeLatency(r: BlockLatency, captures: readonly string[], last: LastNs, measures: readonly LatencyMeasure[]): { grid: TimeGrid; lines: LineSeries[] } {
  const grid = gridOf(r);
  const metas = seriesMetas(r.series, captures);
  const chosen = LATENCY_MEASURES.filter((m) => measures.includes(m.id));
  const lines: LineSeries[] = [];
  r.series.forEach((s, i) => {
    const meta = metas[i]!;
    for (const m of chosen) {
      lines.push({ key: `${meta.key}|${m.id}`, meta, measure: m.label, color: meta.color, dash: m.dash, values: endAt(s[m.field], grid, last.get(meta.key)) });
    }
  });
  return { grid, lines };
}

// --- histograms ----------------------------------------------------------------------------------
export interface HistBin {
  low: number;
  high: number;
  count: number;
  /** count / the series' total */
  share: number;
}

export interface HistSeries {
  key: string;
  meta: SeriesMeta;
  total: number;
  bins: HistBin[];
  /** Percentiles from the bins (the bin where the running count reaches p%, at its geometric centre). */
  p50: number | null;
  p99: number | null;
}

/** A percentile of log bins, fio's rule as the server uses it: the first bin whose running count reaches p%. */
export function binPercentile(bins: readonly HistBin[], p: number): number | null {
  const total = bins.reduce((a, b) => a + b.count, 0);
  if (!total) return null;
  let run = 0;
  for (const b of bins) {
    run += b.count;
    if (run * 100 >= total * p) return Math.sqrt(b.low * b.high);
  }
  return null;
}

/** Latency histograms per series, of one operation or all of them summed, as shares of the series' I/Os. */
export function shapeLatencyHistogram(r: BlockLatencyHistogram, captures: readonly string[], op: OpFilter): HistSeries[] {
  const metas = seriesMetas(r.series, captures);
  return r.series.map((s, i) => {
    const by = new Map<number, HistBin>();
    for (const o of s.ops) {
      if (op !== 'all' && o.op !== op) continue;
      for (const b of o.bins) {
        const e = by.get(b.bin);
        if (e) e.count += b.count;
        else by.set(b.bin, { low: b.low_ns, high: b.high_ns, count: b.count, share: 0 });
      }
    }
    const bins = [...by.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
    const total = bins.reduce((a, b) => a + b.count, 0);
    for (const b of bins) b.share = total ? b.count / total : 0;
    return { key: metas[i]!.key, meta: metas[i]!, total, bins, p50: binPercentile(bins, 50), p99: binPercentile(bins, 99) };
  });
}

export interface SizeBin {
  /** [low, high) bytes: a power of two and the next, or [0, 1) for requests without data */
  low: number;
  high: number;
  count: number;
  share: number;
  bytes: number;
  /** The most frequent exact size in the bin. */
  mode: number;
}

export interface SizeSeries {
  key: string;
  meta: SeriesMeta;
  total: number;
  totalBytes: number;
  bins: SizeBin[];
  /** The most frequent exact size of the series, and its share of the series' I/Os. */
  mode: number;
  modeShare: number;
}

/** Request sizes per series grouped by power of two ([4 KiB, 8 KiB) ...), as shares of the series' I/Os. */
export function shapeSizes(r: BlockSizes, captures: readonly string[], op: OpFilter): SizeSeries[] {
  const metas = seriesMetas(r.series, captures);
  return r.series.map((s, i) => {
    const by = new Map<number, SizeBin & { modes: Map<number, number> }>();
    const exact = new Map<number, number>();
    for (const o of s.ops) {
      if (op !== 'all' && o.op !== op) continue;
      for (const z of o.sizes) {
        const e = z.bytes > 0 ? Math.floor(Math.log2(z.bytes)) : -1;
        const low = e < 0 ? 0 : 2 ** e;
        let b = by.get(e);
        if (!b) {
          b = { low, high: e < 0 ? 1 : 2 ** (e + 1), count: 0, share: 0, bytes: 0, mode: z.bytes, modes: new Map() };
          by.set(e, b);
        }
        b.count += z.count;
        b.bytes += z.bytes * z.count;
        b.modes.set(z.bytes, (b.modes.get(z.bytes) ?? 0) + z.count);
        exact.set(z.bytes, (exact.get(z.bytes) ?? 0) + z.count);
      }
    }
    const bins = [...by.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, b]) => {
        let mode = b.mode;
        let best = -1;
        for (const [size, n] of b.modes) if (n > best) [mode, best] = [size, n];
        return { low: b.low, high: b.high, count: b.count, share: 0, bytes: b.bytes, mode };
      });
    const total = bins.reduce((a, b) => a + b.count, 0);
    for (const b of bins) b.share = total ? b.count / total : 0;
    let mode = 0;
    let best = 0;
    for (const [size, n] of exact) if (n > best) [mode, best] = [size, n];
    return { key: metas[i]!.key, meta: metas[i]!, total, totalBytes: bins.reduce((a, b) => a + b.bytes, 0), bins, mode, modeShare: total ? best / total : 0 };
  });
}

/**
 * The words of a series in the sizes legend. The mean of mostly 4 KiB I/Os with a few others (a
 * 16 KiB and a 512 B journal write among 1,149 writes of 4 KiB) is 4.01 KiB: a true mean, not a
 * whole size, so the legend names the most frequent size and its share beside it, and 'all 4 KiB'
 * when every I/O has one size.
 */
export function sizeSummary(s: Pick<SizeSeries, 'total' | 'totalBytes' | 'mode' | 'modeShare'>): { mode: string; share: string; mean: string } | null {
  if (!s.total) return null;
  const share = s.modeShare >= 1 ? 'all' : `${(Math.floor(s.modeShare * 1000) / 10).toFixed(1)}%`;
  return { mode: formatSize(s.mode), share, mean: formatSize(Math.round(s.totalBytes / s.total)) };
}

// --- warnings ------------------------------------------------------------------------------------
export interface SeriesWarnings {
  key: string;
  label: string;
  color: string;
  eventsLost: boolean;
  warnings: string[];
}

/**
 * The warnings of every series of the answers given (the same run appears in each view's answer:
 * listed once, in order of first appearance). `lost` are the series that lost events: every chart
 * built from them says so.
 */
export function gatherWarnings(answers: readonly ({ series: readonly BlockSeriesInfo[] } | undefined)[], captures: readonly string[]): { all: SeriesWarnings[]; lost: SeriesWarnings[] } {
  const by = new Map<string, SeriesWarnings>();
  for (const a of answers) {
    if (!a) continue;
    const metas = seriesMetas(a.series, captures);
    a.series.forEach((s, i) => {
      const m = metas[i]!;
      const e = by.get(m.key);
      if (!e) by.set(m.key, { key: m.key, label: s.label, color: m.color, eventsLost: s.events_lost, warnings: [...s.warnings] });
      else {
        e.eventsLost ||= s.events_lost;
        for (const w of s.warnings) if (!e.warnings.includes(w)) e.warnings.push(w);
      }
    });
  }
  const all = [...by.values()];
  return { all, lost: all.filter((w) => w.eventsLost) };
}

/** The series of one chart that lost events (what its header warns about). */
export function lostIn(series: readonly { meta: SeriesMeta }[]): SeriesMeta[] {
  const seen = new Map<string, SeriesMeta>();
  for (const s of series) if (s.meta.eventsLost && !seen.has(s.meta.key)) seen.set(s.meta.key, s.meta);
  return [...seen.values()];
}

/** Maximum of the finite values of some lines (0 when none). */
export function maxOf(lines: readonly { values: readonly (number | null)[] }[]): number {
  let m = 0;
  for (const l of lines) for (const v of l.values) if (v !== null && Number.isFinite(v) && v > m) m = v;
  return m;
}

/**
 * A robust top for a rate chart: the 90th percentile of the values drawn (a start-up burst may
 * fill several per cent of the run), when the largest is more than twice it, so that a spike does
 * not flatten the steady state; null when the full scale reads well. `above`: how many values the
 * clipped scale cuts, `max`: the largest, `q`: the quantile.
 */
export const ROBUST_Q = 0.9;
export function robustTop(lines: readonly { values: readonly (number | null)[] }[], q = ROBUST_Q): { top: number; above: number; max: number } | null {
  const vs: number[] = [];
  for (const l of lines) for (const v of l.values) if (v !== null && Number.isFinite(v) && v > 0) vs.push(v);
  if (vs.length < 20) return null;
  vs.sort((a, b) => a - b);
  const top = vs[Math.min(vs.length - 1, Math.ceil(q * vs.length) - 1)]!;
  const max = vs[vs.length - 1]!;
  if (!(top > 0) || max <= 2 * top) return null;
  return { top, above: vs.filter((v) => v > top).length, max };
}

/** Smallest positive finite value of some lines (Infinity when none). */
export function minPositive(lines: readonly { values: readonly (number | null)[] }[]): number {
  let m = Infinity;
  for (const l of lines) for (const v of l.values) if (v !== null && Number.isFinite(v) && v > 0 && v < m) m = v;
  return m;
}

/** The server's `source` in words: 'tiles 1000000 ns' -> 'from 1 ms tiles', 'rows' -> 'from the I/O rows'. */
export function sourceWords(source: string): string {
  const m = /^tiles (\d+) ns$/.exec(source);
  if (m) {
    const ns = Number(m[1]);
    const [f, u] = ns >= 1e9 ? [1e9, 's'] : ns >= 1e6 ? [1e6, 'ms'] : ns >= 1e3 ? [1e3, 'µs'] : [1, 'ns'];
    return `from ${Number((ns / f).toPrecision(6))} ${u} tiles`;
  }
  if (source === 'rows') return 'from the I/O rows';
  const s = /^sample 1 in (\d+)$/.exec(source);
  if (s) return `a sample, 1 in ${s[1]} I/Os`;
  return source;
}
