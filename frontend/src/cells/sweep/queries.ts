// Typed requests of the sweep cells (types generated from the backend's OpenAPI schema), shared
// through the query cache: the matrix and the line chart of one metric make one request.
import { authHeaders } from '../../api/auth';
import { api, okResponse, reach, unwrap } from '../../api/client';
import { useQuery } from '../../api/useQuery';

export const fetchSweep = (captures: string[], baseline: string, metric: string | null) =>
  unwrap(api.GET('/api/sweep', { params: { query: { captures: captures.join(','), baseline, ...(metric ? { metric } : {}) } } }));

export const useSweep = (captures: string[], baseline: string, metric: string | null) =>
  useQuery(`sweep:${captures.join(',')}|${baseline}|${metric ?? ''}`, () => fetchSweep(captures, baseline, metric));

export type LogQuery = { log: 'iops' | 'bw' | 'lat' | 'clat' | 'slat'; ddir: 'all' | 'read' | 'write' | 'trim'; point: string | null };

export const fetchFioLog = (captures: string[], q: LogQuery) =>
  unwrap(api.GET('/api/sweep/fio-log', { params: { query: { captures: captures.join(','), log: q.log, ddir: q.ddir, ...(q.point ? { point: q.point } : {}) } } }));

export const useFioLog = (captures: string[], q: LogQuery) =>
  useQuery(`fiolog:${captures.join(',')}|${q.log}|${q.ddir}|${q.point ?? ''}`, () => fetchFioLog(captures, q));

export type ReportFormat = 'text' | 'markdown' | 'json';

export const reportUrl = (captures: string[], baseline: string, metric: string | null, format: ReportFormat, rows: 'points' | 'captures') => {
  const q = new URLSearchParams({ captures: captures.join(','), baseline, format, rows });
  if (metric) q.append('metric', metric);
  return `/api/report?${q.toString()}`;
};

/**
 * The report's text (plain text, Markdown or JSON) for the report dialog. POST saves the report's
 * view as a notebook for the short permalink (a write: it carries the token); a server that needs a
 * token this browser lacks answers 401, and GET gives the same report with the long permalink.
 */
export async function fetchReport(url: string): Promise<string> {
  let r = await reach(url, { method: 'POST', headers: authHeaders() });
  if (r.status === 401) r = await reach(url);
  return (await okResponse(r)).text();
}
