// Shapes the answer of GET /api/compare/fio into what the fio table draws: columns (baseline
// first), and per job x direction the metric rows with formatted cells. Pure; tests in
// compareTable.test.ts.
import type { FioComparison, MetricRow, StatCell } from '../api/client';
import { captureColor } from './colors';
import { formatRatio, formatRaw, formatSpread, formatValue } from './format';
import { MIN_REPEATS, ratioTone, toneWords, type Better, type Tone } from './ratio';

export interface Column {
  id: string;
  label: string;
  kernel: string | null;
  runs: number;
  repeats: number;
  tags: Record<string, string>;
  color: string;
  isBaseline: boolean;
}

export interface TableCell {
  column: Column;
  stat: StatCell | null;
  mean: string;
  spread: string;
  n: number;
  ratio: string;
  tone: Tone;
  /** Everything about where the number comes from, for the hover title. */
  title: string;
}

export interface TableRow {
  metric: string;
  label: string;
  unit: string;
  better: Better;
  description: string;
  /** Extent of every repeat's value of this row over all captures: the shared x scale of the dot strips. */
  domain: [number, number] | null;
  baselineMean: number | null;
  cells: TableCell[];
}

export interface TableGroup {
  key: string;
  job: string;
  ddir: string;
  rows: TableRow[];
}

export interface FioTable {
  columns: Column[];
  groups: TableGroup[];
  /** Every metric the answer has, in the server's order: what a metric picker offers. */
  metrics: { metric: string; label: string }[];
}

/** Columns in display order: the baseline first, then the others in the order asked for. */
export function orderColumns(cmp: Pick<FioComparison, 'captures' | 'baseline'>): Column[] {
  const cols = cmp.captures.map((c, i) => ({
    id: c.id,
    label: c.label,
    kernel: c.kernel ?? null,
    runs: c.runs,
    repeats: c.repeats,
    tags: c.tags,
    color: captureColor(i),
    isBaseline: c.id === cmp.baseline,
  }));
  return [...cols.filter((c) => c.isBaseline), ...cols.filter((c) => !c.isBaseline)];
}

/** Where a row's numbers come from, for hover titles: a fio job and direction, or any words (sched: 'workload CPUs'). */
export type RowScope = { job: string; ddir: string } | { where: string; missing: string };

export function cellTitle(
  col: Column,
  base: Column | undefined,
  row: { label: string; unit: string; better: Better; description?: string },
  group: RowScope,
  stat: StatCell | null,
  tone: Tone,
  baseStat: StatCell | null = null,
): string {
  const lines = [`${col.label} (${col.id})${col.isBaseline ? ' — baseline' : ''}`];
  lines.push('where' in group ? `${row.label} [${row.unit}]${group.where ? `, ${group.where}` : ''}` : `${row.label} [${row.unit}], job '${group.job}' ${group.ddir}`);
  if (row.description) lines.push(row.description);
  if (!stat || stat.mean === null) {
    lines.push('where' in group ? group.missing : 'no value: this capture has no such job/direction or metric');
    return lines.join('\n');
  }
  const u = row.unit;
  let l = `mean ${formatValue(stat.mean, u)}`;
  if (stat.stddev !== null) l += `, stddev ${formatValue(stat.stddev, u)}`;
  if (stat.cv !== null) l += ` (cv ${(stat.cv * 100).toFixed(1)} %)`;
  lines.push(l);
  if (stat.min !== null && stat.max !== null) lines.push(`min ${formatValue(stat.min, u)}, max ${formatValue(stat.max, u)}`);
  lines.push(
    `${stat.n} repeat${stat.n === 1 ? '' : 's'}: ${stat.values.map(formatRaw).join(', ')} ${u}`,
  );
  lines.push(`runs: ${stat.runs.join(', ') || '–'}`);
  if (!col.isBaseline && stat.ratio !== null && base) {
    lines.push(`vs baseline ${base.label}: ${formatRatio(stat.ratio)} (ratio ${formatRaw(stat.ratio)})`);
    const w = toneWords(tone, row.better);
    if (tone === 'few') lines.push(`${w}: n = ${stat.n} here, ${baseStat?.n ?? 0} in the baseline`);
    else if (w) lines.push(w);
  }
  return lines.join('\n');
}

/**
 * Build the table. `metrics` limits and orders the rows (unknown keys are ignored); null keeps
 * every metric in the server's order.
 */
export function buildFioTable(cmp: FioComparison, metrics: readonly string[] | null = null): FioTable {
  const columns = orderColumns(cmp);

  const seen = new Map<string, string>();
  for (const g of cmp.groups) for (const m of g.metrics) if (!seen.has(m.metric)) seen.set(m.metric, m.label);
  const allMetrics = [...seen].map(([metric, label]) => ({ metric, label }));

  const groups: TableGroup[] = cmp.groups.map((g) => {
    let rows = g.metrics;
    if (metrics) {
      const byKey = new Map(g.metrics.map((m) => [m.metric, m]));
      rows = metrics.flatMap((k) => {
        const m = byKey.get(k);
        return m ? [m] : [];
      });
    }
    return {
      key: `${g.job}\u0000${g.ddir}`,
      job: g.job,
      ddir: g.ddir,
      rows: buildMetricRows(columns, rows, g),
    };
  });
  return { columns, groups, metrics: allMetrics };
}

/**
 * One table row per metric, cells in column order with formatted mean, spread, ratio and tone:
 * the fio table's rows, also used by other comparisons in the same MetricRow shape (sched).
 */
export function buildMetricRows(columns: readonly Column[], metrics: readonly MetricRow[], scope: RowScope): TableRow[] {
  const base = columns.find((c) => c.isBaseline);
  return metrics.map((m) => {
    const baseStat = base ? (m.cells[base.id] ?? null) : null;
    let lo = Infinity;
    let hi = -Infinity;
    for (const c of Object.values(m.cells)) {
      for (const v of c.values) {
        if (Number.isFinite(v)) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
      }
    }
    const cells: TableCell[] = columns.map((col) => {
      const stat = m.cells[col.id] ?? null;
      const tone: Tone = stat && baseStat ? ratioTone(stat, baseStat, m.better, col.isBaseline) : 'none';
      return {
        column: col,
        stat,
        mean: formatValue(stat?.mean, m.unit),
        spread: stat ? formatSpread(stat, m.unit) : '',
        n: stat?.n ?? 0,
        ratio: col.isBaseline || !stat ? '' : formatRatio(stat.ratio),
        tone,
        title: cellTitle(col, base, m, scope, stat, tone, baseStat),
      };
    });
    return {
      metric: m.metric,
      label: m.label,
      unit: m.unit,
      better: m.better,
      description: m.description,
      domain: lo <= hi ? ([lo, hi] as [number, number]) : null,
      baselineMean: baseStat?.mean ?? null,
      cells,
    };
  });
}

/** What a comparison table's legend must explain: colours only with a baseline and another capture, the grey of too few repeats only when a cell has it. */
export interface LegendNeeds {
  compared: boolean;
  few: boolean;
  minRepeats: number;
}

export function legendNeeds(columns: readonly Column[], rows: readonly TableRow[]): LegendNeeds {
  const compared = columns.some((c) => c.isBaseline) && columns.some((c) => !c.isBaseline);
  const few = compared && rows.some((r) => r.cells.some((c) => c.tone === 'few'));
  return { compared, few, minRepeats: MIN_REPEATS };
}
