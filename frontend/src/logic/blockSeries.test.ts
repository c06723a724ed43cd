import { describe, expect, it } from 'vitest';
import { CAPS, depth, histogram, iops, latency, runs, sizes } from '../testdata/block';
import {
  binPercentile,
  endAt,
  FIO_DASH,
  fioKeyLabel,
  gatherWarnings,
  lastEvents,
  lostIn,
  maxOf,
  robustTop,
  minPositive,
  mix,
  opCounts,
  seriesMetas,
  shapeDepth,
  shapeFioIops,
  shapeLatency,
  shapeLatencyHistogram,
  shapeRates,
  shapeSizes,
  sizeSummary,
  sourceWords,
} from './blockSeries';
import { captureColor } from './colors';
import { vectors } from '../testdata/vectors';

const last = lastEvents(runs);

describe('series identity and colour', () => {
  it('capture colour by notebook position; later runs of a capture shaded', () => {
    const m = seriesMetas(depth.series, CAPS);
    expect(m.map((x) => x.key)).toEqual([`${CAPS[0]}:r000`, `${CAPS[1]}:r000`, `${CAPS[1]}:r001`]);
    expect(m[0]!.color).toBe(captureColor(0));
    expect(m[1]!.color).toBe(captureColor(1));
    expect(m[2]!.color).toBe(mix(captureColor(1), 0.4));
    expect(m[2]!.eventsLost).toBe(true);
    // the colour follows the notebook's order, not the answer's
    expect(seriesMetas(depth.series, [CAPS[1]!, CAPS[0]!])[0]!.color).toBe(captureColor(1));
  });
  it('mix', () => {
    expect(mix('#4e79a7', 0)).toBe('#4e79a7');
    expect(mix('#000000', 0.5)).toBe('#808080');
    expect(mix('#ffffff', -0.5)).toBe('#808080');
    expect(mix('red', 0.5)).toBe('red');
  });
});

