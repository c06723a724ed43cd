// Typed requests of the flame graph cell (types generated from the backend's OpenAPI schema),
// shared through the query cache, and the export URLs (folded text, SVG) of the same selection.
import { ApiError, okResponse, reach } from '../../api/client';
import type { components } from '../../api/schema';
import { prefetch, useQuery } from '../../api/useQuery';
import { Names } from '../../logic/flameNames';
import type { DiffColumns } from '../../logic/flameDiff';
import { decodeFlameColumns, decodeFlameDiffColumns, FLAME_COLUMNS, FlameWireError } from '../../logic/flameWire';
import type { NotebookContext } from '../types';
import { ALL_TASKS, type FlameState } from './state';

/** The JSON answer's FlameGraph, as the OpenAPI schema describes it. */
export type FlameGraphJson = components['schemas']['FlameGraph'];
/** A flame graph as the cell reads it: the JSON answer's, or the columns answer's with typed arrays. */
export type FlameGraphData = Omit<FlameGraphJson, 'tree'> & {
  tree: { names: Names; name: ArrayLike<number>; depth: ArrayLike<number>; self_weight: ArrayLike<number>; self_samples: ArrayLike<number> };
};
/** The difference's JSON answer, as the OpenAPI schema describes it. */
export type FlameDiffJson = components['schemas']['FlameDiff'];
/** A difference as the cell reads it: the JSON answer's, or the columns answer's with typed arrays. */
export type FlameDiffData = Omit<FlameDiffJson, 'tree'> & { tree: DiffColumns & { names: Names } };
export type FlameRunInfo = components['schemas']['FlameRun'];
export type FlameDiffFunction = components['schemas']['FlameDiffFunction'];

export interface FlameParams {
  event?: string;
  runs?: string;
  cpus?: string;
  tid?: number;
  comm?: string;
  from_ns?: number;
  to_ns?: number;
}

/** Query parameters of a selection (the API's names); a difference takes no runs or thread. */
export function flameParams(s: FlameState, forDiff: boolean): FlameParams {
  const q: FlameParams = {};
  if (s.event !== null) q.event = s.event;
  if (!forDiff && s.runs) q.runs = s.runs.join(',');
  if (s.cpus) q.cpus = s.cpus.join(',');
  if (!forDiff && s.tid !== null) q.tid = s.tid;
  if (s.comm !== null && s.comm !== ALL_TASKS) q.comm = s.comm; // '*': the user chose all tasks, no filter
  if (s.from !== null) q.from_ns = s.from;
  if (s.to !== null) q.to_ns = s.to;
  return q;
}

function rangeParams(s: FlameState, b: NonNullable<FlameState['rangeB']>) {
  const runs = s.runs ? { runs_a: s.runs.join(','), runs_b: s.runs.join(',') } : {};
  return { ...runs, from_b_ns: b.from, ...(b.to !== null ? { to_b_ns: b.to } : {}) };
}

const asStrings = (q: object): Record<string, string> => Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)]));
const keyOf = (q: object) => new URLSearchParams(Object.entries(asStrings(q)).sort()).toString();

/** The graph's URL (the same for both answers: the format is asked for by Accept). */
export function flameUrl(id: string, q: FlameParams): string {
  const qs = new URLSearchParams(asStrings(q)).toString();
  return `/api/captures/${encodeURIComponent(id)}/flame${qs ? `?${qs}` : ''}`;
}

/**
 * The URL the page asks one capture's graph with: its columns answer named by `format=columns`,
 * not by Accept, and no header of its own, so that the request is the one the server's index.html
 * preloads for a notebook link (backend/iolens/api/index_preload.py: a preload cannot set Accept,
 * and a request whose headers differ may not take the preloaded answer).
 */
export function flameColumnsUrl(id: string, q: FlameParams): string {
  const url = flameUrl(id, q);
  return `${url}${url.includes('?') ? '&' : '?'}format=columns`;
}

// the page asks for the columns answers; a server that sends JSON is read too
const ACCEPT = { Accept: `${FLAME_COLUMNS}, application/json;q=0.5` };

/**
 * One capture's graph as its columns answer (logic/flameWire.ts: the tree as typed arrays, no
 * JSON to parse), read as the JSON one if the server sends that. Errors: the server's
 * {error, detail} as an ApiError; a damaged answer as the decoder's error naming the section.
 */
