import { describe, expect, it } from 'vitest';
import { fullRange, isFull, MAX_BUCKETS, MIN_SPAN_NS, niceInterval, panRange, planBuckets, tidyRange, zoomRange } from './blockPlan';

describe('niceInterval (the server rounding, views/block.py nice_interval)', () => {
  it('rounds up to 1, 2 or 5 x 10^k', () => {
    expect([0, 1, 1.5, 2, 3, 5.1, 9, 10, 11, 999, 1000, 1001, 4_999_999].map(niceInterval)).toEqual([1, 1, 2, 2, 5, 10, 10, 10, 20, 1000, 1000, 2000, 5_000_000]);
  });
  it('is exact at powers of ten despite floating point', () => {
    for (let k = 0; k < 16; k++) expect(niceInterval(10 ** k)).toBe(10 ** k);
  });
});

describe('planBuckets', () => {
  it('about one bucket per pixel, the interval the server will use', () => {
    const p = planBuckets({ from: 0, to: 3_456_000_000 }, 1200);
    // 3.456 s / 1200 px = 2.88 ms -> 5 ms; 692 buckets of 5 ms cover the range
    expect(p).toEqual({ from_ns: 0, to_ns: 3_456_000_000, buckets: 692, interval_ns: 5_000_000 });
    // the server rounds span / buckets up to the same interval
    expect(niceInterval((p.to_ns - p.from_ns) / p.buckets)).toBe(p.interval_ns);
  });
  it('asks the same thing for nearby widths (one cache entry while resizing)', () => {
    const r = { from: 1_000_000_000, to: 1_800_000_000 };
    const a = planBuckets(r, 1100);
    for (const w of [1000, 1050, 1150, 1300, 1500]) expect(planBuckets(r, w)).toEqual(a);
  });
  it('never more than the maximum, never less than one', () => {
    expect(planBuckets({ from: 0, to: 10 ** 12 }, 100_000).buckets).toBeLessThanOrEqual(MAX_BUCKETS);
    expect(planBuckets({ from: 0, to: 10 ** 12 }, 5000, 1000).buckets).toBeLessThanOrEqual(1000);
    expect(planBuckets({ from: 5, to: 6 }, 0).buckets).toBe(1);
  });
  it('the server interval matches on many ranges and widths', () => {
    for (const span of [1234, 98_765, 3_456_000_000, 7 * 10 ** 11])
      for (const px of [1, 37, 640, 1203, 1999]) {
        const p = planBuckets({ from: 17, to: 17 + span }, px);
        expect(niceInterval((p.to_ns - p.from_ns) / p.buckets)).toBe(p.interval_ns);
        expect(p.buckets * p.interval_ns).toBeGreaterThanOrEqual(span);
      }
  });
});

describe('zoom ranges', () => {
  const full = fullRange([3_382_478_210, 3_456_007_441, null]);
  it('full range: run start to just after the last event', () => {
    expect(full).toEqual({ from: 0, to: 3_456_007_442 });
    expect(fullRange([])).toEqual({ from: 0, to: MIN_SPAN_NS });
  });
  it('tidy: ordered, clipped, rounded to the finest interval the charts can ask for', () => {
    const t = tidyRange({ from: 1_555_512_345, to: 1_036_512_345 }, full);
    expect(t).toEqual({ from: 1_036_500_000, to: 1_556_000_000 });
    expect(tidyRange({ from: -5, to: 10 ** 12 }, full)).toEqual(full);
    const tiny = tidyRange({ from: 2_000_000_000, to: 2_000_000_010 }, full);
    expect(tiny.to - tiny.from).toBeGreaterThanOrEqual(MIN_SPAN_NS);
    expect(isFull(full, full)).toBe(true);
    expect(isFull(t, full)).toBe(false);
  });
  it('pan keeps the width and stays inside', () => {
    const r = { from: 1_000_000_000, to: 2_000_000_000 };
    expect(panRange(r, full, 0.5)).toEqual({ from: 1_500_000_000, to: 2_500_000_000 });
    expect(panRange(r, full, -5)).toEqual({ from: 0, to: 1_000_000_000 });
    expect(panRange(r, full, 5)).toEqual({ from: full.to - 1_000_000_000, to: full.to });
  });
  it('zoom out around the centre, never beyond the whole run', () => {
    expect(zoomRange({ from: 1_000_000_000, to: 2_000_000_000 }, full, 2)).toEqual({ from: 500_000_000, to: 2_500_000_000 });
    expect(zoomRange({ from: 1_000_000_000, to: 3_000_000_000 }, full, 4)).toEqual(full);
    const z = zoomRange({ from: 0, to: 2000 }, full, 0.01);
    expect(z.to - z.from).toBe(MIN_SPAN_NS);
  });
});
