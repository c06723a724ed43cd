// States of the sweep cells and their URL forms. Pure; tests in state.test.ts.
//
// sweep (the matrix), fields separated by ';':
//   m=KEY        the metric (run_metrics key: iops, read.clat_p99, wall_s, m.inodes/s...; absent: the server's default)
//   abs=1        every capture in absolute values (absent: the baseline absolute, the others relative to it)
// sweepline (a metric against a swept parameter):
//   m=KEY        as above
//   x=NAME       the parameter on the x axis (absent: the last one whose values are numbers)
//   f=NAME:VALUE,NAME:*   other parameters fixed to a value, or '*' for one line per value (absent: the first value)
//   band=0       no confidence bands
// fiolog (a fio log over time):
//   l=iops|bw|clat|lat|slat   the log (absent: iops)
//   d=all|read|write|trim     direction (absent: all)
//   p=POINT      the sweep point, percent-encoded (absent: the first with logs)
//   band=0       no min–max bands
// Names and values inside f= and p= are percent-encoded (encodeURIComponent). Defaults encode to ''.

export interface SweepState {
  metric: string | null;
  relative: boolean;
}
export const defaultSweepState: SweepState = { metric: null, relative: true };

export interface SweepLineState {
  metric: string | null;
  x: string | null;
  fixed: Record<string, string | null>;
  bands: boolean;
}
export const defaultSweepLineState: SweepLineState = { metric: null, x: null, fixed: {}, bands: true };

export const LOGS = ['iops', 'bw', 'clat', 'lat', 'slat'] as const;
export type LogKind = (typeof LOGS)[number];
export const LOG_DDIRS = ['all', 'read', 'write', 'trim'] as const;
export type LogDdir = (typeof LOG_DDIRS)[number];
export interface FioLogState {
  log: LogKind;
  ddir: LogDdir;
  point: string | null;
  bands: boolean;
}
export const defaultFioLogState: FioLogState = { log: 'iops', ddir: 'all', point: null, bands: true };

const METRIC = /^[A-Za-z0-9_.:/%-]{1,80}$/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

function fields(text: string, known: string[]): Map<string, string> | Error {
  const out = new Map<string, string>();
  if (text === '') return out;
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) return new Error(`'${part}' is not key=value`);
    const key = part.slice(0, eq);
    if (!known.includes(key)) return new Error(`unknown field '${key}' (known: ${known.join(', ')})`);
    out.set(key, part.slice(eq + 1));
  }
  return out;
}

function decodePart(s: string): string | Error {
  try {
    return decodeURIComponent(s);
  } catch {
    return new Error(`'${s}' is not percent-encoded text`);
  }
}

function metricOf(v: string | undefined): string | null | Error {
  if (v === undefined) return null;
  return METRIC.test(v) ? v : new Error(`'${v}' is not a metric name`);
}

export function encodeSweep(s: SweepState): string {
  const parts: string[] = [];
  if (s.metric) parts.push(`m=${s.metric}`);
  if (!s.relative) parts.push('abs=1');
  return parts.join(';');
}

export function decodeSweep(text: string): SweepState | Error {
  const f = fields(text, ['m', 'abs']);
  if (f instanceof Error) return f;
  const metric = metricOf(f.get('m'));
  if (metric instanceof Error) return metric;
  const abs = f.get('abs');
  if (abs !== undefined && abs !== '0' && abs !== '1') return new Error(`abs must be 0 or 1, not '${abs}'`);
  return { metric, relative: abs !== '1' };
}

export function encodeSweepLine(s: SweepLineState): string {
  const parts: string[] = [];
  if (s.metric) parts.push(`m=${s.metric}`);
  if (s.x) parts.push(`x=${s.x}`);
  const fixed = Object.entries(s.fixed);
  if (fixed.length) parts.push(`f=${fixed.map(([k, v]) => `${encodeURIComponent(k)}:${v === null ? '*' : encodeURIComponent(v)}`).join(',')}`);
  if (!s.bands) parts.push('band=0');
  return parts.join(';');
}

export function decodeSweepLine(text: string): SweepLineState | Error {
  const f = fields(text, ['m', 'x', 'f', 'band']);
  if (f instanceof Error) return f;
  const metric = metricOf(f.get('m'));
  if (metric instanceof Error) return metric;
  const x = f.get('x') ?? null;
  if (x !== null && !NAME.test(x)) return new Error(`x: '${x}' is not a parameter name`);
  const fixed: Record<string, string | null> = {};
  const ftext = f.get('f');
  if (ftext !== undefined && ftext !== '') {
    for (const item of ftext.split(',')) {
      const colon = item.indexOf(':');
      if (colon < 0) return new Error(`f: '${item}' is not NAME:VALUE`);
      const name = decodePart(item.slice(0, colon));
      if (name instanceof Error) return name;
      if (!NAME.test(name)) return new Error(`f: '${name}' is not a parameter name`);
      const raw = item.slice(colon + 1);
      const value = raw === '*' ? null : decodePart(raw);
      if (value instanceof Error) return value;
      fixed[name] = value;
    }
  }
  const band = f.get('band');
  if (band !== undefined && band !== '0' && band !== '1') return new Error(`band must be 0 or 1, not '${band}'`);
  return { metric, x, fixed, bands: band !== '0' };
}

export function encodeFioLog(s: FioLogState): string {
  const parts: string[] = [];
  if (s.log !== 'iops') parts.push(`l=${s.log}`);
  if (s.ddir !== 'all') parts.push(`d=${s.ddir}`);
  if (s.point) parts.push(`p=${encodeURIComponent(s.point)}`);
  if (!s.bands) parts.push('band=0');
  return parts.join(';');
}

export function decodeFioLog(text: string): FioLogState | Error {
  const f = fields(text, ['l', 'd', 'p', 'band']);
  if (f instanceof Error) return f;
  const state: FioLogState = { ...defaultFioLogState };
  const l = f.get('l');
  if (l !== undefined) {
    if (!(LOGS as readonly string[]).includes(l)) return new Error(`l must be one of ${LOGS.join(', ')}, not '${l}'`);
    state.log = l as LogKind;
  }
  const d = f.get('d');
  if (d !== undefined) {
    if (!(LOG_DDIRS as readonly string[]).includes(d)) return new Error(`d must be one of ${LOG_DDIRS.join(', ')}, not '${d}'`);
    state.ddir = d as LogDdir;
  }
  const p = f.get('p');
  if (p !== undefined) {
    const point = decodePart(p);
    if (point instanceof Error) return point;
    state.point = point || null;
  }
  const band = f.get('band');
  if (band !== undefined && band !== '0' && band !== '1') return new Error(`band must be 0 or 1, not '${band}'`);
  state.bands = band !== '0';
  return state;
}
