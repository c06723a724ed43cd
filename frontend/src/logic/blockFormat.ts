// Axes and numbers of the block charts: time since run start, I/O rates, bytes, latency, queue
// depth. Pure; tests in blockFormat.test.ts.
//
// Tick labels carry no unit (the axis title does: "IOPS", "MiB/s", "s since run start"), hover
// texts always do. Byte quantities are binary (KiB, MiB), rates decimal (k, M), as fio prints them.
import { format as d3format } from 'd3-format';
import { scaleLinear } from 'd3-scale';
import { formatValue } from './format';

export interface Tick {
  v: number;
  label: string;
}

export interface Axis {
  kind: 'linear' | 'log';
  domain: [number, number];
  ticks: Tick[];
  /** The unit of the tick labels, for the axis title: 's', 'MiB/s', 'IOPS', ''. */
  unit: string;
}

const minus = (s: string) => s.replace(/−/g, '-');
const fixed = (v: number, d: number) => minus(d3format(`.${d}f`)(v));

// --- time ---------------------------------------------------------------------------------------
export type TimeUnit = 's' | 'ms' | 'µs' | 'ns';
const TIME_FACTOR: Record<TimeUnit, number> = { s: 1e9, ms: 1e6, 'µs': 1e3, ns: 1 };

/** The unit in which times up to `maxNs` are read: s from 1 s, ms from 1 ms, ... */
export function timeUnit(maxNs: number): TimeUnit {
  const a = Math.abs(maxNs);
  return a >= 1e9 ? 's' : a >= 1e6 ? 'ms' : a >= 1e3 ? 'µs' : 'ns';
}

/** Decimals that show a step of `stepNs` in `unit` (0.5 s -> 1, 20 µs in s -> 5). */
function stepDecimals(stepNs: number, unit: TimeUnit): number {
  const s = stepNs / TIME_FACTOR[unit];
  if (!(s > 0)) return 0;
  return Math.max(0, Math.min(9, Math.ceil(-Math.log10(s) - 1e-9)));
}

/**
 * Ticks of a time axis over [from, to] ns since run start: labels in one unit (that of the larger
 * end) with the decimals the step needs, so a deep zoom reads "2.34510, 2.34512, ..." s.
 */
export function timeAxis(domain: [number, number], count = 8): Axis {
  const unit = timeUnit(Math.max(Math.abs(domain[0]), Math.abs(domain[1])));
  const x = scaleLinear().domain(domain);
  const ticks = x.ticks(count);
  const step = ticks.length > 1 ? (ticks[1] ?? 0) - (ticks[0] ?? 0) : domain[1] - domain[0];
  const d = stepDecimals(step, unit);
  return { kind: 'linear', domain, ticks: ticks.map((v) => ({ v, label: fixed(v / TIME_FACTOR[unit], d) })), unit };
}

/** An instant for hover texts, precise to `resolutionNs`: '1.2340 s', '845.2 ms'. */
export function formatInstant(tNs: number, resolutionNs = 1): string {
  const unit = timeUnit(tNs === 0 ? resolutionNs : tNs);
  return `${fixed(tNs / TIME_FACTOR[unit], stepDecimals(resolutionNs, unit))} ${unit}`;
}

/** A duration of 1, 2 or 5 x 10^k ns, as bucket widths are: '2 ms', '500 µs', '1 s', '20 ns'. */
export function formatSpan(ns: number): string {
  const unit = timeUnit(ns);
  const v = ns / TIME_FACTOR[unit];
  return `${minus(d3format('~r')(Number(v.toPrecision(6))))} ${unit}`;
}

/** A time interval for hover texts: '[1.230 s, 1.232 s)'. */
export function formatBucket(startNs: number, widthNs: number): string {
  return `${formatInstant(startNs, widthNs)} – ${formatInstant(startNs + widthNs, widthNs)}`;
}

/** A latency or duration, three significant digits: '845 ns', '84.5 µs', '1.23 ms'. */
export function formatLatency(ns: number | null | undefined): string {
  return formatValue(ns, 'ns');
}

// --- values -------------------------------------------------------------------------------------
export type ValueUnit = 'IO/s' | 'B/s' | 'depth' | 'ns' | 'share' | 'count';

const BIN_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

/** A value with its unit for hover texts. */
export function formatQuantity(v: number | null | undefined, unit: ValueUnit): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  switch (unit) {
    case 'IO/s':
    case 'B/s':
      return formatValue(v, unit);
    case 'ns':
      return formatLatency(v);
    case 'depth':
      // an integer-valued depth as an integer ('32 in flight', testdata/vectors/number-format.json's rule)
      return `${Number.isInteger(v) ? fixed(v, 0) : Math.abs(v) >= 100 ? fixed(v, 1) : Math.abs(v) >= 0.01 ? fixed(v, 2) : minus(d3format('.2~e')(v))} in flight`;
    case 'share':
      return `${v === 0 ? '0' : v >= 0.001 ? fixed(v * 100, 1) : '<0.1'} %`;
    case 'count':
      return minus(d3format(',')(Math.round(v)));
  }
}

/** A request size: '4 KiB', '512 B', '1.5 MiB'. */
export function formatSize(bytes: number): string {
  let i = 0;
  let v = bytes;
  while (i < BIN_UNITS.length - 1 && Math.abs(v) >= 1024) {
    v /= 1024;
    i++;
  }
  return `${minus(d3format('.3~r')(v))} ${BIN_UNITS[i]}`;
}

/** A count with thousands separators: '205,743'. */
export const formatCount = (n: number): string => minus(d3format(',')(Math.round(n)));

/**
 * A y axis from 0 to about `max` (ticks nice): IOPS with SI prefixes in the labels ('50k'), bytes/s
 * in the binary unit of the largest value ('MiB/s' in the title, plain numbers on the ticks), queue
 * depth and shares as plain numbers.
 */
