// Shapes the lock_stat answers (GET /api/compare/lock-stat, GET /api/captures/{id}/lock-stat) into
// what the lock contention cell draws: columns (baseline first), the captures without lock_stat
// and why, and rows of formatted numbers, each with a hover title that says which capture, which
// runs and which unit it is. Pure; tests in lockStat.test.ts.
import { format as d3format } from 'd3-format';
import type { Schemas } from '../api/client';
import { orderColumns, type Column } from './compareTable';
import { extentOf, formatRatio, formatValue, timeColumn, type TimeColumn } from './format';
import type { Tone } from './ratio';

export type LockStatComparison = Schemas['LockStatComparison'];
export type LockStatTop = Schemas['LockStatTop'];
export type LockStatPoints = Schemas['LockStatPoints'];
export type LockStatAvailability = Schemas['LockStatAvailability'];
export type LockClassStat = Schemas['LockClassStat'];
export type LockCompareCell = Schemas['LockCompareCell'];
export type TopKey = LockStatTop['by'];

export const TOP_KEYS: readonly { key: TopKey; label: string }[] = [
  { key: 'wait_total', label: 'total wait' },
  { key: 'contentions', label: 'contentions' },
  { key: 'wait_avg', label: 'average wait' },
];

const grouped = d3format(',');
const fixed = (v: number, d: number) => d3format(`,.${d}f`)(v).replace(/−/g, '-');

/** A count: '1,203,433'. */
export function formatCount(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return grouped(Math.round(n)).replace(/−/g, '-');
}

/** A small rate such as contentions per I/O, three significant digits: '0.0301', '1.20', '12.0', '1,204'. */
export function formatRate(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 1000) return fixed(v, 0);
  const decimals = Math.max(0, 2 - Math.floor(Math.log10(a) + 1e-9));
  return fixed(v, Math.min(decimals, 8));
}

/**
 * One precision for a column of rates, so its decimal points line up: the decimals formatRate gives
 * the column's smallest non-zero value (at most 6), on every value: '0.035714' beside '0.000510', not
 * '0.0357' beside '0.000510'. Absent values read '–', zero '0'.
 */
export function rateColumn(values: readonly (number | null | undefined)[]): (v: number | null | undefined) => string {
  const nz = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v !== 0).map(Math.abs);
  if (!nz.length) return formatRate;
  const [small] = extentOf(nz);
  const decimals = small >= 1000 ? 0 : Math.min(6, Math.max(0, 2 - Math.floor(Math.log10(small) + 1e-9)));
  return (v) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v === 0 ? '0' : fixed(v, decimals));
}

/**
 * The formats of a table's metric columns, each at one precision so that its decimal points line up: the
 * rate columns (formatRate) at the decimals of their smallest value, the time columns (formatNs) in one
 * unit chosen from their values (timeColumn, the rule of testdata/vectors/time-column.json), which the
 * column's head then says ('total wait (ms)'); the numbers carry no unit.
 */
function columnFormats(metrics: readonly LockMetric[], stats: readonly LockClassStat[]): { metrics: LockMetric[]; formats: LockMetric['format'][] } {
  const out = metrics.map((m) => {
    const values = stats.map((s) => m.value(s));
    if (m.format === formatRate) return { metric: m, format: rateColumn(values) };
    if (m.format === formatNs) {
      const col = timeColumn(values);
      return { metric: { ...m, head: `${m.label} (${col.unit})` }, format: col.format };
    }
    return { metric: m, format: m.format };
  });
  return { metrics: out.map((o) => o.metric), formats: out.map((o) => o.format) };
}

/**
 * A time in ns: as everywhere (formatValue: '845 ns', '84.5 µs', '1.23 ms'), except that times
 * under 1 µs keep three significant digits ('0.500 ns', '12.0 ns'): a wait per I/O is often
 * below a nanosecond, and rounding it to '1 ns' or '0 ns' would hide the comparison.
 */
export function formatNs(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  return Math.abs(v) < 999.5 ? `${formatRate(v)} ns` : formatValue(v, 'ns');
}