describe('shaping', () => {
  it('queue depth: one line per run, ended after its last event', () => {
    const s = shapeDepth(depth, CAPS, last);
    expect(s.grid).toEqual({ t: depth.t_ns, interval: 1_000_000 });
    expect(s.lines.map((l) => l.values)).toEqual([
      [0, 0.5, 0.9, 0.8, null],
      [2, 31.5, 30, 12, 1],
      [1, 20, 25, 18, 0],
    ]);
    expect(endAt([1, 2], { t: [0, 10], interval: 10 }, undefined)).toEqual([1, 2]);
  });
  it('rates: operations summed, one operation, or one line per operation', () => {
    const all = shapeRates(iops, CAPS, last, { metric: 'iops', op: 'all', split: false });
    expect(all.lines[1]!.values).toEqual([1000, 200_000, 251_000, 240_000, 3000]);
    expect(all.ops).toEqual(['read', 'write', 'flush']);
    const reads = shapeRates(iops, CAPS, last, { metric: 'iops', op: 'read', split: false });
    expect(reads.lines.map((l) => l.values[2])).toEqual([90_000, 250_000, 0]);
    expect(reads.lines[0]!.measure).toBe('read');
    const split = shapeRates(iops, CAPS, last, { metric: 'bytes_per_s', op: 'all', split: true });
    // flushes move no bytes: no line for them
    expect(split.lines.map((l) => l.key)).toEqual([`${CAPS[0]}:r000|read`, `${CAPS[1]}:r000|read`, `${CAPS[1]}:r001|write`]);
    expect(split.lines.map((l) => l.dash)).toEqual(['', '', '5 3']);
  });
  it('op counts: rates back to I/Os, most first', () => {
    expect(opCounts(iops)).toEqual([
      { op: 'read', count: 914 },
      { op: 'write', count: 330 },
      { op: 'flush', count: 1 },
    ]);
  });
  it('latency: the measures asked for, dashed by measure', () => {
    const s = shapeLatency(latency, CAPS, last, ['p50', 'p99']);
    expect(s.lines.map((l) => `${l.meta.label} ${l.measure} ${l.dash || 'solid'}`)).toEqual(['qd1 p50 solid', 'qd1 p99 3 2', 'qd32 / r000 p50 solid', 'qd32 / r000 p99 3 2']);
    expect(s.lines[0]!.values).toEqual([null, 4300, 4300, 4700, null]);
    expect(maxOf(s.lines)).toBe(150_000);
    expect(minPositive(s.lines)).toBe(4300);
    expect(minPositive([])).toBe(Infinity);
  });
  it('latency histogram: shares, operations summed, percentiles by fio rule', () => {
    const [a, b] = shapeLatencyHistogram(histogram, CAPS, 'all');
    expect(a!.total).toBe(200);
    expect(a!.bins.map((x) => x.share)).toEqual([0.5, 0.3, 0.15, 0.05]);
    expect(a!.p50).toBeCloseTo(Math.sqrt(2 ** 12 * 2 ** (97 / 8)), 6);
    expect(a!.p99).toBeCloseTo(Math.sqrt(2 ** (110 / 8) * 2 ** (111 / 8)), 6);
    expect(b!.total).toBe(381);
    expect(b!.bins.find((x) => x.low === 2 ** (127 / 8))!.count).toBe(210);
    const readsOnly = shapeLatencyHistogram(histogram, CAPS, 'read');
    expect(readsOnly[1]!.total).toBe(370);
    expect(binPercentile([], 50)).toBeNull();
  });
  it('sizes: power-of-two classes, requests without data apart, the most frequent exact size', () => {
    const [a, b] = shapeSizes(sizes, CAPS, 'all');
    expect(a!.bins.map((x) => [x.low, x.count])).toEqual([
      [4096, 220],
      [8192, 1],
    ]);
    expect(b!.bins.map((x) => [x.low, x.high, x.count, x.mode])).toEqual([
      [0, 1, 5, 0],
      [4096, 8192, 690, 4096],
      [524288, 1048576, 92, 524288],
    ]);
    expect(b!.totalBytes).toBe(690 * 4096 + 89 * 524288 + 3 * 528384);
    expect(shapeSizes(sizes, CAPS, 'write')[1]!.total).toBe(94);
  });
  it('sizes legend: a mean of mostly 4 KiB is 4.01 KiB, so the most frequent size and its share stand beside it', () => {
    // 1,149 writes of 4 KiB, one of 16 KiB, one of 512 B (vmlab-lockstat-6.12, plain)
    const s = { total: 1151, totalBytes: 1149 * 4096 + 16384 + 512, mode: 4096, modeShare: 1149 / 1151 };
    expect(sizeSummary(s)).toEqual({ mode: '4 KiB', share: '99.8%', mean: '4.01 KiB' });
    expect(sizeSummary({ total: 1398, totalBytes: 1398 * 4096, mode: 4096, modeShare: 1 })).toEqual({ mode: '4 KiB', share: 'all', mean: '4 KiB' });
    expect(sizeSummary({ total: 0, totalBytes: 0, mode: 0, modeShare: 0 })).toBeNull();
    const [, b] = shapeSizes(sizes, CAPS, 'all');
    expect([b!.mode, b!.modeShare]).toEqual([4096, 690 / b!.total]);
  });
});

describe('warnings', () => {
  it('gathered once per run across answers; lost runs apart', () => {
    const w = gatherWarnings([depth, iops, undefined, latency], CAPS);
    expect(w.all.map((x) => x.label)).toEqual(['qd1', 'qd32 / r000', 'qd32 / r001']);
    expect(w.lost.map((x) => x.label)).toEqual(['qd32 / r001']);
    expect(w.lost[0]!.warnings).toHaveLength(2);
    expect(lostIn(shapeDepth(depth, CAPS, last).lines).map((m) => m.label)).toEqual(['qd32 / r001']);
  });
  it('source in words', () => {
    expect(sourceWords('tiles 1000000 ns')).toBe('from 1 ms tiles');
    expect(sourceWords('tiles 10000 ns')).toBe('from 10 µs tiles');
    expect(sourceWords('rows')).toBe('from the I/O rows');
    expect(sourceWords('sample 1 in 64')).toBe('a sample, 1 in 64 I/Os');
  });
});

