// Layouts of the block cell's charts, and golden SVGs of each (charts/golden/*.svg).
import { describe, expect, it } from 'vitest';
import { latencyAxis, valueAxis } from '../logic/blockFormat';
import { lastEvents, maxOf, minPositive, shapeDepth, shapeFioIops, shapeLatency, shapeLatencyHistogram, shapeRates, shapeSizes } from '../logic/blockSeries';
import { CAPS, depth, histogram, iops, latency, runs, sizes } from '../testdata/block';
import { checkGolden } from './golden';
import { LatencyHistogramSvg } from './LatencyHistogram';
import { layoutLogHistogram } from './logHistogram';
import { layoutScatter, nearestPoint } from './sectorScatter';
import { layoutSizeBars, sizeClassLabel } from './sizeBars';
import { SizeBarsSvg } from './SizeBars';
import { TimeSeriesSvg } from './TimeSeriesChart';
import { bucketAt, layoutTimeSeries, linePath, TIME_MARGIN } from './timeSeries';

const last = lastEvents(runs);
const golden = (name: string, el: Parameters<typeof checkGolden>[1]) => expect(checkGolden(name, el)).toBeNull();

describe('time series layout', () => {
  const d = shapeDepth(depth, CAPS, last);
  const input = { width: 600, height: 150, domain: [0, 5_000_000] as [number, number], grid: d.grid, lines: d.lines, y: valueAxis(maxOf(d.lines), 'depth') };

  it('paths through bucket centres, gaps for nulls, aligned margins', () => {
    const l = layoutTimeSeries(input);
    expect(l.plot).toEqual({ left: TIME_MARGIN.left, top: TIME_MARGIN.top, right: 600 - TIME_MARGIN.right, bottom: 150 - TIME_MARGIN.bottom });
    // the first bucket's centre (0.5 ms of 5 ms) is a tenth of the plot width in
    expect(l.paths[0]!.d.startsWith(`M${Math.round((l.plot.left + (l.plot.right - l.plot.left) * 0.1) * 10) / 10},`)).toBe(true);
    // qd1 ends after its last event (3.5 ms): 4 points, no 5th
    expect(l.paths[0]!.d.match(/[ML]/g)).toHaveLength(4);
    expect(l.xTicks.map((t) => t.label)).toEqual(['0', '1', '2', '3', '4', '5']);
    expect(l.xUnit).toBe('ms');
    expect(l.t(l.x(1_234_567))).toBeCloseTo(1_234_567, 3);
  });
  it('line paths: gaps and lone points', () => {
    expect(linePath([0, 1, 2, 3, 4], [5, NaN, 7, 8, NaN])).toBe('M-1,5h2M2,7L3,8');
    expect(linePath([0.04, 1.06], [1.25, 2.349])).toBe('M0,1.3L1.1,2.3');
  });
  it('bucketAt', () => {
    expect([-1, 0, 999_999, 1_000_000, 4_999_999, 5_000_000].map((t) => bucketAt(d.grid, t))).toEqual([-1, 0, 0, 1, 4, -1]);
  });
  it('golden: queue depth', () => golden('timeseries-queue-depth', <TimeSeriesSvg l={layoutTimeSeries(input)} clipId="c1" />));
  it('golden: latency percentiles on a log axis', () => {
    const s = shapeLatency(latency, CAPS, last, ['p50', 'p99', 'max']);
    const l = layoutTimeSeries({ width: 600, height: 170, domain: [0, 5_000_000], grid: s.grid, lines: s.lines, y: latencyAxis(minPositive(s.lines), maxOf(s.lines)) });
    expect(l.yTicks.map((t) => t.label)).toEqual(['10 µs', '100 µs', '1 ms']);
    golden('timeseries-latency', <TimeSeriesSvg l={l} clipId="c2" />);
  });
  it("golden: IOPS with fio's own IOPS log dashed over it, with gaps where the log does not cover", () => {
    const r = shapeRates(iops, CAPS, last, { metric: 'iops', op: 'all', split: false });
    const lines = [...r.lines, ...shapeFioIops(iops, CAPS, 'all').lines];
    const l = layoutTimeSeries({ width: 600, height: 140, domain: [0, 5_000_000], grid: r.grid, lines, y: valueAxis(maxOf(lines), 'IO/s') });
    const fio = l.paths.find((p) => p.key.endsWith('|fio'))!;
    expect(fio.dash).toBe('12 4');
    // buckets 1..3 only: three points, no line to the uncovered buckets 0 and 4
    expect(fio.d.match(/[ML]/g)).toHaveLength(3);
    golden('timeseries-iops-fio', <TimeSeriesSvg l={l} clipId="c3" />);
  });
  it('a kept answer of a wider range is clipped to the new domain', () => {
    const l = layoutTimeSeries({ ...input, domain: [1_000_000, 2_000_000] });
    // buckets 0..2 near the range are drawn (one beyond each end), 3 and 4 are not
    expect(l.paths[1]!.d.match(/[ML]/g)).toHaveLength(3);
  });
});

