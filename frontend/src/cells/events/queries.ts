// Typed requests of the events cell (types generated from the backend's OpenAPI schema).
import { api, unwrap } from '../../api/client';
import { useQuery } from '../../api/useQuery';

export const useEventsSummary = (captures: string[]) =>
  useQuery(`events:${captures.join(',')}`, () => unwrap(api.GET('/api/events', { params: { query: { captures: captures.join(',') } } })));

export const useEventsByField = (captures: string[], event: string | null, field: string | null, top: number) =>
  useQuery(event === null ? null : `events-field:${captures.join(',')}|${event}|${field ?? ''}|${top}`, () =>
    unwrap(api.GET('/api/events/by-field', { params: { query: { captures: captures.join(','), event: event ?? '', top, ...(field ? { field } : {}) } } })),
  );

export const useEventsRate = (captures: string[], event: string | null) =>
  useQuery(event === null ? null : `events-rate:${captures.join(',')}|${event}`, () =>
    unwrap(api.GET('/api/events/rate', { params: { query: { captures: captures.join(','), event: event ?? '', buckets: 60 } } })),
  );
