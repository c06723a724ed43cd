// The typed API client. Types come from schema.d.ts, generated from the backend's OpenAPI schema
// by `npm run gen:api`: never edit them by hand, change the models in backend/iolens/models/ instead.
import createClient from 'openapi-fetch';
import { authHeaders } from './auth';
import type { components, paths } from './schema';

export type Schemas = components['schemas'];
export type Health = Schemas['Health'];
export type CapturePublic = Schemas['CapturePublic'];
export type CaptureCreated = Schemas['CaptureCreated'];
export type CaptureDetail = Schemas['CaptureDetail'];
export type CaptureHeadlines = Schemas['CaptureHeadlines'];
export type ProbeHeadline = Schemas['ProbeHeadline'];
export type HeadlineFigure = Schemas['HeadlineFigure'];
export type RunPublic = Schemas['RunPublic'];
export type ProbePublic = Schemas['ProbePublic'];
export type FioComparison = Schemas['FioComparison'];
export type FioGroup = Schemas['FioGroup'];
export type MetricRow = Schemas['MetricRow'];
export type StatCell = Schemas['StatCell'];
export type ComparedCapture = Schemas['ComparedCapture'];
export type ComparisonFacts = Schemas['ComparisonFacts'];
export type KernelConfigDiff = Schemas['KernelConfigDiff'];
export type ErrorBody = Schemas['ErrorBody'];
export type NotebookDocument = Schemas['NotebookDocument'];
export type NotebookCell = NotebookDocument['cells'][number];
export type NotebookVersion = Schemas['NotebookVersion'];
export type NotebookSummary = Schemas['NotebookSummary'];
export type NotebookList = Schemas['NotebookList'];
export type NotebookSaved = Schemas['NotebookSaved'];
export type SqlChartSpec = Schemas['SqlChart'];
export type SqlResult = Schemas['SqlResult'];
export type SqlTables = Schemas['SqlTables'];
export type SqlTableDoc = Schemas['SqlTableDoc'];

export const api = createClient<paths>({ baseUrl: '' });
// Writes carry the access token when this browser has one (see auth.ts).
api.use({
  onRequest({ request }) {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      for (const [k, v] of Object.entries(authHeaders())) request.headers.set(k, v);
    }
    return request;
  },
});

/** An API failure as shown to the user: the server's {error, detail}, or what went wrong on the way. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly detail: unknown = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Turn whatever came back with a non-2xx status into an ApiError. */
export function toApiError(status: number, body: unknown, statusText = ''): ApiError {
  if (body && typeof body === 'object' && 'error' in body && typeof (body as ErrorBody).error === 'string') {
    const b = body as ErrorBody;
    return new ApiError(b.error, status, b.detail ?? null);
  }
  // FastAPI's own validation errors: {"detail": [...]}.
  if (body && typeof body === 'object' && 'detail' in body) {
    const d = (body as { detail: unknown }).detail;
    return new ApiError(typeof d === 'string' ? d : `Request rejected (HTTP ${status})`, status, typeof d === 'string' ? null : d);
  }
  if (typeof body === 'string' && body.trim()) return new ApiError(body.trim().slice(0, 300), status);
  return new ApiError(`HTTP ${status}${statusText ? ` ${statusText}` : ''}`, status);
}

/** `fetch`, with a network failure as the ApiError "Cannot reach the iolens server" (an abort stays one). */
export async function reach(input: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError(`Cannot reach the iolens server (${e instanceof Error ? e.message : String(e)})`, 0);
  }
}

/** The response when its status is 2xx; otherwise its body ({error, detail}, or text) as an ApiError. */
export async function okResponse(r: Response): Promise<Response> {
  if (r.ok) return r;
  const text = await r.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep the text */
  }
  throw toApiError(r.status, body, r.statusText);
}

/** Unwrap an openapi-fetch result: the data, or an ApiError. */
export async function unwrap<T>(p: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let r: { data?: T; error?: unknown; response: Response };
  try {
    r = await p;
  } catch (e) {
    if (e instanceof DOMException && e.name === 'AbortError') throw e;
    throw new ApiError(`Cannot reach the iolens server (${e instanceof Error ? e.message : String(e)})`, 0);
  }
  if (r.response.ok && r.data !== undefined) return r.data;
  throw toApiError(r.response.status, r.error, r.response.statusText);
}

export const fetchHealth = (signal?: AbortSignal) => unwrap(api.GET('/api/health', { signal }));
export const fetchCaptures = (signal?: AbortSignal) => unwrap(api.GET('/api/captures', { signal }));
export const fetchCapture = (id: string, signal?: AbortSignal) =>
  unwrap(api.GET('/api/captures/{capture_id}', { params: { path: { capture_id: id } }, signal }));
export const fetchCaptureHeadlines = (id: string, signal?: AbortSignal) =>
  unwrap(api.GET('/api/captures/{capture_id}/headlines', { params: { path: { capture_id: id } }, signal }));
export const fetchFioComparison = (captures: string[], baseline: string, signal?: AbortSignal) =>
  unwrap(api.GET('/api/compare/fio', { params: { query: { captures: captures.join(','), baseline } }, signal }));

export const fetchKernelConfigDiff = (captures: string[], signal?: AbortSignal) =>
  unwrap(api.GET('/api/compare/kernel-config', { params: { query: { captures: captures.join(',') } }, signal }));

export const bundleUrl = (id: string) => `/api/captures/${encodeURIComponent(id)}/bundle`;

export const fetchNotebook = (id: string, signal?: AbortSignal) =>
  unwrap(api.GET('/api/notebooks/{notebook_id}', { params: { path: { notebook_id: id } }, signal }));
export const fetchNotebooks = (q: string, signal?: AbortSignal) =>
  unwrap(api.GET('/api/notebooks', { params: { query: { q } }, signal }));
export const postNotebook = (document: NotebookDocument, parent: string | null) =>
  unwrap(api.POST('/api/notebooks', { body: { document, parent } }));
export const fetchSql = (sql: string, captures: string[], signal?: AbortSignal) =>
  unwrap(api.GET('/api/sql', { params: { query: { sql, captures: captures.join(',') } }, signal }));
export const fetchSqlTables = (signal?: AbortSignal) => unwrap(api.GET('/api/sql/tables', { signal }));

export const exportUrl = (id: string, format: 'text' | 'html', download = false) =>
  `/api/notebooks/${encodeURIComponent(id)}/export?format=${format}${download ? '&download=true' : ''}`;

/** The text report of a saved notebook, for the export dialog. */
export async function fetchExportText(id: string): Promise<string> {
  return (await okResponse(await reach(exportUrl(id, 'text')))).text();
}
