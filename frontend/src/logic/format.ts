// Numbers with units, as shown everywhere in the UI. Pure; tests in format.test.ts.
//
// Units come from the API (MetricRow.unit): 'IO/s', 'B/s', 'ns', '%', '/s' (events), 'CPUs'. A value is shown in a
// "scale" (k IO/s, MiB/s, µs, ...) chosen from its magnitude; a spread (± stddev, min–max) is
// shown in the scale and with the decimals of the mean it belongs to, so the two line up, and with
// the unit. Any other unit is count-like (formatPlain: an integer-valued measure shows as an integer).
// The text exports keep the same rule (backend/iolens/exports/textfmt.py): both are tested on
// testdata/vectors/number-format.json.
import { format as d3format } from 'd3-format';

export interface Scale {
  /** Divide a raw value by this. */
  factor: number;
  /** Text after the number: 'k IO/s', ' MiB/s', ' µs', ' %'. Starts with a space unless it is an SI prefix. */
  suffix: string;
  /** Decimals to print in this scale. */
  decimals: number;
}

const BIN = ['B/s', 'KiB/s', 'MiB/s', 'GiB/s', 'TiB/s', 'PiB/s'];
const SI = ['', 'k', 'M', 'G', 'T'];

/** Decimals that give `sig` significant digits to a number of this magnitude (clamped to [0, max]). */
function decimalsFor(scaled: number, sig: number, max: number): number {
  const a = Math.abs(scaled);
  if (!Number.isFinite(a) || a === 0) return 0;
  const d = sig - 1 - Math.floor(Math.log10(a) + 1e-9);
  return Math.max(0, Math.min(max, d));
}

/** The scale in which to show `v` of unit `unit`. */
export function scaleFor(v: number, unit: string): Scale {
  const a = Math.abs(v);
  switch (unit) {
    case 'IO/s': {
      let i = 0;
      while (i < SI.length - 1 && a >= 1000 ** (i + 1) * 0.99995) i++;
      const factor = 1000 ** i;
      const prefix = SI[i] ?? '';
      // Plain counts below 1000 IO/s keep at most one decimal.
      const decimals = i === 0 ? decimalsFor(v, 3, 1) : decimalsFor(v / factor, 4, 3);
      return { factor, suffix: `${prefix} IO/s`, decimals };
    }
    case 'B/s': {
      let i = 0;
      while (i < BIN.length - 1 && a >= 1024 ** (i + 1) * 0.99995) i++;
      const factor = 1024 ** i;
      return { factor, suffix: ` ${BIN[i]}`, decimals: i === 0 ? 0 : decimalsFor(v / factor, 4, 3) };
    }
    case 'ns': {
      // Three significant digits: 845 ns, 84.5 µs, 1.23 ms, 2.50 s.
      const [factor, name] = a < 999.5 ? [1, 'ns'] : a < 999_500 ? [1e3, 'µs'] : a < 999_500_000 ? [1e6, 'ms'] : [1e9, 's'];
      return { factor, suffix: ` ${name}`, decimals: factor === 1 ? 0 : decimalsFor(v / factor, 3, 2) };
    }
    case '%':
      return { factor: 1, suffix: ' %', decimals: 1 };
    case '/s': {
      // Events per second (context switches, round trips): scaled as IO/s, '34.75k/s', '8.5/s'.
      let i = 0;
      while (i < SI.length - 1 && a >= 1000 ** (i + 1) * 0.99995) i++;
      const factor = 1000 ** i;
      const decimals = i === 0 ? decimalsFor(v, 3, 1) : decimalsFor(v / factor, 4, 3);
      return { factor, suffix: `${SI[i] ?? ''}/s`, decimals };
    }
    case 'CPUs':
      // CPUs utilized (task-clock): '0.272 CPUs', '1.25 CPUs'.
      return { factor: 1, suffix: ' CPUs', decimals: decimalsFor(v, 3, 3) };
    default: {
      return { factor: 1, suffix: unit ? ` ${unit}` : '', decimals: decimalsFor(v, 4, 3) };
    }
  }
}

const fixed = (v: number, decimals: number) => d3format(`,.${decimals}f`)(v).replace(/−/g, '-');

/** A number in a given scale, without its unit: '171.2'. */
export function formatInScale(v: number, s: Scale): string {
  return fixed(v / s.factor, s.decimals);
}

