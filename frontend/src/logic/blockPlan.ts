// Requests of the block cell for a zoom range, and the zoom range itself. Pure; tests in
// blockPlan.test.ts.
//
// The server downsamples (backend/iolens/views/block.py): it takes a range and a number of buckets,
// rounds the interval up to 1, 2 or 5 x 10^k ns and aligns the range to it. The client asks for one
// bucket per pixel of the plot, but sends the bucket count that the rounded interval gives, so that
// resizing the window by a few pixels asks for the same thing (and hits the cache) instead of
// refetching for every pixel.

/** A time range, ns since run start, `from` < `to`. */
export interface TimeRange {
  from: number;
  to: number;
}

/** Most buckets the server gives (views/block.py MAX_BUCKETS) and for latency (LATENCY_MAX_BUCKETS). */
export const MAX_BUCKETS = 2000;
export const LATENCY_MAX_BUCKETS = 1000;
/** Narrowest zoom: 1 µs (below that the I/Os are single points anyway). */
export const MIN_SPAN_NS = 1000;

/** Smallest of 1, 2, 5 x 10^k that is >= raw (at least 1): the server's rounding (views/block.py nice_interval). */
export function niceInterval(raw: number): number {
  if (!(raw > 1)) return 1;
  let exp = 10 ** Math.floor(Math.log10(raw));
  // floating point: log10(1000) may give 2.9999999999999996
  if (exp * 10 <= raw) exp *= 10;
  for (const m of [1, 2, 5, 10]) if (m * exp >= raw) return m * exp;
  return 10 * exp;
}

export interface BucketPlan {
  from_ns: number;
  to_ns: number;
  buckets: number;
  /** The interval the server will choose for this request. */
  interval_ns: number;
}

/**
 * The request for a range drawn `pixels` wide: about one bucket per pixel (at most `max`), the
 * interval rounded as the server rounds it and the bucket count derived from that interval.
 */
export function planBuckets(range: TimeRange, pixels: number, max = MAX_BUCKETS): BucketPlan {
  const from = Math.max(0, Math.floor(range.from));
  const to = Math.max(from + 1, Math.ceil(range.to));
  const span = to - from;
  const want = Math.max(1, Math.min(max, Math.floor(pixels)));
  let interval = niceInterval(span / want);
  let buckets = Math.ceil(span / interval);
  if (buckets > max) {
    interval = niceInterval(span / max);
    buckets = Math.ceil(span / interval);
  }
  return { from_ns: from, to_ns: to, buckets: Math.max(1, Math.min(max, buckets)), interval_ns: interval };
}

/** The whole time axis: from run start to just after the last event of the longest run. */
export function fullRange(lastNs: readonly (number | null | undefined)[]): TimeRange {
  const last = Math.max(0, ...lastNs.map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)));
  return { from: 0, to: Math.max(MIN_SPAN_NS, last + 1) };
}

/**
 * A brushed range made tidy for the URL: clipped to the full range, at least MIN_SPAN_NS wide, and
 * its ends rounded to the interval that a 2000-bucket request would use (nothing the charts can show
 * is lost, and the link stays short).
 */
export function tidyRange(r: TimeRange, full: TimeRange): TimeRange {
  let from = Math.max(full.from, Math.min(r.from, r.to));
  let to = Math.min(full.to, Math.max(r.from, r.to));
  if (to - from < MIN_SPAN_NS) {
    const mid = (from + to) / 2;
    from = Math.max(full.from, mid - MIN_SPAN_NS / 2);
    to = Math.min(full.to, from + MIN_SPAN_NS);
    from = Math.max(full.from, to - MIN_SPAN_NS);
  }
  const step = niceInterval((to - from) / MAX_BUCKETS);
  const f = Math.floor(from / step) * step;
  const t = Math.min(full.to, Math.ceil(to / step) * step);
  return { from: Math.max(full.from, f), to: Math.max(f + 1, t) };
}

/** Whether a range covers the whole axis (then the cell state keeps no range). */
export function isFull(r: TimeRange, full: TimeRange): boolean {
  return r.from <= full.from && r.to >= full.to;
}

/** Move the range by `fraction` of its width (negative: earlier), kept inside the full range. */
export function panRange(r: TimeRange, full: TimeRange, fraction: number): TimeRange {
  const span = r.to - r.from;
  let from = r.from + span * fraction;
  from = Math.max(full.from, Math.min(full.to - span, from));
  return { from: Math.round(from), to: Math.round(from + span) };
}

/** Zoom by `factor` around the range's centre (2: twice as wide), kept inside the full range. */
export function zoomRange(r: TimeRange, full: TimeRange, factor: number): TimeRange {
  const span = Math.min(full.to - full.from, Math.max(MIN_SPAN_NS, (r.to - r.from) * factor));
  const mid = (r.from + r.to) / 2;
  let from = mid - span / 2;
  from = Math.max(full.from, Math.min(full.to - span, from));
  return { from: Math.round(from), to: Math.round(from + span) };
}

/** The query string part shared by every block view: series, device and (when given) the buckets. */
export function seriesParam(captureIds: readonly string[]): string {
  return captureIds.join(',');
}