describe('latency histogram', () => {
  const hs = shapeLatencyHistogram(histogram, CAPS, 'all');
  const l = layoutLogHistogram(hs.map((h) => ({ ...h, color: h.meta.color })), 480, 200);
  it('a step outline per series, gaps between separated bins, p50/p99 marks', () => {
    expect(l.series).toHaveLength(2);
    // qd1: bins 96-98 contiguous, then 110 alone: two sub-paths
    expect(l.series[0]!.line.match(/M/g)).toHaveLength(2);
    expect(l.series[0]!.marks.map((m) => m.p)).toEqual(['p50', 'p99']);
    expect(l.xTicks.map((t) => t.label)).toEqual(['2 µs', '5 µs', '10 µs', '20 µs', '50 µs', '100 µs', '200 µs', '500 µs']);
    expect(l.v(l.x(12_345))).toBeCloseTo(12_345, 3);
  });
  it('golden', () => golden('latency-histogram', <LatencyHistogramSvg l={l} />));
});

describe('request sizes', () => {
  const ss = shapeSizes(sizes, CAPS, 'all');
  const l = layoutSizeBars(ss.map((s) => ({ ...s, color: s.meta.color })), 480, 200);
  it('one group per size class, one bar per series present', () => {
    expect(l.groups.map((g) => g.label)).toEqual(['0', '4K', '8K', '512K']);
    expect(l.bars.map((b) => `${b.group}:${b.key.split('|')[0]!.slice(0, 1)}`)).toEqual(['1:a', '2:a', '0:b', '1:b', '3:b']);
    expect(Math.max(...l.bars.map((b) => b.w))).toBeLessThanOrEqual(28);
    expect([0, 512, 4096, 1 << 20].map(sizeClassLabel)).toEqual(['0', '512', '4K', '1M']);
  });
  it('golden', () => golden('size-bars', <SizeBarsSvg l={l} />));
});

describe('sector scatter', () => {
  const series = [
    { key: 'a', color: '#4e79a7', t: [0, 1_000_000, 2_000_000], sector: [0, 2048, 409_600], bytes: [4096, 4096, null], op: ['read', 'write', 'read'] },
    { key: 'b', color: '#f28e2b', t: [500_000], sector: [100_000], bytes: [524_288], op: ['read'] },
  ];
  const l = layoutScatter(series, [0, 2_000_000], 600, 260);
  it('time on the shared axis, disk offset (sector x 512) in a binary unit', () => {
    expect(l.plot.left).toBe(TIME_MARGIN.left);
    expect(l.yUnit).toBe('MiB');
    expect(l.yTicks.map((t) => t.label)).toEqual(['0', '50', '100', '150', '200']);
    expect(l.x(2_000_000)).toBe(l.plot.right);
  });
  it('the nearest point within a few pixels', () => {
    expect(nearestPoint(series, l, l.x(1_000_000) + 2, l.y(2048 * 512) - 1)).toEqual([0, 1]);
    expect(nearestPoint(series, l, l.x(500_000), l.y(100_000 * 512))).toEqual([1, 0]);
    expect(nearestPoint(series, l, l.x(1_500_000), l.plot.top)).toBeNull();
  });
});
