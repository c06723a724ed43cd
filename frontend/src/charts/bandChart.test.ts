import { describe, expect, it } from 'vitest';
import { layoutBandChart } from './bandChart';

const series = [
  { key: 'a', label: 'A', color: '#111', dash: '', points: [{ x: '1', mean: 10, lo: 8, hi: 12, title: 'a1' }, { x: '8', mean: 40, lo: 35, hi: 45, title: 'a8' }] },
  { key: 'b', label: 'B', color: '#222', dash: '6 3', points: [{ x: '8', mean: 30, lo: 30, hi: 30, title: 'b8' }, { x: '1', mean: 12, lo: 12, hi: 12, title: 'b1' }] },
];

describe('layoutBandChart', () => {
  it('lays out categories evenly with y from 0 and a band per line', () => {
    const l = layoutBandChart({ width: 400, height: 200, x: { kind: 'category', values: ['1', '8', '32'] }, series, yLabel: (v) => String(v), xTitle: 'iodepth' });
    if (l instanceof Error) throw l;
    expect(l.xTicks.map((t) => t.label)).toEqual(['1', '8', '32']);
    expect(l.yTicks[0]!.label).toBe('0');
    expect(l.yTicks[0]!.y).toBe(l.plot.bottom);
    const [a, b] = l.series;
    expect(a!.band).toMatch(/^M/);
    expect(b!.band).toBeNull(); // no spread: no band
    expect(b!.dots.map((d) => d.title)).toEqual(['b1', 'b8']); // sorted by x
    expect(a!.dots[1]!.y).toBeLessThan(a!.dots[0]!.y); // 40 above 10
    expect(l.series[1]!.dash).toBe('6 3');
  });

  it('lays out a linear time axis and can leave the bands out', () => {
    const l = layoutBandChart({
      width: 500, height: 200, x: { kind: 'linear', unit: ' s' }, bands: false, yLabel: (v) => String(v), xTitle: 't',
      series: [{ key: 'a', label: 'A', color: '#111', dash: '', points: [0.5, 1, 1.5, 2].map((t) => ({ x: t, mean: 100 * t, lo: 50, hi: 400, title: '' })) }],
    });
    if (l instanceof Error) throw l;
    expect(l.xTicks[0]!.label).toBe('0 s');
    expect(l.series[0]!.band).toBeNull();
    expect(Math.max(...l.yTicks.map((t) => Number(t.label)))).toBe(200); // bands off: the y range follows the means
  });

  it('reports an empty chart', () => {
    expect(layoutBandChart({ width: 100, height: 100, x: { kind: 'linear', unit: '' }, series: [], yLabel: String, xTitle: '' })).toBeInstanceOf(Error);
  });
});
