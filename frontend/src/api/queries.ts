// Shared query keys, so that every component asking for the same data shares one request.
import { fetchCaptures, fetchFioComparison, fetchKernelConfigDiff, fetchNotebook, fetchNotebooks, fetchSql, fetchSqlTables } from './client';
import { useQuery } from './useQuery';

export const useCaptureList = () => useQuery('captures', () => fetchCaptures());

export const useFioComparison = (captures: string[], baseline: string) =>
  useQuery(`fio:${captures.join(',')}|${baseline}`, () => fetchFioComparison(captures, baseline));

export const useKernelConfigDiff = (captures: string[] | null) =>
  useQuery(captures === null ? null : `kconfig:${captures.join(',')}`, () => fetchKernelConfigDiff(captures ?? []));

export const useNotebook = (id: string | null) => useQuery(id === null ? null : `notebook:${id}`, () => fetchNotebook(id ?? ''));

export const useNotebooks = (q: string) => useQuery(`notebooks:${q.trim().toLowerCase()}`, () => fetchNotebooks(q.trim()));

export const sqlKey = (sql: string, captures: string[]) => `sql:${captures.join(',')}|${sql}`;
export const useSql = (sql: string | null, captures: string[]) =>
  useQuery(sql === null ? null : sqlKey(sql, captures), () => fetchSql(sql ?? '', captures));

export const useSqlTables = () => useQuery('sql-tables', () => fetchSqlTables());