/** A signed difference: '+200 ns', '-1.23 µs', '+0.0200', '±0'. */
export function formatDelta(v: number | null | undefined, unit: 'ns' | ''): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '';
  if (v === 0) return '±0';
  const sign = v > 0 ? '+' : '-';
  return sign + (unit === 'ns' ? formatNs(Math.abs(v)) : formatRate(Math.abs(v)));
}

/** "&rq->lock/1" (or "… (2nd)" for the second class printed with a name the kernel cut). */
export function className(lockClass: string, occurrence: number): string {
  if (occurrence === 0) return lockClass;
  const n = occurrence + 1;
  const suffix = n === 2 ? 'nd' : n === 3 ? 'rd' : 'th';
  return `${lockClass} (${n}${suffix} of this name)`;
}

export const rwWords = (rw: 'W' | 'R') => (rw === 'R' ? 'read' : 'write/exclusive');

/**
 * The badge of a row: 'read' for read rows; 'write' for the write row of a class that also has a
 * read row (a reader-writer lock); '' for the rest (spinlocks, mutexes: exclusive only).
 */
export function rwLabels<T extends { lock_class: string; occurrence: number; rw: 'W' | 'R' }>(rows: readonly T[]): (r: T) => '' | 'read' | 'write' {
  const withRead = new Set(rows.filter((r) => r.rw === 'R').map((r) => `${r.lock_class}\u0000${r.occurrence}`));
  return (r) => (r.rw === 'R' ? 'read' : withRead.has(`${r.lock_class}\u0000${r.occurrence}`) ? 'write' : '');
}

/** Split `text` at backticks: [{text, code: false}, {text: 'perf lock', code: true}, ...]. */
export function codeSpans(text: string): { text: string; code: boolean }[] {
  return text
    .split('`')
    .map((t, i) => ({ text: t, code: i % 2 === 1 }))
    .filter((s) => s.text !== '');
}

/** Why a capture has no lock_stat, for display: the note without its 'lock_stat:' prefix. */
export function reasonText(a: LockStatAvailability): string {
  return (a.reason ?? 'no lock_stat').replace(/^lock_stat:\s*/, '');
}

export interface LockColumn extends Column {
  availability: LockStatAvailability;
}

/** Where a capture's lock figures come from, in words: 'dumps of runs r000, r001 (…/lock_stat.txt)'. */
export function sourceWords(a: LockStatAvailability): string {
  if (!a.available) return 'no lock_stat';
  if (a.scope === 'capture') return `a dump attached to the whole capture (${a.paths.join(', ')})`;
  return `the dumps of run${a.runs.length === 1 ? '' : 's'} ${a.runs.join(', ')}, summed`;
}

/** The same, short, under a capture's name in the table's head: '2 runs summed', 'run r000', 'one capture-wide dump'. */
export function sourceShort(a: LockStatAvailability): string {
  if (!a.available) return 'no lock_stat';
  if (a.scope === 'capture') return 'one capture-wide dump';
  return a.runs.length === 1 ? `run ${a.runs[0]}` : `${a.runs.length} runs summed`;
}

function opsWords(a: LockStatAvailability): string {
  if (!a.ops) return 'no fio I/O count';
  const runs = a.scope === 'capture' ? 'all runs' : `run${a.runs.length === 1 ? '' : 's'} ${a.runs.join(', ')}`;
  return `${formatCount(a.ops)} I/Os (fio total_ios of ${runs})`;
}

function perRunWords(s: LockClassStat): string {
  return s.per_run
    .map((p) => `${p.run ?? 'capture'}: ${formatCount(p.contentions)} contentions, ${formatNs(p.wait_total_ns)} waited`)
    .join('; ');
}

// --- Metrics of the tables -------------------------------------------------------------------

export interface LockMetric {
  key: string;
  label: string;
  /** What the number is, for the column head's title. */
  description: string;
  unit: string;
  value: (s: LockClassStat) => number | null | undefined;
  format: (v: number | null | undefined) => string;
  /** The column's head when it differs from the label: a time column's unit, 'avg wait (µs)'. */
  head?: string;
}

const ns = formatNs;