export async function fetchFlame(id: string, q: FlameParams): Promise<FlameGraphData> {
  const r = await okResponse(await reach(flameColumnsUrl(id, q)));
  if ((r.headers.get('content-type') ?? '').startsWith(FLAME_COLUMNS)) {
    const buf = await r.arrayBuffer();
    const t0 = performance.now();
    let answer: ReturnType<typeof decodeFlameColumns>;
    try {
      answer = decodeFlameColumns(buf);
    } catch (e) {
      throw e instanceof FlameWireError ? new ApiError(e.message, r.status) : e;
    }
    (window.__iolensFlameDecodes ??= []).push(performance.now() - t0);
    return { ...(answer.head as Omit<FlameGraphJson, 'tree'>), tree: answer.tree };
  }
  const json = (await r.json()) as FlameGraphJson;
  return { ...json, tree: { ...json.tree, names: Names.of(json.tree.names) } };
}

/** Two captures' difference (`/api/compare/flame`) as its columns answer, read as the JSON one if the server sends that; errors as fetchFlame's. */
export async function fetchFlameDiff(q: Record<string, string>): Promise<FlameDiffData> {
  const r = await okResponse(await reach(`/api/compare/flame?${new URLSearchParams(q).toString()}`, { headers: ACCEPT }));
  if ((r.headers.get('content-type') ?? '').startsWith(FLAME_COLUMNS)) {
    const buf = await r.arrayBuffer();
    let answer: ReturnType<typeof decodeFlameDiffColumns>;
    try {
      answer = decodeFlameDiffColumns(buf);
    } catch (e) {
      throw e instanceof FlameWireError ? new ApiError(e.message, r.status) : e;
    }
    return { ...(answer.head as Omit<FlameDiffJson, 'tree'>), tree: answer.tree };
  }
  const json = (await r.json()) as FlameDiffJson;
  return { ...json, tree: { ...json.tree, names: Names.of(json.tree.names) } };
}

function flameQuery(id: string, s: FlameState): [string, () => Promise<FlameGraphData>] {
  const q = flameParams(s, false);
  return [`flame:${id}|${keyOf(q)}`, () => fetchFlame(id, q)];
}

export function useFlame(id: string | null, s: FlameState) {
  const [key, fetcher] = id === null ? [null, () => Promise.reject(new Error('no capture'))] : flameQuery(id, s);
  return useQuery(key, fetcher);
}

/**
 * The one-capture graph's answer, asked for before the cell mounts (boot.ts, from the URL): the
 * capture FlameCell shows before the capture list is known (the state's, else the baseline), when
 * no shared time selection or second range changes the query. Anything else is asked for on mount.
 */
export function prefetchFlame(ctx: NotebookContext, s: FlameState): void {
  if (s.view === 'diff' || s.rangeB || ctx.time) return;
  const id = s.cap && ctx.captures.includes(s.cap) ? s.cap : ctx.baseline;
  // a capture the server said has no stacks: its flame answer is a 404 (the cell shows another)
  if (ctx.captures.includes(id) && !ctx.withoutStacks?.includes(id)) void prefetch(...flameQuery(id, s));
}

export function useFlameDiff(a: string | null, b: string | null, s: FlameState, rangeB: FlameState['rangeB'] = null) {
  // two ranges of one capture (Heatmap.tsx): the runs of the selection on both sides, B's own range
  const q = rangeB ? { ...flameParams(s, true), ...rangeParams(s, rangeB) } : flameParams(s, true);
  return useQuery(a === null || b === null ? null : `flamediff:${a}|${b}|${keyOf(q)}`, () => fetchFlameDiff(asStrings({ ...q, a: a!, b: b! })));
}

/** URL of an export of the current view: folded text or SVG (zoom, search, mode, and for one
 *  capture the order and the transforms included). */
export function exportUrl(kind: 'folded' | 'svg', s: FlameState, ids: { cap: string } | { a: string; b: string }, download = true): string {
  const q: Record<string, string> = asStrings(flameParams(s, 'a' in ids));
  if (!('a' in ids)) {
    // one capture's exports draw what the cell shows: its order and its transforms (x= text)
    if (s.order !== 'name') q.order = s.order;
    if (s.transforms.length) q.transforms = s.transforms.map((t) => `${t.op}:${encodeURIComponent(t.name)}`).join(',');
  }
  if (kind === 'svg') {
    if (s.zoom.length) q.zoom = s.zoom.join(';');
    if (s.search) q.search = s.search;
    q.mode = s.mode;
    if ('a' in ids) q.color = s.colour;
  }
  if (download) q.download = 'true';
  const base = 'a' in ids ? `/api/compare/flame/${kind}` : `/api/captures/${encodeURIComponent(ids.cap)}/flame/${kind}`;
  if ('a' in ids) Object.assign(q, { a: ids.a, b: ids.b });
  const qs = new URLSearchParams(q).toString();
  return qs ? `${base}?${qs}` : base;
}
