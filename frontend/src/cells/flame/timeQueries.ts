// The time order's request (the API's FlameTimeOrder, views/flame_time.py) and its boxes, cached
// by answer and transforms: the notebook remounts the cell on every change of its URL state (a
// zoom, a pan), and the boxes are laid out once per answer and transforms.
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useQuery } from '../../api/useQuery';
import { timeBoxes, type TimeBoxes } from '../../logic/flameTime';
import type { Transform } from '../../logic/flameStacks';
import { flameParams } from './queries';
import type { FlameState } from './state';

export type FlameTimeData = components['schemas']['FlameTimeOrder'];

/** The query of a time order: one run (the state's when it names one), the thread or one CPU. */
export function timeParams(s: FlameState, workload: string | null) {
  const q = flameParams(s, false);
  if (s.runs && s.runs.length !== 1) delete q.runs;
  if (q.cpus !== undefined && (s.cpus?.length !== 1 || s.tid !== null)) delete q.cpus;
  return { ...q, ...(workload && s.tid === null && q.cpus === undefined ? { workload } : {}) };
}

export function useFlameTime(id: string | null, s: FlameState, workload: string | null) {
  const q = timeParams(s, workload);
  const key = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]).sort()).toString();
  return useQuery(id === null ? null : `flametime:${id}|${key}`, () => unwrap(api.GET('/api/captures/{capture_id}/flame/time', { params: { path: { capture_id: id! }, query: q } })));
}

const cache = new WeakMap<object, Map<string, TimeBoxes>>();

export function cachedBoxes(data: FlameTimeData, transforms: readonly Transform[]): TimeBoxes {
  const key = JSON.stringify(transforms);
  let m = cache.get(data);
  if (!m) cache.set(data, (m = new Map()));
  let b = m.get(key);
  if (!b) {
    const t0 = performance.now();
    b = timeBoxes(data, transforms);
    (window.__iolensTimeLayouts ??= []).push(performance.now() - t0);
    if (m.size > 8) m.clear();
    m.set(key, b);
  }
  return b;
}

declare global {
  interface Window {
    /** Time of each time-order layout (transforms + merge into boxes), ms: read by e2e/flame-time.spec.ts. */
    __iolensTimeLayouts?: number[];
    /** Time of each time-order frame drawn, ms. */
    __iolensTimeDraws?: number[];
  }
}
