// Shared query keys, so that every component asking for the same data shares one request.
import { api, fetchCaptures, fetchFioComparison, type FioComparison, fetchKernelConfigDiff, fetchNotebook, fetchNotebooks, fetchSql, fetchSqlTables, unwrap } from './client';
import { useRef } from 'react';
import { useQuery, type QueryResult } from './useQuery';

export const useCaptureList = () => useQuery('captures', () => fetchCaptures());

/**
 * The fio comparison of these captures; null: none asked for. After a change of baseline the
 * previous baseline's answer goes on being shown (`stale`) until the new one comes: without it the
 * header's facts and the fio tables vanished for the request's time, and everything below them
 * jumped up and back down under a pointer aimed at it.
 */
export function useFioComparison(captures: string[] | null, baseline: string): QueryResult<FioComparison> & { stale: boolean } {
  const q = useQuery(captures === null ? null : `fio:${captures.join(',')}|${baseline}`, () => fetchFioComparison(captures ?? [], baseline));
  const last = useRef<FioComparison | null>(null);
  if (q.data) last.current = q.data;
  const same = (c: FioComparison) => captures !== null && c.captures.length === captures.length && c.captures.every((x) => captures.includes(x.id));
  const kept = q.loading && last.current && same(last.current) ? last.current : undefined;
  return { ...q, data: q.data ?? kept, loading: q.loading && !kept, stale: !!kept };
}

export const useKernelConfigDiff = (captures: string[] | null) =>
  useQuery(captures === null ? null : `kconfig:${captures.join(',')}`, () => fetchKernelConfigDiff(captures ?? []));

/** A capture's timeline overview: its runs in run order, their tracks (the timeline cell, the shared time selection). */
export const useTimelineOverview = (cap: string | null) =>
  useQuery(cap ? `timeline:${cap}` : null, () => unwrap(api.GET('/api/captures/{capture_id}/timeline', { params: { path: { capture_id: cap! } } })));

export const useNotebook = (id: string | null) => useQuery(id === null ? null : `notebook:${id}`, () => fetchNotebook(id ?? ''));

export const useNotebooks = (q: string) => useQuery(`notebooks:${q.trim().toLowerCase()}`, () => fetchNotebooks(q.trim()));

export const sqlKey = (sql: string, captures: string[]) => `sql:${captures.join(',')}|${sql}`;
export const useSql = (sql: string | null, captures: string[]) =>
  useQuery(sql === null ? null : sqlKey(sql, captures), () => fetchSql(sql ?? '', captures));

export const useSqlTables = () => useQuery('sql-tables', () => fetchSqlTables());
