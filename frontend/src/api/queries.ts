// Shared query keys, so that every component asking for the same data shares one request.
import { api, fetchCaptures, fetchFioComparison, fetchKernelConfigDiff, fetchNotebook, fetchNotebooks, fetchSql, fetchSqlTables, unwrap } from './client';
import { useQuery } from './useQuery';

export const useCaptureList = () => useQuery('captures', () => fetchCaptures());

/** The fio comparison of these captures; null: none asked for. */
export const useFioComparison = (captures: string[] | null, baseline: string) =>
  useQuery(captures === null ? null : `fio:${captures.join(',')}|${baseline}`, () => fetchFioComparison(captures ?? [], baseline));

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
