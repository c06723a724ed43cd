// The block views' requests (GET /api/block/..., docs/api.md), through the shared query cache.
// `useKept` shows the previous answer while the next one loads, so that zooming redraws the old
// lines in the new range at once and then sharpens them, instead of blanking every chart.
import { api, unwrap } from '../../api/client';
import { useQuery, type QueryResult } from '../../api/useQuery';
import type { BucketPlan } from '../../logic/blockPlan';

export interface ViewParams {
  series: string;
  device: string | null;
}

type Range = Pick<BucketPlan, 'from_ns' | 'to_ns'>;

const common = (p: ViewParams, r: Range) => ({ series: p.series, from_ns: r.from_ns, to_ns: r.to_ns, ...(p.device ? { device: p.device } : {}) });
const key = (name: string, p: ViewParams, r: Range, extra = '') => `block:${name}:${p.series}|${p.device ?? ''}|${r.from_ns}-${r.to_ns}${extra}`;

export const useBlockRuns = (captures: readonly string[]) =>
  useQuery(captures.length ? `block:runs:${captures.join(',')}` : null, () => unwrap(api.GET('/api/block/runs', { params: { query: { captures: captures.join(',') } } })));

export const useQueueDepth = (p: ViewParams | null, b: BucketPlan) =>
  useQuery(p && key('qd', p, b, `/${b.buckets}`), () => unwrap(api.GET('/api/block/queue-depth', { params: { query: { ...common(p!, b), buckets: b.buckets } } })));

export const useIops = (p: ViewParams | null, b: BucketPlan) =>
  useQuery(p && key('iops', p, b, `/${b.buckets}`), () => unwrap(api.GET('/api/block/iops', { params: { query: { ...common(p!, b), buckets: b.buckets } } })));

export const useLatency = (p: ViewParams | null, b: BucketPlan, op: string) =>
  useQuery(p && key('lat', p, b, `/${b.buckets}/${op}`), () =>
    unwrap(api.GET('/api/block/latency', { params: { query: { ...common(p!, b), buckets: b.buckets, ...(op !== 'all' ? { op } : {}) } } })),
  );

export const useLatencyHistogram = (p: ViewParams | null, r: Range) =>
  useQuery(p && key('hist', p, r), () => unwrap(api.GET('/api/block/latency-histogram', { params: { query: common(p!, r) } })));

export const useSizes = (p: ViewParams | null, r: Range) => useQuery(p && key('sizes', p, r), () => unwrap(api.GET('/api/block/sizes', { params: { query: common(p!, r) } })));

export const useScatter = (p: ViewParams | null, r: Range, maxPoints: number) =>
  useQuery(p && key('scatter', p, r, `/${maxPoints}`), () =>
    unwrap(api.GET('/api/block/scatter', { params: { query: { ...common(p!, r), max_points: maxPoints } } })),
  );

export interface Kept<T> extends QueryResult<T> {
  /** The data shown is an older answer (another range) while this one loads. */
  stale: boolean;
}

// The last answer per view and series, outside React: the notebook remounts a cell whenever its
// state (the zoom range) changes, and the previous answer must survive that to be shown meanwhile.
const lastAnswers = new Map<string, unknown>();

/** The answer, or while it loads the last answer of the same view and series (`slot`). */
export function useKept<T>(slot: string, q: QueryResult<T>): Kept<T> {
  if (q.data !== undefined) lastAnswers.set(slot, q.data);
  const prev = lastAnswers.get(slot) as T | undefined;
  const data = q.data ?? (q.loading ? prev : undefined);
  return { ...q, data, stale: q.data === undefined && data !== undefined };
}