/** The units shown in a scale of their own (scaleFor); any other is count-like (formatPlain). */
const SCALED = new Set(['IO/s', 'B/s', 'ns', '%', '/s', 'CPUs']);

/**
 * A count-like number (a plain number, I/Os, samples, a command's own unit): at most 4 significant
 * digits and 3 decimals, trailing zeros dropped, so an integer-valued measure shows as an integer
 * ('32', '31.5', '0.012'); from 1000 up with an SI prefix ('1.5k', '123.5k', '1.235M').
 */
export function formatPlain(v: number): string {
  const a = Math.abs(v);
  let i = 0;
  while (i < SI.length - 1 && a >= 1000 ** (i + 1) * 0.99995) i++;
  const scaled = v / 1000 ** i;
  const text = fixed(scaled, decimalsFor(scaled, 4, 3));
  const trimmed = text.includes('.') ? text.replace(/\.?0+$/, '') : text;
  return (trimmed === '-0' ? '0' : trimmed) + (SI[i] ?? '');
}

/**
 * The smallest and largest of many numbers ([Infinity, -Infinity] when none), by a loop: Math.min(...xs)
 * passes every value as an argument and overflows the stack beyond about 100,000 of them.
 */
export function extentOf(values: Iterable<number>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

const TIME_UNITS = [
  ['ns', 1],
  ['µs', 1e3],
  ['ms', 1e6],
  ['s', 1e9],
] as const;

export interface TimeColumn {
  /** The column's unit: 'ns', 'µs', 'ms' or 's' (the head says it; the numbers do not). */
  unit: 'ns' | 'µs' | 'ms' | 's';
  /** One value (ns) in that unit, at the column's decimals: '2,345.679', '+12.0', '0', '–' when absent. */
  format: (v: number | null | undefined) => string;
}

/**
 * One unit for a column of times in ns, so that its decimal points line up: the first unit in which the
 * largest |value| is below 10,000, and three significant digits of the smallest non-zero one (0 to 3
 * decimals). `signed`: a difference, '+' before positive values. The text exports keep the same rule
 * (backend/iolens/exports/textfmt.py time_column): both are tested on testdata/vectors/time-column.json.
 */
export function timeColumn(values: readonly (number | null | undefined)[], signed = false): TimeColumn {
  const nz = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v) && v !== 0).map(Math.abs);
  const [small, top] = nz.length ? extentOf(nz) : [0, 0];
  const [unit, scale] = TIME_UNITS.find(([, s]) => top / s < 10_000) ?? TIME_UNITS[TIME_UNITS.length - 1]!;
  const decimals = nz.length ? Math.max(0, Math.min(3, 2 - Math.floor(Math.log10(small / scale) + 1e-9))) : 0;
  return {
    unit,
    format: (v) => {
      if (v === null || v === undefined || !Number.isFinite(v)) return '–';
      if (v === 0) return '0';
      const text = fixed(v / scale, decimals);
      return signed && v > 0 ? `+${text}` : text;
    },
  };
}

/** A value with its unit: '171.2k IO/s', '668.9 MiB/s', '845 µs', '1.23 ms', '12.3 %', '32 I/Os'. */
export function formatValue(v: number | null | undefined, unit: string): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (!SCALED.has(unit)) return formatPlain(v) + (unit ? ` ${unit}` : '');
  const s = scaleFor(v, unit);
  return formatInScale(v, s) + s.suffix;
}

export interface SpreadInput {
  n: number;
  mean: number | null;
  stddev: number | null;
  min: number | null;
  max: number | null;
}

/**
 * The spread of repeats, in the scale of the mean and with the unit: '±1.3k IO/s' (n >= 3, sample
 * stddev), '170.0–172.5k IO/s' (n = 2: min–max), '' (n < 2). Count-like units: each number as
 * formatPlain ('±0.5 I/Os', '1.4k–1.6k inodes/s').
 */
export function formatSpread(c: SpreadInput, unit: string): string {
  if (c.mean === null || c.n < 2) return '';
  const scaled = SCALED.has(unit);
  const s = scaleFor(c.mean, unit);
  const num = (v: number) => (scaled ? formatInScale(v, s) : formatPlain(v));
  const suffix = scaled ? s.suffix : unit ? ` ${unit}` : '';
  if (c.n >= 3 && c.stddev !== null) return `±${num(c.stddev)}${suffix}`;
  if (c.min !== null && c.max !== null) return `${num(c.min)}–${num(c.max)}${suffix}`;
  return '';
}

