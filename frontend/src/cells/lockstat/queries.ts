// Typed requests of the lock contention cell (types generated from the backend's OpenAPI schema),
// shared through the query cache so that cells asking for the same data make one request.
import { api, unwrap } from '../../api/client';
import { useQuery } from '../../api/useQuery';

/** Rows the cell asks for; the tables show the first ones and offer the rest. */
export const LOCK_ROWS = 200;

export const fetchLockStatComparison = (captures: string[], baseline: string) =>
  unwrap(api.GET('/api/compare/lock-stat', { params: { query: { captures: captures.join(','), baseline, limit: LOCK_ROWS } } }));

export const fetchLockStatTop = (id: string, by: 'wait_total' | 'contentions' | 'wait_avg') =>
  unwrap(api.GET('/api/captures/{capture_id}/lock-stat', { params: { path: { capture_id: id }, query: { by, limit: LOCK_ROWS } } }));

export const fetchLockStatPoints = (id: string, lockClass: string, occurrence: number) =>
  unwrap(api.GET('/api/captures/{capture_id}/lock-stat/points', { params: { path: { capture_id: id }, query: { class: lockClass, occurrence } } }));

export const useLockStatComparison = (captures: string[], baseline: string) =>
  useQuery(`lockstat:cmp:${captures.join(',')}|${baseline}`, () => fetchLockStatComparison(captures, baseline));

export const useLockStatTop = (id: string | null, by: 'wait_total' | 'contentions' | 'wait_avg') =>
  useQuery(id === null ? null : `lockstat:top:${id}|${by}`, () => fetchLockStatTop(id!, by));

export const useLockStatPoints = (id: string, lockClass: string, occurrence: number) =>
  useQuery(`lockstat:points:${id}|${occurrence}|${lockClass}`, () => fetchLockStatPoints(id, lockClass, occurrence));

/** A class's call sites in the perf stacks of its capture and of `others` (the notebook's other captures). */
export const fetchLockStatStacks = (id: string, lockClass: string, occurrence: number, others: string[]) =>
  unwrap(
    api.GET('/api/captures/{capture_id}/lock-stat/stacks', {
      params: { path: { capture_id: id }, query: { class: lockClass, occurrence, ...(others.length ? { with: others.join(',') } : {}) } },
    }),
  );

export const useLockStatStacks = (id: string, lockClass: string, occurrence: number, others: string[]) =>
  useQuery(`lockstat:stacks:${id}|${occurrence}|${others.join(',')}|${lockClass}`, () => fetchLockStatStacks(id, lockClass, occurrence, others));