export const METRICS: Record<string, LockMetric> = {
  contentions: { key: 'contentions', label: 'contentions', unit: 'count', description: 'acquisitions that had to wait, summed over the dumps', value: (s) => s.contentions, format: formatCount },
  contentions_per_op: { key: 'contentions_per_op', label: 'cont./I/O', unit: 'per I/O', description: "contentions / the capture's fio I/Os over the same runs", value: (s) => s.contentions_per_op, format: formatRate },
  wait_total: { key: 'wait_total', label: 'total wait', unit: 'ns', description: 'time spent waiting for the lock, all contentions, summed over the dumps', value: (s) => s.wait_total_ns, format: ns },
  wait_avg: { key: 'wait_avg', label: 'avg wait', unit: 'ns', description: 'total wait / contentions', value: (s) => s.wait_avg_ns, format: ns },
  wait_max: { key: 'wait_max', label: 'max wait', unit: 'ns', description: 'longest wait in any dump', value: (s) => s.wait_max_ns, format: ns },
  wait_per_op: { key: 'wait_per_op', label: 'wait/I/O', unit: 'ns per I/O', description: "total wait / the capture's fio I/Os: time waited on this lock per I/O, all tasks", value: (s) => s.wait_per_op_ns, format: ns },
  acquisitions: { key: 'acquisitions', label: 'acquisitions', unit: 'count', description: 'times the lock was taken, summed over the dumps', value: (s) => s.acquisitions, format: formatCount },
  hold_avg: { key: 'hold_avg', label: 'avg hold', unit: 'ns', description: 'total hold time / acquisitions', value: (s) => s.hold_avg_ns, format: ns },
};

export interface NumberCell {
  text: string;
  title: string;
}

function numberTitle(col: LockColumn, rowName: string, rw: 'W' | 'R', m: LockMetric, s: LockClassStat): string {
  const a = col.availability;
  const lines = [`${col.label} (${col.id})${col.isBaseline ? ' — baseline' : ''}`];
  lines.push(`${rowName}, ${rwWords(rw)}: ${m.label} [${m.unit}] = ${m.format(m.value(s))}`);
  lines.push(m.description);
  lines.push(`from ${sourceWords(a)}`);
  if (m.unit.includes('I/O')) lines.push(`I/Os: ${opsWords(a)}`);
  if (s.per_run.length > 1 || (s.per_run[0] && s.per_run[0].run)) lines.push(`per dump: ${perRunWords(s)}`);
  lines.push(`bounces: ${formatCount(s.con_bounces)} of the contentions, ${formatCount(s.acq_bounces)} of the acquisitions involved another CPU's cache`);
  if (s.cut) lines.push('some time of this class was cut by the kernel (15-byte buffer): totals are low');
  return lines.join('\n');
}

function absentTitle(col: LockColumn, rowName: string, rw: 'W' | 'R'): string {
  return `${col.label} (${col.id})\n${rowName}, ${rwWords(rw)}: not in this capture's lock_stat (${sourceWords(col.availability)}): no acquisition while it counted`;
}

// --- Comparison ------------------------------------------------------------------------------

export type Mark = 'new' | 'gone' | 'changed' | 'idle' | 'baseline';

export interface CompareCellView {
  column: LockColumn;
  present: boolean;
  numbers: NumberCell[];
  delta: string;
  ratio: string;
  tone: Tone;
  mark: Mark;
  /** Hover text of the delta cell. */
  deltaTitle: string;
}

export interface CompareRowView {
  key: string;
  lockClass: string;
  occurrence: number;
  rw: 'W' | 'R';
  rwLabel: '' | 'read' | 'write';
  name: string;
  /** 'new' when the class is contended in some capture and not in the baseline, 'gone' for the reverse. */
  marks: Mark[];
  cells: CompareCellView[];
}

export interface CompareTableView {
  /** Captures with lock_stat, baseline first. */
  columns: LockColumn[];
  /** Captures without lock_stat, with the reason. */
  missing: LockColumn[];
  perOp: boolean;
  baseHasLockStat: boolean;
  metrics: LockMetric[];
  deltaLabel: string;
  deltaUnit: TimeColumn['unit'];
  rows: CompareRowView[];
  total: number;
  sort: string;
  alternative: string;
}

const MARK_WORDS: Record<Mark, string> = {
  new: 'new: contended here, not in the baseline',
  gone: 'gone: contended in the baseline, not here',
  changed: 'contended in both',
  idle: 'contended in neither this capture nor the baseline',
  baseline: 'baseline',
};

