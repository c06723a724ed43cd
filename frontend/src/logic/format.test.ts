import { describe, expect, it } from 'vitest';
import { vectors } from '../testdata/vectors';
import { extentOf, formatBytes, formatDate, formatDuration, formatMonitor, formatRatio, formatSpread, formatValue, scaleFor, timeColumn, type SpreadInput } from './format';

interface NumberVectors {
  values: { v: number; unit: string; app: string }[];
  spreads: (SpreadInput & { unit: string; app: string })[];
  monitors: { v: number; unit: string; app: string }[];
}
const NUMBERS = vectors<NumberVectors>('number-format');

describe('the number rule shared with the text exports (testdata/vectors/number-format.json)', () => {
  it.each(NUMBERS.values.map((c) => [c.v, c.unit, c.app] as const))('%s %s -> %s', (v, unit, app) => expect(formatValue(v, unit)).toBe(app));
  it.each(NUMBERS.spreads.map((c) => [JSON.stringify(c), c] as const))('spread %s', (_, c) => expect(formatSpread(c, c.unit)).toBe(c.app));
  it.each(NUMBERS.monitors.map((c) => [c.v, c.unit, c.app] as const))('monitor %s %s -> %s', (v, unit, app) => expect(formatMonitor(v, unit)).toBe(app));
});

interface TimeVectors {
  cases: {
    name: string;
    values?: (number | null)[];
    ramp?: { first: number; step: number; count: number };
    signed: boolean;
    unit: string;
    texts?: (string | null)[];
    texts_at?: [number, string][];
  }[];
}
const TIMES = vectors<TimeVectors>('time-column');

describe('a column of times in one unit, shared with the text exports (testdata/vectors/time-column.json)', () => {
  it.each(TIMES.cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const values = c.ramp ? Array.from({ length: c.ramp.count }, (_, i) => c.ramp!.first + i * c.ramp!.step) : c.values!;
    const col = timeColumn(values, c.signed);
    expect(col.unit).toBe(c.unit === 'us' ? 'µs' : c.unit);
    if (c.texts_at) expect(c.texts_at.map(([i]) => [i, col.format(values[i])])).toEqual(c.texts_at);
    else expect(values.map(col.format)).toEqual(c.texts!.map((t) => t ?? '–'));
  });
});

describe('extentOf', () => {
  it('takes the extent of more values than a spread into Math.min can, and of none', () => {
    const many = Array.from({ length: 300_000 }, (_, i) => ((i * 7919) % 300_007) - 5);
    expect(extentOf(many)).toEqual([-5, 300_001]);
    expect(extentOf([])).toEqual([Infinity, -Infinity]);
  });
});

describe('formatValue', () => {
  it.each([
    [171234, '171.2k IO/s'],
    [1_600_000, '1.600M IO/s'],
    [12345, '12.35k IO/s'],
    [999.96, '1.000k IO/s'],
    [845, '845 IO/s'],
    [84.5, '84.5 IO/s'],
    [0, '0 IO/s'],
  ])('IOPS %s -> %s', (v, s) => expect(formatValue(v, 'IO/s')).toBe(s));

  it.each([
    [701374464, '668.9 MiB/s'],
    [1.5 * 1024 ** 3, '1.500 GiB/s'],
    [12.5 * 1024, '12.50 KiB/s'],
    [512, '512 B/s'],
  ])('bandwidth %s -> %s', (v, s) => expect(formatValue(v, 'B/s')).toBe(s));

  it.each([
    [845_100, '845 µs'],
    [1_234_000, '1.23 ms'],
    [84_500, '84.5 µs'],
    [999, '999 ns'],
    [999_700, '1.00 ms'],
    [2_500_000_000, '2.50 s'],
    [450, '450 ns'],
  ])('latency %s ns -> %s', (v, s) => expect(formatValue(v, 'ns')).toBe(s));

  it('CPU percent', () => {
    expect(formatValue(12.34, '%')).toBe('12.3 %');
    expect(formatValue(0, '%')).toBe('0.0 %');
  });

  it('missing values and unknown units', () => {
    expect(formatValue(null, 'ns')).toBe('–');
    expect(formatValue(Number.NaN, 'ns')).toBe('–');
    expect(formatValue(1500, 'inodes/s')).toBe('1.5k inodes/s');
  });

  it('events per second and CPUs utilized', () => {
    expect(formatValue(34747.0077, '/s')).toBe('34.75k/s');
    expect(formatValue(8.46, '/s')).toBe('8.5/s');
    expect(formatValue(0.2721, 'CPUs')).toBe('0.272 CPUs');
    expect(formatValue(1.254, 'CPUs')).toBe('1.25 CPUs');
    expect(formatSpread({ n: 3, mean: 14186, stddev: 1013, min: 13542, max: 15354 }, '/s')).toBe('±1.01k/s');
  });

  it('negative values keep an ASCII minus', () => {
    expect(formatValue(-1234000, 'ns')).toBe('-1.23 ms');
  });
});

