import { describe, expect, it } from 'vitest';
import { layoutSqlChart, numericColumns, type ChartLayout } from './sqlChart';

const cols = ['run', 'label', 'iops', 'lat'];
const rows = [
  [2, 'xfs', 1500, 0.8],
  [0, 'ext4', 1000, 1.2],
  [1, 'ext4', 1100, null],
];

describe('SQL chart layout', () => {
  it('numeric x: linear and sorted for a line', () => {
    const l = layoutSqlChart(cols, rows, { mark: 'line', x: 'run', y: ['iops'] }) as ChartLayout;
    const xs = l.series[0]!.points.map((p) => p.x);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(l.series[0]!.path).toMatch(/^M[\d.]+,[\d.]+L/);
    // higher value, smaller y
    const ys = l.series[0]!.points.map((p) => p.y);
    expect(ys[0]).toBeGreaterThan(ys[2]!);
    expect(l.xTicks.length).toBeGreaterThan(1);
  });

  it('text x: categories in row order; bars grouped, from zero', () => {
    const l = layoutSqlChart(cols, rows, { mark: 'bar', x: 'label', y: ['iops', 'lat'] }) as ChartLayout;
    expect(l.xTicks.map((t) => t.label)).toEqual(['xfs', 'ext4']);
    expect(l.series.map((s) => s.bars.length)).toEqual([3, 2]);
    expect(l.skipped).toBe(1);
    for (const b of l.series[0]!.bars) expect(b.y + b.h).toBeCloseTo(l.plot.bottom, 0);
  });

  it('bar charts treat numbers on x as categories', () => {
    const l = layoutSqlChart(cols, rows, { mark: 'bar', x: 'run', y: ['iops'] }) as ChartLayout;
    expect(l.xTicks.map((t) => t.label)).toEqual(['2', '0', '1']);
  });

  it('says what is wrong instead of drawing nonsense', () => {
    expect((layoutSqlChart(cols, rows, { mark: 'line', x: 'nope', y: ['iops'] }) as Error).message).toMatch(/x column 'nope'/);
    expect((layoutSqlChart(cols, rows, { mark: 'line', x: 'run', y: ['nope'] }) as Error).message).toMatch(/not in the result/);
    expect((layoutSqlChart(cols, [[1, 'a', null, null]], { mark: 'scatter', x: 'run', y: ['iops'] }) as Error).message).toMatch(/no numbers/);
  });

  it('numeric columns', () => {
    expect(numericColumns(cols, rows)).toEqual(['run', 'iops', 'lat']);
  });
});
