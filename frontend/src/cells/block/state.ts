// State of the block layer cell and its URL form. Pure; tests in state.test.ts.
//
// URL form: fields separated by ';', each `key=value`, every one optional:
//   c=qd,iops,lat      the charts shown, in any order (absent: qd,iops,bw,lat,hist,size)
//                      qd queue depth, iops, bw throughput, lat latency percentiles over time,
//                      hist latency histogram, size request sizes, scatter sector vs time
//   op=read            only this operation (absent: all operations)
//   split=1            IOPS and throughput drawn per operation
//   lat=p50,p99,max    the latency measures drawn (absent: p50,p99); mean p50 p90 p99 p999 max
//   dev=all            every device summed, or dev=MAJ,MIN (absent: each run's busiest device)
//   t=FROM-TO          the zoom range, integer ns since run start (absent: the whole run)
//   scale=full         IOPS and throughput on the full scale, up to their largest value (absent:
//                      clipped at the 90th percentile when a spike would flatten the rest; the
//                      chart says so)
// The default state encodes to ''.
import { LATENCY_IDS, type LatencyMeasure } from '../../logic/blockLatency';
import type { TimeRange } from '../../logic/blockPlan';

export const CHARTS = ['qd', 'iops', 'bw', 'lat', 'hist', 'size', 'scatter'] as const;
export type BlockChart = (typeof CHARTS)[number];
export const CHART_NAMES: Record<BlockChart, string> = {
  qd: 'Queue depth',
  iops: 'IOPS',
  bw: 'Throughput',
  lat: 'Latency',
  hist: 'Latency histogram',
  size: 'Sizes',
  scatter: 'Sector scatter',
};

export interface BlockState {
  charts: BlockChart[];
  op: string;
  split: boolean;
  lat: LatencyMeasure[];
  /** null: each run's busiest device; 'all'; or 'MAJ,MIN' */
  dev: string | null;
  range: TimeRange | null;
  /** The rate charts' y scale: clipped at p90 when a spike would flatten the rest, or full. */
  scale: 'clip' | 'full';
}

export const DEFAULT_CHARTS: readonly BlockChart[] = ['qd', 'iops', 'bw', 'lat', 'hist', 'size'];
export const DEFAULT_LAT: readonly LatencyMeasure[] = ['p50', 'p99'];

export const defaultBlockState: BlockState = { charts: [...DEFAULT_CHARTS], op: 'all', split: false, lat: [...DEFAULT_LAT], dev: null, range: null, scale: 'clip' };

const OP = /^[a-z]{1,16}$/;
const DEV = /^\d{1,6},\d{1,9}$/;
const INT = /^\d{1,16}$/;

/** Charts in display order, each once. */
const ordered = <T extends string>(all: readonly T[], picked: readonly T[]): T[] => all.filter((c) => picked.includes(c));
const same = <T>(a: readonly T[], b: readonly T[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export function encodeBlock(s: BlockState): string {
  const parts: string[] = [];
  const charts = ordered(CHARTS, s.charts);
  if (!same(charts, DEFAULT_CHARTS)) parts.push(`c=${charts.join(',')}`);
  if (s.op !== 'all') parts.push(`op=${s.op}`);
  if (s.split) parts.push('split=1');
  const lat = ordered(LATENCY_IDS, s.lat);
  if (!same(lat, DEFAULT_LAT)) parts.push(`lat=${lat.join(',')}`);
  if (s.dev !== null) parts.push(`dev=${s.dev}`);
  if (s.range) parts.push(`t=${Math.round(s.range.from)}-${Math.round(s.range.to)}`);
  if (s.scale === 'full') parts.push('scale=full');
  return parts.join(';');
}

function list<T extends string>(value: string, known: readonly T[], what: string): T[] | Error {
  const items = value === '' ? [] : value.split(',');
  const bad = items.filter((c) => !(known as readonly string[]).includes(c));
  if (bad.length) return new Error(`${what}: unknown ${bad.map((b) => `'${b}'`).join(', ')} (known: ${known.join(', ')})`);
  return ordered(known, items as T[]);
}

export function decodeBlock(text: string): BlockState | Error {
  const s: BlockState = { ...defaultBlockState, charts: [...DEFAULT_CHARTS], lat: [...DEFAULT_LAT] };
  if (text === '') return s;
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) return new Error(`'${part}' is not key=value`);
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    switch (key) {
      case 'c': {
        const c = list(value, CHARTS, 'c');
        if (c instanceof Error) return c;
        s.charts = c;
        break;
      }
      case 'op':
        if (!OP.test(value)) return new Error(`op must be an operation name like read or write, not '${value}'`);
        s.op = value;
        break;
      case 'split':
        if (value !== '0' && value !== '1') return new Error(`split must be 0 or 1, not '${value}'`);
        s.split = value === '1';
        break;
      case 'lat': {
        const l = list(value, LATENCY_IDS, 'lat');
        if (l instanceof Error) return l;
        s.lat = l;
        break;
      }
      case 'dev':
        if (value !== 'all' && !DEV.test(value)) return new Error(`dev must be all or MAJOR,MINOR (e.g. 259,0), not '${value}'`);
        s.dev = value;
        break;
      case 't': {
        const [a = '', b = '', ...rest] = value.split('-');
        if (rest.length || !INT.test(a) || !INT.test(b)) return new Error(`t must be FROM-TO in ns since run start, not '${value}'`);
        const from = Number(a);
        const to = Number(b);
        if (!(to > from)) return new Error(`t: the range ${value} is empty`);
        s.range = { from, to };
        break;
      }
      case 'scale':
        if (value !== 'clip' && value !== 'full') return new Error(`scale must be clip or full, not '${value}'`);
        s.scale = value;
        break;
      default:
        return new Error(`unknown field '${key}' (known: c, op, split, lat, dev, t, scale)`);
    }
  }
  return s;
}
