// Typed requests of the monitors cell (types generated from the backend's OpenAPI schema).
import { api, unwrap } from '../../api/client';
import { useQuery } from '../../api/useQuery';

export const useMonitors = (captures: string[], baseline: string, source: string | null) =>
  useQuery(`monitors:${captures.join(',')}|${baseline}|${source ?? ''}`, () =>
    unwrap(api.GET('/api/monitors', { params: { query: { captures: captures.join(','), baseline, limit: 30, ...(source ? { source } : {}) } } })),
  );

export const useMonitorSeries = (captures: string[], key: string | null) => {
  const [source, ...rest] = (key ?? '').split('/');
  return useQuery(key === null || key.endsWith('%') ? null : `monitor-series:${captures.join(',')}|${key}`, () =>
    unwrap(api.GET('/api/monitors/series', { params: { query: { captures: captures.join(','), source: source ?? '', key: rest.join('/') } } })),
  );
};