describe('formatSpread', () => {
  it('± stddev in the scale and decimals of the mean when n >= 3', () => {
    expect(formatSpread({ n: 3, mean: 171234, stddev: 1245, min: 170010, max: 172500 }, 'IO/s')).toBe('±1.2k IO/s');
    expect(formatSpread({ n: 3, mean: 845_100, stddev: 5_150, min: 839_900, max: 850_200 }, 'ns')).toBe('±5 µs');
    expect(formatSpread({ n: 3, mean: 1_234_000, stddev: 52_000, min: 1e6, max: 1.3e6 }, 'ns')).toBe('±0.05 ms');
    expect(formatSpread({ n: 4, mean: 701374464, stddev: 5e6, min: 6e8, max: 7e8 }, 'B/s')).toBe('±4.8 MiB/s');
  });
  it('min–max when n = 2', () => {
    expect(formatSpread({ n: 2, mean: 171255, stddev: 1760, min: 170010, max: 172500 }, 'IO/s')).toBe('170.0–172.5k IO/s');
    expect(formatSpread({ n: 2, mean: 12.5, stddev: 0.4, min: 12.1, max: 12.9 }, '%')).toBe('12.1–12.9 %');
  });
  it('nothing for a single repeat', () => {
    expect(formatSpread({ n: 1, mean: 5, stddev: null, min: 5, max: 5 }, '%')).toBe('');
    expect(formatSpread({ n: 0, mean: null, stddev: null, min: null, max: null }, '%')).toBe('');
  });
});

describe('formatRatio', () => {
  it.each([
    [1.123, '+12.3 %'],
    [0.919, '-8.1 %'],
    [1, '±0.0 %'],
    [1.00004, '±0.0 %'],
    [0.5, '-50.0 %'],
    [25, '×25'],
    [1.99, '+99.0 %'],
    [2, '×2'],
    [10.79, '×10.8'],
    [16.8, '×16.8'],
    [0.05, '-95.0 %'],
  ])('%s -> %s', (r, s) => expect(formatRatio(r)).toBe(s));
  it('empty for missing ratios', () => {
    expect(formatRatio(null)).toBe('');
    expect(formatRatio(Number.POSITIVE_INFINITY)).toBe('');
  });
});

describe('scaleFor', () => {
  it('picks one scale for a mean so spread aligns', () => {
    expect(scaleFor(171234, 'IO/s')).toEqual({ factor: 1000, suffix: 'k IO/s', decimals: 1 });
    expect(scaleFor(845100, 'ns')).toEqual({ factor: 1000, suffix: ' µs', decimals: 0 });
  });
});

describe('dates, durations, sizes', () => {
  it('formats timestamps in UTC', () => {
    expect(formatDate('2026-11-22T02:50:11.123456Z')).toBe('2026-11-22 02:50');
    expect(formatDate('2026-11-22T03:50:11+01:00')).toBe('2026-11-22 02:50');
    expect(formatDate('2026-11-22T02:50:11Z', true)).toBe('2026-11-22 02:50:11');
    expect(formatDate('yesterday')).toBe('yesterday');
    expect(formatDate(null)).toBe('–');
  });
  it('durations', () => {
    expect(formatDuration('2026-11-22T02:50:12.000000Z', '2026-11-22T02:50:22.500000Z')).toBe('10.5 s');
    expect(formatDuration('2026-11-22T02:50:00Z', '2026-11-22T02:52:03Z')).toBe('2 min 03 s');
    expect(formatDuration(null, '2026-11-22T02:52:03Z')).toBe('');
  });
  it('sizes', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(18234)).toBe('17.8 KiB');
    expect(formatBytes(48213)).toBe('47.1 KiB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.00 GiB');
  });
});
