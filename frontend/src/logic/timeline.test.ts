import { describe, expect, it } from 'vitest';
import { AXIS_H, brushed, CHART_ROW, CPU_ROW, EMPTY_ROW, layoutRows, taskColour, tickText, ticks, tOf, xOf } from './timeline';

describe('timeline layout', () => {
  it('one row per CPU, two for the device, one each for fio and samples; empty tracks say why', () => {
    const { rows, height } = layoutRows([
      { track: 'cpu', available: true, note: null, cpus: [0, 1] },
      { track: 'block', available: true, note: null },
      { track: 'fio', available: false, note: 'fio wrote no IOPS log' },
      { track: 'samples', available: true, note: null },
    ]);
    expect(rows.map((r) => r.key)).toEqual(['cpu0', 'cpu1', 'depth', 'iops', 'fio-none', 'samples']);
    expect(rows[0]!.y).toBe(AXIS_H);
    expect(rows[1]!.y).toBe(AXIS_H + CPU_ROW + 2);
    expect(rows[4]!.empty).toBe('fio wrote no IOPS log');
    expect(height).toBe(AXIS_H + 2 * (CPU_ROW + 2) + 3 * (CHART_ROW + 2) + EMPTY_ROW + 2);
  });
  it('maps time to pixels and back; a drag is a range, a click is not', () => {
    const s = { from: 0, to: 10e9, left: 100, width: 1000 };
    expect(xOf(s, 5e9)).toBe(600);
    expect(tOf(s, 600)).toBe(5e9);
    expect(tOf(s, 0)).toBe(0); // clamped to the plot
    expect(brushed(s, 300, 200)).toEqual([1e9, 2e9]);
    expect(brushed(s, 300, 302)).toBeNull();
  });
  it('round ticks', () => {
    expect(ticks(0, 10e9, 5)).toEqual({ t: [0, 2e9, 4e9, 6e9, 8e9, 10e9], step: 2e9 });
    expect(tickText(2e9, 2e9)).toBe('2 s');
    // a narrow plot asks for 2 ticks of a 4.004 s run: a step of 2 s (5 s would leave '0 s' alone)
    expect(ticks(0, 4.004e9, 2)).toEqual({ t: [0, 2e9, 4e9], step: 2e9 });
    expect(ticks(0, 1.1e9, 2).t.length).toBeGreaterThanOrEqual(2);
    expect(tickText(1.5e9, 5e8)).toBe('1.5 s');
    expect(tickText(2e6, 1e6)).toBe('2 ms');
    expect(tickText(2_500_000, 500_000)).toBe('2.5 ms');
    expect(tickText(40_000, 20_000)).toBe('40 µs');
  });
  it('task colours: busiest first, the rest grey, idle transparent', () => {
    const names = ['fio', 'kworker/*', 'other'];
    expect(taskColour(0, names)).not.toBe(taskColour(1, names));
    expect(taskColour(2, names)).toBe('#9aa1ad');
    expect(taskColour(-1, names)).toBe('transparent');
  });
});