describe("fio's own IOPS log", () => {
  const withTwo = {
    ...iops,
    series: iops.series.map((s, i) =>
      i === 1
        ? {
            ...s,
            fio_iops: {
              aligned: true,
              note: null,
              logs: [
                { path: 'runs/r000/logs/0-rr_iops.1.log', job: 'rr', job_index: 0, clone: 1, avg_msec: 100, from_ns: 0, to_ns: 3_000_000 },
                { path: 'runs/r000/logs/0-rr_iops.2.log', job: 'rr', job_index: 0, clone: 2, avg_msec: 100, from_ns: 0, to_ns: 3_000_000 },
              ],
              ddirs: [
                { ddir: 'read', iops: [900, 180_000, 240_000, null, null], mean_iops: 140_000 },
                { ddir: 'trim', iops: [0, 1000, null, null, null], mean_iops: 500 },
              ],
            },
          }
        : s,
    ),
  };
  it('a dashed line in the capture colour, where the log covers the bucket, null elsewhere', () => {
    const f = shapeFioIops(iops, CAPS, 'all');
    expect(f.lines).toHaveLength(1);
    const l = f.lines[0]!;
    expect(l.key).toBe(`${CAPS[0]}:r000|fio`);
    expect(l.color).toBe(seriesMetas(iops.series, CAPS)[0]!.color);
    expect(l.dash).toBe(FIO_DASH);
    expect(l.values).toEqual([null, 49_000, 91_000, 79_000, null]);
    expect(l.measure).toBe('fio iops log, read');
    expect(l.detail).toBe("run r000 · fio job randread · runs/r000/logs/0-randread_iops.1.log · 100 ms windows, on the run's clock");
    expect(f.windows).toEqual([100]);
    // the zero-based log of r001 is not drawn: a note says why
    expect(f.notes.map((n) => [n.key, n.label])).toEqual([[`${CAPS[1]}:r001`, 'qd32 / r001']]);
    expect(f.notes[0]!.note).toMatch(/no clock.*not drawn/);
  });
  it('the op filter picks the data direction; all ops sum them; flush has none', () => {
    const all = shapeFioIops(withTwo, CAPS, 'all').lines.find((l) => l.meta.runId === 'r000' && l.meta.captureId === CAPS[1])!;
    expect(all.values).toEqual([900, 181_000, 240_000, null, null]);
    expect(all.measure).toBe('fio iops log, read + trim');
    expect(all.detail).toContain('fio job rr (clones 1, 2) · ');
    expect(all.detail).toContain('runs/r000/logs/0-rr_iops.1.log, runs/r000/logs/0-rr_iops.2.log');
    expect(shapeFioIops(withTwo, CAPS, 'read').lines.map((l) => l.values[1])).toEqual([49_000, 180_000]);
    expect(shapeFioIops(withTwo, CAPS, 'discard').lines.map((l) => [l.measure, l.values[1]])).toEqual([['fio iops log, trim', 1000]]);
    expect(shapeFioIops(withTwo, CAPS, 'write').lines).toEqual([]);
    expect(shapeFioIops(withTwo, CAPS, 'flush').lines).toEqual([]);
  });
  it('the key names the windows', () => {
    expect(fioKeyLabel([100])).toBe('fio iops log (avg 100 ms)');
    expect(fioKeyLabel([0])).toBe('fio iops log (per I/O)');
    expect(fioKeyLabel([0, 100, 500])).toBe('fio iops log (per I/O, avg 100, 500 ms)');
  });
});

interface PercentileVectors {
  percentiles: number[];
  cases: { name: string; counts: number[]; picked: Record<string, number | null> }[];
}

describe('bin percentile (testdata/vectors/bin-percentile.json)', () => {
  const v = vectors<PercentileVectors>('bin-percentile');
  // bin i spans [2^i, 2^(i+1)): the answer is the geometric centre of the bin picked
  const bins = (counts: number[]) => counts.map((count, i) => ({ low: 2 ** i, high: 2 ** (i + 1), count, share: 0 }));
  it.each(v.cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    for (const p of v.percentiles) {
      const i = c.picked[String(p)] ?? null;
      expect(binPercentile(bins(c.counts), p)).toBe(i === null ? null : Math.sqrt(2 ** i * 2 ** (i + 1)));
    }
  });
});

describe('robustTop: a start-up spike does not set the scale', () => {
  const steady = Array.from({ length: 200 }, (_, i) => 100 + (i % 7));
  it('clips at the 90th percentile when the largest value is more than twice it', () => {
    const r = robustTop([{ values: [2700, 2500, ...steady] }, { values: [null, ...steady] }]);
    expect(r).not.toBeNull();
    expect(r!.max).toBe(2700);
    expect(r!.top).toBeLessThan(200);
    expect(r!.above).toBeGreaterThanOrEqual(2);
  });
  it('keeps the full scale when it reads well, or with too few values', () => {
    expect(robustTop([{ values: steady }])).toBeNull();
    expect(robustTop([{ values: [1, 1000] }])).toBeNull();
  });
});
