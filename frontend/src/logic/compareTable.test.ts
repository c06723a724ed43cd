import { describe, expect, it } from 'vitest';
import { A, B, C, comparison } from '../testdata/fixtures';
import { buildFioTable, legendNeeds, orderColumns } from './compareTable';

describe('buildFioTable', () => {
  const t = buildFioTable(comparison);

  it('puts the baseline first, keeping colours by request order', () => {
    const cols = orderColumns({ ...comparison, baseline: B });
    expect(cols.map((c) => c.id)).toEqual([B, A, C]);
    expect(cols[0]!.isBaseline).toBe(true);
    const again = orderColumns(comparison);
    expect(cols.find((c) => c.id === A)!.color).toBe(again.find((c) => c.id === A)!.color);
  });

  it('one group per job x direction, rows in server order', () => {
    expect(t.groups.map((g) => [g.job, g.ddir])).toEqual([['randwrite', 'write']]);
    expect(t.groups[0]!.rows.map((r) => r.metric)).toEqual(['iops', 'bw_bytes', 'clat_mean_ns', 'clat_p50_ns', 'clat_p99_ns', 'clat_p99_9_ns', 'usr_cpu', 'sys_cpu']);
    expect(t.metrics.map((m) => m.label)).toContain('clat p99.9');
  });

  it('formats each cell: mean, spread, n, ratio, tone', () => {
    const iops = t.groups[0]!.rows[0]!;
    const [base, ext4, old] = iops.cells;
    expect(base!.column.id).toBe(A);
    expect(base!.mean).toBe('171.2k IO/s');
    expect(base!.spread).toBe('±1.2k IO/s');
    expect(base!.n).toBe(3);
    expect(base!.ratio).toBe('');
    expect(base!.tone).toBe('none');
    expect(ext4!.ratio).toBe('-11.1 %');
    expect(ext4!.tone).toBe('worse');
    expect(old!.spread).toBe('21.50–23.90k IO/s'); // decimals of the mean (22.70k)
    expect(old!.n).toBe(2);
  });

  it('colours lower-is-better metrics and grey for overlapping ranges', () => {
    const rows = Object.fromEntries(t.groups[0]!.rows.map((r) => [r.metric, r]));
    expect(rows['clat_mean_ns']!.cells[1]!.tone).toBe('worse'); // ext4 slower
    expect(rows['clat_p99_ns']!.cells[1]!.tone).toBe('same'); // overlapping repeats
    expect(rows['usr_cpu']!.cells[1]!.tone).toBe('neutral'); // CPU % of a timed run: no better direction
  });

  it('greys a change with too few repeats (n = 2) as the sweep matrix, and says why', () => {
    const iops = t.groups[0]!.rows[0]!;
    const old = iops.cells[2]!;
    expect(old.tone).toBe('few'); // 22.7k against 171.2k, but 2 repeats: not red
    expect(old.title).toContain('too few repeats to judge the change (3 needed on both sides): n = 2 here, 3 in the baseline');
    expect(legendNeeds(t.columns, t.groups.flatMap((g) => g.rows))).toEqual({ compared: true, few: true, minRepeats: 3 });
  });

  it('a single capture: nothing compared, the legend names no baseline colours', () => {
    const one = buildFioTable({ ...comparison, captures: comparison.captures.filter((c) => c.id === A) });
    expect(legendNeeds(one.columns, one.groups.flatMap((g) => g.rows))).toEqual({ compared: false, few: false, minRepeats: 3 });
    const noOld = buildFioTable({ ...comparison, captures: comparison.captures.filter((c) => c.id !== C) });
    expect(legendNeeds(noOld.columns, noOld.groups.flatMap((g) => g.rows)).few).toBe(false);
  });

  it('shares one x domain per row over every repeat of every capture', () => {
    const iops = t.groups[0]!.rows[0]!;
    expect(iops.domain).toEqual([21500, 172500]);
    expect(iops.baselineMean).toBeCloseTo((171234 + 170010 + 172500) / 3);
  });

  it('titles say where a number comes from', () => {
    const cell = t.groups[0]!.rows[0]!.cells[1]!;
    expect(cell.title).toContain('6.18-ext4 (8c7d6e5f4a3b2c1d)');
    expect(cell.title).toContain('IOPS [IO/s]');
    expect(cell.title).toContain('3 repeats: 152100, 150980, 153800 IO/s');
    expect(cell.title).toContain('runs: r000, r001, r002');
    expect(cell.title).toContain('vs baseline 6.18-xfs: -11.1 %');
  });

  it('a metric selection limits and orders the rows; unknown keys are ignored', () => {
    const s = buildFioTable(comparison, ['clat_p99_ns', 'iops', 'nope']);
    expect(s.groups[0]!.rows.map((r) => r.metric)).toEqual(['clat_p99_ns', 'iops']);
    expect(s.metrics.length).toBe(8);
  });

  it('a capture without the job shows an empty cell, not a crash', () => {
    const cmp = structuredClone(comparison);
    delete cmp.groups[0]!.metrics[0]!.cells[C];
    const row = buildFioTable(cmp).groups[0]!.rows[0]!;
    const missing = row.cells[2]!;
    expect(missing.stat).toBeNull();
    expect(missing.mean).toBe('–');
    expect(missing.ratio).toBe('');
    expect(missing.title).toContain('no value');
  });
});