/**
 * Ratio to the baseline, the one way every table writes it: a signed percentage below a doubling
 * (1.123 -> '+12.3 %', 0.919 -> '-8.1 %', 1 -> '±0.0 %'), a multiple from a doubling up
 * (2 -> '×2', 10.79 -> '×10.8', 16.8 -> '×16.8'), so that large changes read on one scale.
 */
export function formatRatio(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio)) return '';
  const pct = (ratio - 1) * 100;
  const rounded = Math.round(pct * 10) / 10;
  if (rounded >= 100) return `×${d3format('.3~r')(ratio)}`;
  const sign = rounded > 0 ? '+' : rounded < 0 ? '-' : '±';
  return `${sign}${fixed(Math.abs(rounded), 1)} %`;
}

/** A raw number for tooltips: full precision but readable ('171234.5', '0.0123'). */
export function formatRaw(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return d3format('.6~g')(v).replace(/−/g, '-');
}

/** Sizes of files: '18.2 KiB', '512 B'. */
export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (i < units.length - 1 && Math.abs(v) >= 1024) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${fixed(v, v >= 100 ? 0 : v >= 10 ? 1 : 2)} ${units[i]}`;
}

/** Monitor units of a byte quantity: the factor to bytes, and whether it is a rate. */
const MONITOR_BYTES: Readonly<Record<string, { factor: number; rate: boolean }>> = {
  bytes: { factor: 1, rate: false },
  KiB: { factor: 1024, rate: false },
  'bytes/s': { factor: 1, rate: true },
  'KiB/s': { factor: 1024, rate: true },
};

/**
 * A monitor's value (the monitors cell: /proc/vmstat, meminfo, per-CPU time, XFS/ext4, slab counters, a mean of
 * runs) in the unit the collector gave it: a byte size ('bytes', 'KiB') with binary prefixes (formatBytes, whole
 * bytes: '14.7 MiB'), a byte rate ('bytes/s', 'KiB/s': an ext4 *_kbytes counter) as formatValue's 'B/s'
 * ('10.5 MiB/s'), '%' and '/s' as formatValue ('12.3 %', '1.734k/s'), any other unit count-like (formatPlain:
 * '7,100' reads '7.1k', '0.3091'), the unit in its own column. The text exports keep the same rule
 * (backend/iolens/exports/textfmt.py format_monitor): testdata/vectors/number-format.json `monitors`.
 */
export function formatMonitor(v: number | null | undefined, unit: string): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  const b = MONITOR_BYTES[unit];
  if (b) return b.rate ? formatValue(v * b.factor, 'B/s') : formatBytes(Math.round(v * b.factor));
  if (unit === '%' || unit === '/s') return formatValue(v, unit);
  return formatPlain(v);
}

/** Whether formatMonitor's text says the unit (a tooltip adds it otherwise: '0.309 USER_HZ/s'). */
export function monitorShowsUnit(unit: string): boolean {
  return unit === '' || unit === '%' || unit === '/s' || unit in MONITOR_BYTES;
}

/** A timestamp as shown in tables, always UTC: '2026-11-22 02:50'. Unparseable input is returned as is. */
export function formatDate(iso: string | null | undefined, seconds = false): string {
  if (!iso) return '–';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) {
    // Date.parse rejects more than 3 fraction digits in some engines: retry without them.
    const trimmed = iso.replace(/(\.\d{3})\d+/, '$1');
    const t2 = Date.parse(trimmed);
    if (Number.isNaN(t2)) return iso;
    return fmtUtc(t2, seconds);
  }
  return fmtUtc(t, seconds);
}

function fmtUtc(t: number, seconds: boolean): string {
  const s = new Date(t).toISOString(); // always UTC
  return `${s.slice(0, 10)} ${s.slice(11, seconds ? 19 : 16)}`;
}

/** Wall time between two timestamps: '10.5 s', '2 min 03 s'; '' when either is missing. */
export function formatDuration(startIso: string | null | undefined, endIso: string | null | undefined): string {
  if (!startIso || !endIso) return '';
  const a = Date.parse(startIso.replace(/(\.\d{3})\d+/, '$1'));
  const b = Date.parse(endIso.replace(/(\.\d{3})\d+/, '$1'));
  if (Number.isNaN(a) || Number.isNaN(b)) return '';
  const s = (b - a) / 1000;
  if (s < 60) return `${fixed(s, s < 10 ? 2 : 1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(Math.round(s - m * 60)).padStart(2, '0')} s`;
}