export function valueAxis(max: number, unit: ValueUnit, count = 4): Axis {
  const top = Number.isFinite(max) && max > 0 ? max : 1;
  if (unit === 'B/s') {
    let i = 0;
    while (i < BIN_UNITS.length - 1 && top >= 1024 ** (i + 1)) i++;
    const f = 1024 ** i;
    const s = scaleLinear().domain([0, top / f]).nice(count);
    const [, hi] = s.domain() as [number, number];
    return {
      kind: 'linear',
      domain: [0, hi * f],
      ticks: s.ticks(count).map((v) => ({ v: v * f, label: minus(d3format('~g')(v)) })),
      unit: `${BIN_UNITS[i]}/s`,
    };
  }
  const s = scaleLinear().domain([0, unit === 'share' ? top * 100 : top]).nice(count);
  const [, hi] = s.domain() as [number, number];
  if (unit === 'share') {
    return { kind: 'linear', domain: [0, hi / 100], ticks: s.ticks(count).map((v) => ({ v: v / 100, label: minus(d3format('~g')(v)) })), unit: '%' };
  }
  const label = unit === 'IO/s' || unit === 'count' ? (v: number) => minus(d3format('~s')(v)) : (v: number) => minus(d3format('~g')(v));
  return { kind: 'linear', domain: [0, hi], ticks: s.ticks(count).map((v) => ({ v, label: label(v) })), unit: unit === 'IO/s' ? 'IOPS' : unit === 'depth' ? 'I/Os' : '' };
}

/** Compact duration for log-axis ticks: '10 µs', '1 ms', '200 ns'. */
export function shortDuration(ns: number): string {
  const unit = ns >= 1e9 ? 's' : ns >= 1e6 ? 'ms' : ns >= 1e3 ? 'µs' : 'ns';
  return `${minus(d3format('~r')(Number((ns / TIME_FACTOR[unit]).toPrecision(3))))} ${unit}`;
}

/**
 * A log axis of durations over [min, max] ns: the domain widened to whole 1-2-5 steps, ticks at
 * 1, 2 and 5 x 10^k when it spans up to `decades125` decades (a wide x axis has room for more),
 * at powers of ten beyond.
 */
export function latencyAxis(min: number, max: number, decades125 = 2): Axis {
  let lo = Number.isFinite(min) && min > 0 ? min : 1;
  let hi = Number.isFinite(max) && max > 0 ? max : lo * 10;
  if (hi < lo) [lo, hi] = [hi, lo];
  const down = (v: number) => {
    const e = 10 ** Math.floor(Math.log10(v) + 1e-9);
    return [5, 2, 1].map((m) => m * e).find((c) => c <= v * (1 + 1e-9)) ?? e;
  };
  const up = (v: number) => {
    const e = 10 ** Math.floor(Math.log10(v) + 1e-9);
    return [1, 2, 5, 10].map((m) => m * e).find((c) => c >= v * (1 - 1e-9)) ?? 10 * e;
  };
  lo = down(lo);
  hi = up(hi);
  if (hi <= lo) hi = up(lo * 1.01);
  const decades = Math.log10(hi / lo);
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(lo) + 1e-9); 10 ** e <= hi * (1 + 1e-9); e++) {
    for (const m of decades <= decades125 ? [1, 2, 5] : [1]) {
      const v = m * 10 ** e;
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push(v);
    }
  }
  return { kind: 'log', domain: [lo, hi], ticks: ticks.map((v) => ({ v, label: shortDuration(v) })), unit: '' };
}

/** Log-axis ticks of request sizes in bytes: powers of 4 from 512 B ('512 B', '2 KiB', ...), or of 2 when few. */
export function sizeTicks(lo: number, hi: number): Tick[] {
  const out: Tick[] = [];
  const a = Math.max(0, Math.floor(Math.log2(Math.max(1, lo))));
  const b = Math.ceil(Math.log2(Math.max(2, hi)));
  const step = b - a > 8 ? 2 : 1;
  for (let e = a; e <= b; e += step) out.push({ v: 2 ** e, label: formatSize(2 ** e).replace(' ', '') });
  return out;
}

/**
 * A linear axis of disk offsets in bytes over [lo, hi] (the scatter's sector axis x 512): ticks
 * nice in the binary unit of the larger end, which the title names ('GiB').
 */
export function offsetAxis(lo: number, hi: number, count = 5): Axis {
  let a = Number.isFinite(lo) ? Math.max(0, lo) : 0;
  let b = Number.isFinite(hi) ? hi : a + 1;
  if (b <= a) b = a + 512;
  let i = 0;
  while (i < BIN_UNITS.length - 1 && b >= 1024 ** (i + 1)) i++;
  const f = 1024 ** i;
  const s = scaleLinear().domain([a / f, b / f]).nice(count);
  const [na, nb] = s.domain() as [number, number];
  a = na * f;
  b = nb * f;
  return { kind: 'linear', domain: [a, b], ticks: s.ticks(count).map((v) => ({ v: v * f, label: minus(d3format('~g')(v)) })), unit: BIN_UNITS[i] ?? 'B' };
}

/** A time range with its unit once, precise to a thousandth of its width: '1.036 – 1.556 s'. */
export function formatRange(fromNs: number, toNs: number): string {
  const unit = timeUnit(Math.max(Math.abs(fromNs), Math.abs(toNs)));
  const d = stepDecimals(Math.max(1, (toNs - fromNs) / 1000), unit);
  return `${fixed(fromNs / TIME_FACTOR[unit], d)} – ${fixed(toNs / TIME_FACTOR[unit], d)} ${unit}`;
}
