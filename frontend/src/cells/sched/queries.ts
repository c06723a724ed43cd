// Typed requests of the scheduler cell (types generated from the backend's OpenAPI schema), shared
// through the query cache. The per-capture views are asked for every capture with a trace at once
// (one cache entry per set of captures and parameters), each capture's answer or error kept apart:
// one capture's failure does not hide the others.
import { ApiError, api, unwrap } from '../../api/client';
import { useQuery } from '../../api/useQuery';
import type { SchedDelays, SchedOverview, SchedPairs, SchedPingPong, SchedRuntime, SchedSwitchRate, SchedTasks } from '../../logic/sched';
import type { DelayReason, GroupBy } from './state';

/** Rows asked for per capture; the tables show the first ones and offer the rest. */
export const SCHED_ROWS = 100;

export type Settled<T> = { id: string; data: T; error?: undefined } | { id: string; data?: undefined; error: ApiError };

async function each<T>(ids: readonly string[], one: (id: string) => Promise<T>): Promise<Settled<T>[]> {
  const got = await Promise.allSettled(ids.map(one));
  return got.map((g, i) =>
    g.status === 'fulfilled' ? { id: ids[i]!, data: g.value } : { id: ids[i]!, error: g.reason instanceof ApiError ? g.reason : new ApiError(String(g.reason), 0) },
  );
}

const path = (id: string) => ({ capture_id: id });
/** A run filter only for the captures that have that run (others: every run, and the cell says so). */
const runFor = (run: string | null, runs: Record<string, string[]>, id: string) => (run && (runs[id] ?? []).includes(run) ? run : undefined);

/** The time range the tables count, ns since each run's start (the notebook's timeline selection;
 *  null: whole runs), as the API's from_ns and to_ns on clock=run: each run counts it on its own
 *  trace, moved by its own offset (runs[].from_ns, to_ns of the answer). */
export type Span = [number, number] | null;
const spanQuery = (span: Span) => (span ? { from_ns: Math.floor(span[0]), to_ns: Math.ceil(span[1]), clock: 'run' as const } : {});
const spanKey = (span: Span) => (span ? `${Math.floor(span[0])}-${Math.ceil(span[1])}` : '');

export const fetchSchedComparison = (captures: string[], baseline: string, span: Span = null) =>
  unwrap(api.GET('/api/compare/sched', { params: { query: { captures: captures.join(','), baseline, ...spanQuery(span) } } }));

export const useSchedComparison = (captures: string[], baseline: string, span: Span = null) =>
  useQuery(`sched:cmp:${captures.join(',')}|${baseline}|${spanKey(span)}`, () => fetchSchedComparison(captures, baseline, span));

export interface Common {
  /** Captures with a trace, in column order. */
  ids: string[];
  /** Runs with a trace per capture (the comparison's status). */
  runs: Record<string, string[]>;
  run: string | null;
  /** The range the tables count (the timeline selection), or null: whole runs. */
  span: Span;
}

const key = (name: string, c: Common, rest: unknown[]) => `sched:${name}:${c.ids.join(',')}|${c.run ?? ''}|${rest.join('|')}`;
/** The key of a view that counts the range: the same with it. */
const spanned = (name: string, c: Common, rest: unknown[]) => `${key(name, c, rest)}|${spanKey(c.span)}`;

export const useSchedOverviews = (c: Common) =>
  useQuery<Settled<SchedOverview>[]>(c.ids.length ? key('ov', c, []) : null, () =>
    each(c.ids, (id) => unwrap(api.GET('/api/captures/{capture_id}/sched', { params: { path: path(id), query: { run: runFor(c.run, c.runs, id) } } }))),
  );

export const useSwitchRates = (c: Common, stepMs: number | null) =>
  useQuery<Settled<SchedSwitchRate>[]>(c.ids.length && stepMs ? key('rate', c, [stepMs]) : null, () =>
    each(c.ids, (id) =>
      unwrap(api.GET('/api/captures/{capture_id}/sched/switch-rate', { params: { path: path(id), query: { run: runFor(c.run, c.runs, id), cpus: 'all', step_ms: stepMs ?? 1000 } } })),
    ),
  );

export const useSchedTasks = (c: Common, cpus: string, groupBy: GroupBy) =>
  useQuery<Settled<SchedTasks>[]>(c.ids.length ? spanned('tasks', c, [cpus, groupBy]) : null, () =>
    each(c.ids, (id) =>
      unwrap(api.GET('/api/captures/{capture_id}/sched/tasks', { params: { path: path(id), query: { run: runFor(c.run, c.runs, id), cpus, group_by: groupBy, limit: SCHED_ROWS, ...spanQuery(c.span) } } })),
    ),
  );

export const useSchedPairs = (c: Common, cpus: string, groupBy: GroupBy) =>
  useQuery<Settled<SchedPairs>[]>(c.ids.length ? spanned('pairs', c, [cpus, groupBy]) : null, () =>
    each(c.ids, (id) =>
      unwrap(api.GET('/api/captures/{capture_id}/sched/pairs', { params: { path: path(id), query: { run: runFor(c.run, c.runs, id), cpus, group_by: groupBy, limit: SCHED_ROWS, ...spanQuery(c.span) } } })),
    ),
  );

export const useSchedPingPong = (c: Common, cpus: string, groupBy: GroupBy, windowUs: number) =>
  useQuery<Settled<SchedPingPong>[]>(c.ids.length ? spanned('pp', c, [cpus, groupBy, windowUs]) : null, () =>
    each(c.ids, (id) =>
      unwrap(
        api.GET('/api/captures/{capture_id}/sched/pingpong', {
          params: { path: path(id), query: { run: runFor(c.run, c.runs, id), cpus, group_by: groupBy, window_us: windowUs, limit: SCHED_ROWS, ...spanQuery(c.span) } },
        }),
      ),
    ),
  );

export const useSchedDelays = (c: Common, cpus: string, groupBy: GroupBy, reason: DelayReason) =>
  useQuery<Settled<SchedDelays>[]>(c.ids.length ? spanned('delays', c, [cpus, groupBy, reason]) : null, () =>
    each(c.ids, (id) =>
      unwrap(
        api.GET('/api/captures/{capture_id}/sched/delays', { params: { path: path(id), query: { run: runFor(c.run, c.runs, id), cpus, group_by: groupBy, reason, limit: SCHED_ROWS, ...spanQuery(c.span) } } }),
      ),
    ),
  );

export const useSchedRuntime = (c: Common, cpus: string, groupBy: GroupBy) =>
  useQuery<Settled<SchedRuntime>[]>(c.ids.length ? spanned('runtime', c, [cpus, groupBy]) : null, () =>
    each(c.ids, (id) =>
      unwrap(api.GET('/api/captures/{capture_id}/sched/runtime', { params: { path: path(id), query: { run: runFor(c.run, c.runs, id), cpus, group_by: groupBy, limit: SCHED_ROWS, ...spanQuery(c.span) } } })),
    ),
  );
