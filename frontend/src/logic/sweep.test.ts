import { describe, expect, it } from 'vitest';
import { axisLabel, buildLines, buildMatrix, ciText, defaultX, formatChange, formatMetric, sweepTone, type SweepCell, type SweepMatrix } from './sweep';

function cell(values: number[], over: Partial<SweepCell> = {}): SweepCell {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  return {
    n, mean, stddev: 10, cv: 10 / mean, ci_low: mean * 0.95, ci_high: mean * 1.05, min: Math.min(...values), max: Math.max(...values),
    values, runs: values.map((_, i) => `r${i}`), ratio: null, delta_low: null, delta_high: null, t: null, df: null, p: null,
    significant: false, too_few: n < 3, note: null, ...over,
  };
}

const metric = { key: 'iops', label: 'IOPS', unit: 'IO/s', better: 'higher' as const, description: 'd', source: 'fio' };
const points = [
  { key: 'rw=read iodepth=1', params: { rw: 'read', iodepth: '1' } },
  { key: 'rw=read iodepth=8', params: { rw: 'read', iodepth: '8' } },
  { key: 'rw=write iodepth=1', params: { rw: 'write', iodepth: '1' } },
  { key: 'rw=write iodepth=8', params: { rw: 'write', iodepth: '8' } },
];
const M: SweepMatrix = {
  baseline: 'A', metric, metrics: [metric], alpha: 0.05, min_repeats: 3, host_diff: [], commands: {},
  params: [{ name: 'rw', values: ['read', 'write'] }, { name: 'iodepth', values: ['1', '8'] }],
  points,
  rows: [
    { capture: 'A', label: 'base', kernel: null, tags: {}, repeats: 3, workload_kind: 'fio', cells: {
      'rw=read iodepth=1': cell([100, 110, 90]), 'rw=read iodepth=8': cell([400, 410, 390]), 'rw=write iodepth=1': cell([50, 50, 50]), 'rw=write iodepth=8': cell([80, 90]) } },
    { capture: 'B', label: 'other', kernel: null, tags: {}, repeats: 3, workload_kind: 'fio', cells: {
      'rw=read iodepth=1': cell([120, 121, 119], { ratio: 1.2, significant: true, too_few: false, p: 0.001, t: 5, df: 3, delta_low: 0.1, delta_high: 0.3 }),
      'rw=read iodepth=8': cell([300, 305, 295], { ratio: 0.75, significant: true, too_few: false, p: 0.002 }),
      'rw=write iodepth=1': cell([51, 49, 50], { ratio: 1.0, significant: false, too_few: false, p: 0.9 }),
      'rw=write iodepth=8': cell([90, 91], { ratio: 1.07, too_few: true }) } },
  ],
};

describe('sweep formatting', () => {
  it('formats every unit of run_metrics', () => {
    expect(formatMetric(81612, 'IO/s')).toBe('81.61k IO/s');
    expect(formatMetric(0.00123, 's')).toBe('1.23 ms');
    expect(formatMetric(2.5, 's')).toBe('2.50 s');
    expect(formatMetric(4096, 'KiB')).toBe('4.00 MiB');
    expect(formatMetric(512, 'B')).toBe('512 B');
    expect(formatMetric(51234, 'inodes/s')).toBe('51.23k inodes/s');
    expect(formatMetric(null, 'IO/s')).toBe('–');
    expect(formatChange(1.2)).toBe('+20.0 %');
    expect(formatChange(0.919)).toBe('-8.1 %');
    expect(formatChange(1)).toBe('±0.0 %');
    expect(formatChange(13.2)).toBe('×13.2');
    expect(ciText(cell([100, 110, 90]))).toBe('±5.0 %');
    expect(axisLabel(40000, 'IO/s', 100000)).toBe('40k');
    expect(axisLabel(0.002, 's', 0.005)).toBe('2.00 ms');
  });

  it('colours by significance and direction', () => {
    const b = M.rows[1]!.cells;
    expect(sweepTone(b['rw=read iodepth=1'], 'higher', false)).toBe('better');
    expect(sweepTone(b['rw=read iodepth=8'], 'higher', false)).toBe('worse');
    expect(sweepTone(b['rw=read iodepth=8'], 'lower', false)).toBe('better');
    expect(sweepTone(b['rw=read iodepth=8'], 'neutral', false)).toBe('neutral');
    expect(sweepTone(b['rw=write iodepth=1'], 'higher', false)).toBe('same');
    expect(sweepTone(b['rw=write iodepth=8'], 'higher', false)).toBe('few');
    expect(sweepTone(b['rw=write iodepth=8'], 'higher', true)).toBe('none');
  });
});