function markOf(status: LockCompareCell['status']): Mark {
  return status === 'appeared' ? 'new' : status === 'vanished' ? 'gone' : status;
}

function lockColumns(captures: Schemas['ComparedCapture'][], baseline: string, availability: Record<string, LockStatAvailability>): LockColumn[] {
  return orderColumns({ captures, baseline }).map((c) => ({
    ...c,
    availability: availability[c.id] ?? { capture: c.id, available: false, scope: 'none', runs: [], paths: [], ops: null, reason: 'unknown', notes: [], warnings: [], debug_locks_off: false },
  }));
}

export function buildCompareTable(cmp: LockStatComparison): CompareTableView {
  const all = lockColumns(cmp.captures, cmp.baseline, cmp.availability);
  const columns = all.filter((c) => c.availability.available);
  const missing = all.filter((c) => !c.availability.available);
  const base = all.find((c) => c.isBaseline);
  const baseHasLockStat = !!base?.availability.available;
  const chosen = cmp.per_op
    ? [METRICS.contentions!, METRICS.contentions_per_op!, METRICS.wait_avg!, METRICS.wait_per_op!]
    : [METRICS.contentions!, METRICS.wait_total!, METRICS.wait_avg!];
  const waitWhat = cmp.per_op ? 'wait per I/O' : 'total wait';
  const rwLabel = rwLabels(cmp.rows);
  const { metrics, formats } = columnFormats(chosen, cmp.rows.flatMap((r) => columns.map((col) => r.cells[col.id]?.stat).filter((x): x is LockClassStat => !!x)));
  // the difference columns: one unit over every capture's (the head says it once for all)
  const deltas = timeColumn(cmp.rows.flatMap((r) => columns.filter((col) => !col.isBaseline).map((col) => r.cells[col.id]?.delta_wait ?? null)), true);
  const rows: CompareRowView[] = cmp.rows.map((r) => {
    const name = className(r.lock_class, r.occurrence);
    const cells: CompareCellView[] = columns.map((col) => {
      const c = r.cells[col.id];
      const s = c?.stat ?? null;
      const mark: Mark = c ? markOf(c.status) : 'idle';
      const numbers = metrics.map((m, i) =>
        s ? { text: formats[i]!(m.value(s)), title: numberTitle(col, name, r.rw, m, s) } : { text: '', title: absentTitle(col, name, r.rw) },
      );
      let tone: Tone = 'none';
      const d = c?.delta_wait ?? null;
      if (!col.isBaseline && d !== null) tone = d > 0 ? 'worse' : d < 0 ? 'better' : 'same';
      const deltaTitle = col.isBaseline || !c
        ? ''
        : [
            `${col.label} (${col.id}) vs baseline ${base?.label ?? ''}`,
            `${name}, ${rwWords(r.rw)}: ${MARK_WORDS[mark]}`,
            d === null
              ? 'no difference: the baseline has no lock_stat'
              : `Δ ${waitWhat}: ${formatDelta(d, 'ns')}${c.ratio_wait !== null && c.ratio_wait !== undefined ? ` (×${formatRate(c.ratio_wait)})` : ''}`,
            c.delta_contentions !== null && c.delta_contentions !== undefined
              ? `Δ ${cmp.per_op ? 'contentions per I/O' : 'contentions'}: ${formatDelta(c.delta_contentions, '')}${c.ratio_contentions ? ` (×${formatRate(c.ratio_contentions)})` : ''}`
              : '',
            cmp.per_op ? `I/Os: ${opsWords(col.availability)}; baseline ${base ? opsWords(base.availability) : '–'}` : 'totals: not every capture has fio I/Os to divide by',
          ]
            .filter(Boolean)
            .join('\n');
      return {
        column: col,
        present: !!s,
        numbers,
        delta: col.isBaseline || d === null ? '' : deltas.format(d),
        ratio: col.isBaseline || !c ? '' : mark === 'new' ? 'new' : mark === 'gone' ? 'gone' : formatRatio(c.ratio_wait ?? null),
        tone,
        mark,
        deltaTitle,
      };
    });
    // no 'new' or 'gone' against a baseline without lock_stat: there is nothing to compare with (every
    // row was marked 'new' on the lockstat-6.12 lab pair, whose baseline kernel has no CONFIG_LOCK_STAT)
    const marks = baseHasLockStat ? [...new Set(cells.map((c) => c.mark).filter((m) => m === 'new' || m === 'gone'))] : [];
    return { key: `${r.lock_class}\u0000${r.occurrence}\u0000${r.rw}`, lockClass: r.lock_class, occurrence: r.occurrence, rw: r.rw, rwLabel: rwLabel(r), name, marks, cells };
  });
  return {
    columns,
    missing,
    perOp: cmp.per_op,
    baseHasLockStat,
    metrics,
    deltaLabel: `${cmp.per_op ? 'Δ wait/I/O' : 'Δ total wait'} (${deltas.unit})`,
    deltaUnit: deltas.unit,
    rows,
    total: cmp.total,
    sort: cmp.sort,
    alternative: cmp.alternative,
  };
}

