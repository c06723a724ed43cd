import { describe, expect, it } from 'vitest';
import { formatBucket, formatInstant, formatQuantity, formatRange, formatSize, formatSpan, latencyAxis, offsetAxis, sizeTicks, timeAxis, valueAxis } from './blockFormat';

const labels = (a: { ticks: { label: string }[] }) => a.ticks.map((t) => t.label);

describe('time axis', () => {
  it('whole run in seconds, decimals from the step', () => {
    const a = timeAxis([0, 3_456_000_000], 8);
    expect(a.unit).toBe('s');
    expect(labels(a)).toEqual(['0.0', '0.5', '1.0', '1.5', '2.0', '2.5', '3.0']);
  });
  it('a deep zoom keeps the unit of its position and adds decimals', () => {
    const a = timeAxis([2_345_100_000, 2_345_200_000], 5);
    expect(a.unit).toBe('s');
    expect(labels(a)).toEqual(['2.34510', '2.34512', '2.34514', '2.34516', '2.34518', '2.34520']);
  });
  it('ms and µs near the start of a run', () => {
    expect(timeAxis([0, 800_000_000], 4).unit).toBe('ms');
    expect(labels(timeAxis([0, 800_000_000], 4))).toEqual(['0', '200', '400', '600', '800']);
    expect(labels(timeAxis([0, 50_000], 5))).toEqual(['0', '10', '20', '30', '40', '50']);
    expect(timeAxis([0, 50_000], 5).unit).toBe('µs');
  });
});

describe('hover texts', () => {
  it('instants and buckets, precise to the interval', () => {
    expect(formatInstant(1_900_000_000, 5_000_000)).toBe('1.900 s');
    expect(formatInstant(1_036_500_000, 500_000)).toBe('1.0365 s');
    expect(formatInstant(845_200_000, 100_000)).toBe('845.2 ms');
    expect(formatInstant(0, 5_000_000)).toBe('0 ms');
    expect(formatBucket(1_900_000_000, 5_000_000)).toBe('1.900 s – 1.905 s');
    expect(formatRange(1_036_512_345, 1_555_512_345)).toBe('1.0365 – 1.5555 s');
  });
  it('interval widths', () => {
    expect([1, 20, 500_000, 1_000_000, 2_000_000, 1_000_000_000, 5_000_000_000].map(formatSpan)).toEqual(['1 ns', '20 ns', '500 µs', '1 ms', '2 ms', '1 s', '5 s']);
  });
  it('quantities carry their unit', () => {
    expect(formatQuantity(125_600, 'IO/s')).toBe('125.6k IO/s');
    expect(formatQuantity(3.2 * 1024 ** 3, 'B/s')).toBe('3.200 GiB/s');
    expect(formatQuantity(48_400, 'ns')).toBe('48.4 µs');
    expect(formatQuantity(11.7231, 'depth')).toBe('11.72 in flight');
    expect(formatQuantity(0.00034, 'depth')).toBe('3.4e-4 in flight');
    expect(formatQuantity(32, 'depth')).toBe('32 in flight');
    expect(formatQuantity(128, 'depth')).toBe('128 in flight');
    expect(formatQuantity(0, 'depth')).toBe('0 in flight');
    expect(formatQuantity(0.0152, 'share')).toBe('1.5 %');
    expect(formatQuantity(0.00002, 'share')).toBe('<0.1 %');
    expect(formatQuantity(null, 'ns')).toBe('–');
    expect(formatQuantity(205876, 'count')).toBe('205,876');
  });
  it('sizes', () => {
    expect([0, 512, 4096, 1536 * 1024, 2 ** 30].map(formatSize)).toEqual(['0 B', '512 B', '4 KiB', '1.5 MiB', '1 GiB']);
  });
});

describe('value axes', () => {
  it('IOPS with SI prefixes on the ticks', () => {
    const a = valueAxis(271_000, 'IO/s');
    expect(a.domain).toEqual([0, 300_000]);
    expect(labels(a)).toEqual(['0', '100k', '200k', '300k']);
    expect(a.unit).toBe('IOPS');
  });
  it('bytes per second in the binary unit of the largest value', () => {
    const a = valueAxis(3.3 * 1024 ** 3, 'B/s');
    expect(a.unit).toBe('GiB/s');
    expect(labels(a)).toEqual(['0', '1', '2', '3', '4']);
    expect(a.domain[1]).toBe(4 * 1024 ** 3);
    expect(valueAxis(900 * 1024 ** 2, 'B/s').unit).toBe('MiB/s');
  });
  it('queue depth and shares; an empty chart still has an axis', () => {
    expect(labels(valueAxis(31.4, 'depth'))).toEqual(['0', '10', '20', '30', '40']);
    expect(labels(valueAxis(0.117, 'share'))).toEqual(['0', '2', '4', '6', '8', '10', '12']);
    expect(valueAxis(0, 'depth').domain).toEqual([0, 1]);
  });
  it('latency on a log axis: 1-2-5 ticks over few decades, powers of ten beyond', () => {
    const a = latencyAxis(3_100, 48_400);
    expect(a.domain).toEqual([2000, 50_000]);
    expect(labels(a)).toEqual(['2 µs', '5 µs', '10 µs', '20 µs', '50 µs']);
    const b = latencyAxis(2_500, 31_700_000);
    expect(labels(b)).toEqual(['10 µs', '100 µs', '1 ms', '10 ms']);
    expect(b.domain).toEqual([2000, 50_000_000]);
    expect(latencyAxis(Infinity, 0).domain[0]).toBe(1);
  });
  it('disk offsets and size ticks', () => {
    const a = offsetAxis(0, 200 * 1024 ** 2);
    expect(a.unit).toBe('MiB');
    expect(labels(a)).toEqual(['0', '50', '100', '150', '200']);
    expect(sizeTicks(512, 1 << 20).map((t) => t.label)).toEqual(['512B', '2KiB', '8KiB', '32KiB', '128KiB', '512KiB']);
    expect(sizeTicks(4096, 16384).map((t) => t.label)).toEqual(['4KiB', '8KiB', '16KiB']);
  });
});