describe('buildMatrix', () => {
  it('puts points in columns with merged parameter headers', () => {
    const v = buildMatrix(M, ['B', 'A'], true);
    expect(v.headers.map((h) => h.param)).toEqual(['rw', 'iodepth']);
    expect(v.headers[0]!.cells.map((c) => [c.text, c.span])).toEqual([['read', 2], ['write', 2]]);
    expect(v.headers[1]!.cells.map((c) => [c.text, c.key])).toEqual([['1', points[0]!.key], ['8', points[1]!.key], ['1', points[2]!.key], ['8', points[3]!.key]]);
    const [base, other] = v.rows;
    expect(base!.isBaseline && base!.color !== other!.color).toBe(true);
    expect(base!.cells[0]).toMatchObject({ main: '100', sub: '±5.0 %', tone: 'none' });
    expect(other!.cells.map((c) => [c.main, c.mark, c.tone])).toEqual([
      ['+20.0 %', '*', 'better'], ['-25.0 %', '*', 'worse'], ['±0.0 %', '', 'same'], ['+7.0 %', '?', 'few']]);
    expect(other!.cells[0]!.title).toContain("Welch's t-test: t = 5.00, df = 3.0, p = 0.0010 (significant)");
    expect(other!.cells[3]!.title).toContain('too few repeats');
    const abs = buildMatrix(M, ['A', 'B'], false);
    expect(abs.rows[1]!.cells[0]).toMatchObject({ main: '120', tone: 'better' });
  });

  it('shows a missing value as a dash', () => {
    const m: SweepMatrix = { ...M, rows: [M.rows[0]!, { ...M.rows[1]!, cells: {} }] };
    expect(buildMatrix(m, ['A', 'B'], true).rows[1]!.cells[0]).toMatchObject({ main: '–', empty: true });
  });
});

describe('buildLines', () => {
  it('defaults x to the last numeric parameter and fixes the others to their first value', () => {
    expect(defaultX(M)).toBe('iodepth');
    const d = buildLines(M, ['A', 'B'], null, {});
    if (d instanceof Error) throw d;
    expect(d.x).toBe('iodepth');
    expect(d.others).toEqual([{ name: 'rw', values: ['read', 'write'], fixed: 'read' }]);
    expect(d.series.map((s) => [s.label, s.points.map((p) => [p.x, p.mean])])).toEqual([
      ['base (n=3)', [['1', 100], ['8', 400]]],
      ['other (n=3)', [['1', 120], ['8', 300]]],
    ]);
    expect(d.series[0]!.points[0]).toMatchObject({ lo: 95, hi: 105 });
  });

  it('draws a line per value of a parameter set to "each"', () => {
    const d = buildLines(M, ['A', 'B'], 'iodepth', { rw: null });
    if (d instanceof Error) throw d;
    expect(d.series.map((s) => [s.label, s.dash])).toEqual([
      ['base · rw=read (n=3)', ''], ['base · rw=write (n=2–3)', '6 3'], ['other · rw=read (n=3)', ''], ['other · rw=write (n=2–3)', '6 3']]);
    const x = buildLines(M, ['A', 'B'], 'rw', { iodepth: '8' });
    if (x instanceof Error) throw x;
    expect(x.series[0]!.points.map((p) => p.x)).toEqual(['read', 'write']);
  });

  it('says so when nothing is swept', () => {
    expect(buildLines({ ...M, params: [] }, ['A'], null, {})).toBeInstanceOf(Error);
  });
});