// --- Top classes of one capture --------------------------------------------------------------

export interface TopRowView {
  key: string;
  rank: number;
  lockClass: string;
  occurrence: number;
  rw: 'W' | 'R';
  rwLabel: '' | 'read' | 'write';
  name: string;
  points: number;
  numbers: NumberCell[];
}

export interface TopTableView {
  column: LockColumn;
  metrics: LockMetric[];
  rows: TopRowView[];
  total: number;
  contended: number;
}

export function buildTopTable(top: LockStatTop, color: string): TopTableView {
  const a = top.availability;
  const column: LockColumn = { id: top.capture.id, label: top.capture.label, kernel: top.capture.kernel ?? null, runs: top.capture.runs, repeats: top.capture.repeats, tags: top.capture.tags, color, isBaseline: false, availability: a };
  const rwLabel = rwLabels(top.rows);
  const chosen = [METRICS.contentions!, ...(a.ops ? [METRICS.contentions_per_op!] : []), METRICS.wait_total!, METRICS.wait_avg!, METRICS.wait_max!, ...(a.ops ? [METRICS.wait_per_op!] : []), METRICS.acquisitions!, METRICS.hold_avg!];
  const { metrics, formats } = columnFormats(chosen, top.rows.map((r) => r.stat));
  return {
    column,
    metrics,
    total: top.total,
    contended: top.contended,
    rows: top.rows.map((r, i) => {
      const name = className(r.lock_class, r.occurrence);
      return {
        key: `${r.lock_class}\u0000${r.occurrence}\u0000${r.rw}`,
        rank: i + 1,
        lockClass: r.lock_class,
        occurrence: r.occurrence,
        rw: r.rw,
        rwLabel: rwLabel(r),
        name,
        points: r.points,
        numbers: metrics.map((m, j) => ({ text: formats[j]!(m.value(r.stat)), title: numberTitle(column, name, r.rw, m, r.stat) })),
      };
    }),
  };
}

// --- Points of a class -----------------------------------------------------------------------

export interface PointView {
  kind: 'contention' | 'contending';
  count: string;
  symbol: string;
  module: string | null;
  title: string;
}

export function buildPoints(p: LockStatPoints, label: string): { contention: PointView[]; contending: PointView[] } {
  const views = p.points.map((pt) => ({
    kind: pt.kind,
    count: formatCount(pt.count),
    symbol: pt.function ? pt.symbol.replace(/\s+\[[^\]]+\]$/, '') : pt.symbol,
    module: pt.module ?? null,
    title: [
      `${label} (${p.capture}): ${p.lock_class}`,
      pt.kind === 'contention' ? 'contention point: a call site that waited for the lock' : 'contending point: a call site that held the lock while others waited',
      `${formatCount(pt.count)} times, summed over the dumps of ${pt.runs.length ? `runs ${pt.runs.join(', ')}` : 'the capture'}`,
      `address${pt.addresses.length > 1 ? 'es' : ''} as printed: ${pt.addresses.join(', ')}`,
    ].join('\n'),
  }));
  return { contention: views.filter((v) => v.kind === 'contention'), contending: views.filter((v) => v.kind === 'contending') };
}
