// The scheduler cell (issue 4): context switches per CPU over time, tasks and task pairs per CPU,
// ping-pong pairs, wakeup-to-run delays, run time per task, and the captures side by side with
// ratios. Every view says first which captures have a trace, their workload's CPUs, and whether
// runs lost events (docs/sched.md "Lost events").
import { Fragment, useMemo, type ReactNode } from 'react';
import { useCaptureList } from '../../api/queries';
import { AlignedColumns } from '../../components/AlignedColumns';
import { ErrorBox } from '../../components/ErrorBox';
import { Legend, MetricTable } from '../fio/FioTableCell';
import { legendNeeds } from '../../logic/compareTable';
import {
  rateStepMs,
  buildSchedTable,
  checkRows,
  fmtCount,
  fmtSec,
  lossNotes,
  MEASURE_INFO,
  statusLossNotes,
  type SchedColumn,
  type SchedComparison,
  type SchedOverview,
  type SchedTable,
  type SchedViewBase,
} from '../../logic/sched';
import { sideOf } from '../offcpu/state';
import type { SharedTime } from '../timeline/shared';
import { TimeApplied } from '../timeline/TimeApplied';
import type { CellProps, NotebookContext } from '../types';
import { CapName, LossBanner, NoTrace } from './parts';
import { useSchedComparison, useSchedDelays, useSchedOverviews, useSchedPairs, useSchedPingPong, useSchedRuntime, useSchedTasks, useSwitchRates, type Common, type Settled, type Span } from './queries';
import { RateMultiples, RateOverlayChart, SchedTimeWindow } from './SchedRate';
import { DelaysViewWithLegend, PairsView, PingPongTable, PingPongView, RuntimeView, TasksView, type PairStacks } from './SchedTables';
import { defaultCpus, defaultGroupBy, MEASURES, type SchedState, type SchedView } from './state';
import './sched.css';

const VIEW_NAMES: Record<SchedView, string> = {
  sum: 'Comparison',
  rate: 'Switch rate',
  tasks: 'Tasks',
  pairs: 'Pairs',
  pingpong: 'Ping-pong',
  delays: 'Wakeup delays',
  runtime: 'Run time',
};
const VIEW_TITLES: Record<SchedView, string> = {
  sum: 'the captures side by side with ratios to the baseline, context switches on the workload CPUs over time, top ping-pong pairs',
  rate: 'context switches (or wakeups, migrations...) per second over time, per CPU, one chart per capture and run',
  tasks: 'totals per task and CPU: switches in, involuntary vs voluntary switches out, states, run time',
  pairs: 'switches per task pair prev → next and CPU, involuntary vs voluntary',
  pingpong: 'pairs of tasks switching to each other back and forth on one CPU',
  delays: 'wakeup-to-run delay (sched delay) per task or task group: percentiles and log2 histogram',
  runtime: "run time per task on the workload's CPUs, in CPUs used",
};
const STEPS = [100, 200, 500, 1000, 2000, 5000, 10_000];
const WINDOWS = [50, 100, 250, 500, 1000, 2000, 5000, 10_000];

export function SchedCell({ ctx, state, setState, openCell }: CellProps<SchedState>) {
  const time = useSchedTime(ctx);
  const q = useSchedComparison(ctx.captures, ctx.baseline, time.span);
  const list = useCaptureList();
  // a ping-pong row of a capture recorded with --offcpu opens both sides' stacks (the offcpu cell)
  const stacks: PairStacks | undefined = useMemo(() => {
    if (!openCell) return undefined;
    const off = new Set((list.data ?? []).filter((c) => (c.artifact_kinds ?? []).includes('perf-offcpu')).map((c) => c.id));
    return (cap) => (off.has(cap) ? (run, a, b) => openCell('offcpu', { cap, run, a: sideOf(a), b: sideOf(b), mode: 'flame' }) : null);
  }, [openCell, list.data]);
  const table = useMemo(() => (q.data ? buildSchedTable(q.data) : null), [q.data]);
  if (q.loading) return <p className="muted">Comparing scheduler traces…</p>;
  if (q.error) return <ErrorBox error={q.error} title="scheduler comparison" />;
  if (!table || !q.data) return null;
  if (!table.columns.some((c) => c.hasTrace)) {
    return (
      <div className="sched-cell">
        <NoTrace columns={table.columns} all ctx={ctx} />
      </div>
    );
  }
  return (
    <SchedShared time={time} onClear={ctx.clearTime}>
      <SchedBody cmp={q.data} table={table} state={state} setState={setState} stacks={stacks} span={time.span} />
    </SchedShared>
  );
}

interface SchedTime {
  t: SharedTime | null;
  /** The selection, ns since each run's start (the timeline's clock), or null: whole runs. */
  span: Span;
}

/** The notebook's shared time selection (a timeline cell's brush): the range the tables count and
 *  the window of the charts over time, in every run of every capture, each run cutting it on its own
 *  trace (moved by that run's own offset, never the brushed run's: logic/timeline runSpan; the
 *  views' clock=run, views/sched_range.py; the exports do the same). */
function useSchedTime(ctx: NotebookContext): SchedTime {
  const t = ctx.time ?? null;
  const from = t?.from;
  const to = t?.to;
  const span: Span = useMemo(() => (from !== undefined && to !== undefined ? [from, to] : null), [from, to]);
  return { t, span };
}

function SchedShared({ time, onClear, children }: { time: SchedTime; onClear?: () => void; children: ReactNode }) {
  const { t, span } = time;
  if (!t) return <>{children}</>;
  return (
    <>
      <TimeApplied time={t} onClear={onClear}>
        {span &&
          `the charts over time and the tables count ${(span[0] / 1e9).toFixed(3)}–${(span[1] / 1e9).toFixed(3)} s since each run's start, in every run, each on its own trace (moved by that run's own offset); perf stat's and fio's own counts cover whole runs and are left out`}
      </TimeApplied>
      <SchedTimeWindow.Provider value={span}>{children}</SchedTimeWindow.Provider>
    </>
  );
}

/** Under the timeline selection: what the tables below count. */
function SpanNote({ span }: { span: Span }) {
  if (!span) return null;
  return (
    <p className="muted small sched-span-note" data-testid="sched-span-note">
      Counted over {(span[0] / 1e9).toFixed(3)}–{(span[1] / 1e9).toFixed(3)} s since each run&apos;s start (the timeline selection), in every run on its own trace; rates per
      second of that range.
    </p>
  );
}

const ok = <T,>(s: Settled<T>[] | undefined): T[] => (s ?? []).flatMap((x) => (x.data ? [x.data] : []));

function SchedBody({ cmp, table, state, setState, stacks, span }: { cmp: SchedComparison; table: SchedTable; state: SchedState; setState: (s: SchedState) => void; stacks?: PairStacks; span: Span }) {
  const traced = useMemo(() => table.columns.filter((c) => c.hasTrace), [table]);
  const spanText = span ? `${span[0]}-${span[1]}` : '';
  const common: Common = useMemo(
    () => ({ ids: traced.map((c) => c.id), runs: Object.fromEntries(traced.map((c) => [c.id, c.status?.runs ?? []])), run: state.run, span }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `span` is new each render; spanText is its value
    [traced, state.run, spanText],
  );
  const ov = useSchedOverviews(common);
  const overviews = ok(ov.data);
  // with perf stat's counted lines drawn, at least its interval: the two lines on one axis, comparable
  const countedShown = state.view === 'rate' && !state.overlay && state.counted && MEASURE_INFO[state.measure].counted !== null;
  const autoStep = ov.data ? rateStepMs(overviews.flatMap((o) => o.runs.map((r) => r.duration_s)), countedShown) : null;
  const step = state.step ?? autoStep;
  const runs = [...new Set(traced.flatMap((c) => c.status?.runs ?? []))].sort();
  const cpus = [...new Set(overviews.flatMap((o) => o.runs.flatMap((r) => r.cpus)))].sort((a, b) => a - b);
  const set = (p: Partial<SchedState>) => setState({ ...state, ...p });
  const view = state.view;
  const cpuSel = state.cpus ?? defaultCpus(view);
  const groupBy = state.groupBy ?? defaultGroupBy(view);

  return (
    <div className="sched-cell">
      <div className="cell-toolbar sched-toolbar">
        <div className="segmented" role="group" aria-label="Scheduler view">
          {(Object.keys(VIEW_NAMES) as SchedView[]).map((v) => (
            <button key={v} type="button" className={`toggle${view === v ? ' on' : ''}`} aria-pressed={view === v} title={VIEW_TITLES[v]} onClick={() => set({ view: v })}>
              {VIEW_NAMES[v]}
            </button>
          ))}
        </div>
        <ViewOptions view={view} state={state} set={set} cpus={cpus} cpuSel={cpuSel} groupBy={groupBy} autoStep={autoStep} />
        <span className="spacer" />
        {runs.length > 1 && (
          <label className="check-label opt">
            Runs
            <select value={state.run ?? ''} onChange={(e) => set({ run: e.target.value || null })} aria-label="Runs">
              <option value="">all ({runs.length})</option>
              {runs.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
        )}
      </div>
      <StatusTable columns={table.columns} overviews={overviews} run={state.run} />
      {view === 'sum' && <SummaryView cmp={cmp} table={table} common={common} step={step} overviews={overviews} />}
      {view === 'rate' && <RateView table={table} common={common} step={step} state={state} />}
      {view !== 'sum' && view !== 'rate' && <TableSection key={view} view={view} common={common} columns={table.columns} state={state} cpus={cpuSel} groupBy={groupBy} stacks={stacks} />}
      <NoTrace columns={table.columns} all={false} />
    </div>
  );
}

function ViewOptions({
  view,
  state,
  set,
  cpus,
  cpuSel,
  groupBy,
  autoStep,
}: {
  view: SchedView;
  state: SchedState;
  set: (p: Partial<SchedState>) => void;
  cpus: number[];
  cpuSel: string;
  groupBy: 'task' | 'group';
  autoStep: number | null;
}) {
  if (view === 'sum') return null;
  if (view === 'rate') {
    return (
      <>
        <label className="check-label opt">
          Show
          <select value={state.measure} onChange={(e) => set({ measure: e.target.value as SchedState['measure'] })} aria-label="Measure">
            {MEASURES.map((m) => (
              <option key={m} value={m} title={MEASURE_INFO[m].description}>
                {MEASURE_INFO[m].label.toLowerCase()}/s
              </option>
            ))}
          </select>
        </label>
        <label className="check-label opt">
          Interval
          <select value={state.step ?? ''} onChange={(e) => set({ step: e.target.value ? Number(e.target.value) : null })} aria-label="Interval">
            <option value="">auto{autoStep ? ` (${autoStep} ms)` : ''}</option>
            {STEPS.map((s) => (
              <option key={s} value={s}>
                {s} ms
              </option>
            ))}
          </select>
        </label>
        <div className="segmented" role="group" aria-label="Layout">
          <button type="button" className={`toggle${!state.overlay ? ' on' : ''}`} aria-pressed={!state.overlay} onClick={() => set({ overlay: false })} title="one chart per capture and run, a line per CPU">
            Per run
          </button>
          <button type="button" className={`toggle${state.overlay ? ' on' : ''}`} aria-pressed={state.overlay} onClick={() => set({ overlay: true })} title="every capture's workload CPUs in one chart">
            Overlay
          </button>
        </div>
        {!state.overlay && MEASURE_INFO[state.measure].counted && (
          <label className="check-label opt" title="perf stat's own count of context switches per CPU (1 s intervals): counted, never lost">
            <input type="checkbox" checked={state.counted} onChange={(e) => set({ counted: e.target.checked })} /> perf stat
          </label>
        )}
      </>
    );
  }
  return (
    <>
      <label className="check-label opt">
        CPUs
        <select value={cpuSel} onChange={(e) => set({ cpus: e.target.value === defaultCpus(view) ? null : e.target.value })} aria-label="CPUs">
          <option value="all">all</option>
          <option value="workload">workload's</option>
          {cpus.map((c) => (
            <option key={c} value={String(c)}>
              CPU {c}
            </option>
          ))}
          {![...cpus.map(String), 'all', 'workload'].includes(cpuSel) && <option value={cpuSel}>{cpuSel}</option>}
        </select>
      </label>
      <div className="segmented" role="group" aria-label="Group by">
        <button type="button" className={`toggle${groupBy === 'task' ? ' on' : ''}`} aria-pressed={groupBy === 'task'} onClick={() => set({ groupBy: defaultGroupBy(view) === 'task' ? null : 'task' })} title="each thread (pid and name)">
          Tasks
        </button>
        <button
          type="button"
          className={`toggle${groupBy === 'group' ? ' on' : ''}`}
          aria-pressed={groupBy === 'group'}
          onClick={() => set({ groupBy: defaultGroupBy(view) === 'group' ? null : 'group' })}
          title="task groups: kworker/*, ksoftirqd/*, <idle>, else the name"
        >
          Groups
        </button>
      </div>
      {view === 'pingpong' && (
        <label className="check-label opt" title="a round trip is Y → X → Y with X running at most this long">
          Window
          <select value={state.windowUs} onChange={(e) => set({ windowUs: Number(e.target.value) })} aria-label="Window">
            {WINDOWS.map((w) => (
              <option key={w} value={w}>
                {w >= 1000 ? `${w / 1000} ms` : `${w} µs`}
              </option>
            ))}
          </select>
        </label>
      )}
      {view === 'delays' && (
        <div className="segmented" role="group" aria-label="Ready since">
          {(['all', 'woken', 'preempted'] as const).map((r) => (
            <button key={r} type="button" className={`toggle${state.reason === r ? ' on' : ''}`} aria-pressed={state.reason === r} onClick={() => set({ reason: r })} title={r === 'all' ? 'every delay' : r === 'woken' ? 'ready since a wakeup' : 'ready since switched out runnable (preempted)'}>
              {r === 'all' ? 'All' : r === 'woken' ? 'Woken' : 'Preempted'}
            </button>
          ))}
        </div>
      )}
    </>
  );
}

/** '1.44–1.73 s', '12.5 s': the runs' traced durations. */
function spanText(durs: number[]): string {
  const lo = Math.min(...durs);
  const hi = Math.max(...durs);
  const d = hi >= 100 ? 0 : hi >= 10 ? 1 : 2;
  return hi - lo >= 0.5 * 10 ** -d ? `${lo.toFixed(d)}–${hi.toFixed(d)} s` : `${hi.toFixed(d)} s`;
}

/** Which captures have a trace, what the workload was and where, how much was recorded, and whether events were lost. */
function StatusTable({ columns, overviews, run }: { columns: SchedColumn[]; overviews: SchedOverview[]; run: string | null }) {
  const byId = new Map(overviews.map((o) => [o.capture_id, o]));
  return (
    <div className="sched-status-wrap">
      <table className="sched-status" data-testid="sched-status">
        <tbody>
          {columns.map((c) => {
            const o = byId.get(c.id);
            const st = c.status;
            const lostRuns = o ? o.runs.filter((r) => r.events_lost).map((r) => r.id) : [];
            const events = o ? o.runs.reduce((a, r) => a + Object.values(r.events).reduce((x, y) => x + y, 0), 0) : 0;
            const durs = o ? o.runs.map((r) => r.duration_s) : [];
            return (
              <tr key={c.id} data-capture={c.id}>
                <th>
                  <CapName c={c} />
                </th>
                {c.hasTrace ? (
                  <>
                    <td className="muted">{c.workload}</td>
                    <td className="num-left muted" title={o ? o.runs.map((r) => `run ${r.id}: ${fmtSec(r.duration_s)} traced, ${fmtCount(Object.values(r.events).reduce((x, y) => x + y, 0))} events (${Object.entries(r.events).map(([k, v]) => `${k} ${fmtCount(v)}`).join(', ')}), ${r.artifact}`).join('\n') : ''}>
                      {run && st?.runs.includes(run) ? `run ${run}` : `${st?.runs.length ?? 0} run${st?.runs.length === 1 ? '' : 's'}`}
                      {durs.length > 0 && ` · ${spanText(durs)} traced · ${fmtCount(events)} events`}
                    </td>
                    <td>
                      {st?.events_lost ? (
                        <span className="status-bad" title={st.warnings.join('\n')}>
                          ⚠ events lost{lostRuns.length ? ` in ${lostRuns.join(', ')}` : ''}
                        </span>
                      ) : (
                        <span className="status-good" title={o ? o.runs.flatMap((r) => r.checks.map((k) => `run ${r.id}: ${k.detail}`)).join('\n') : ''}>
                          ✓ no events lost
                        </span>
                      )}
                    </td>
                  </>
                ) : (
                  <td colSpan={3} className="muted">
                    no scheduler trace (recorded without <code>--sched</code>)
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      {overviews.length > 0 && <Checks overviews={overviews} columns={columns} />}
    </div>
  );
}

/** Per run: what the trace holds against perf stat's count and against itself (docs/sched.md). */
function Checks({ overviews, columns }: { overviews: SchedOverview[]; columns: SchedColumn[] }) {
  return (
    <details className="sched-checks">
      <summary>Trace checks: recorded vs counted, per run</summary>
      <table className="data-table sched-table">
        <thead>
          <tr>
            <th>capture</th>
            <th>run</th>
            <th>check</th>
            <th>event</th>
            <th className="num">recorded</th>
            <th className="num">expected</th>
            <th className="num">ratio</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {overviews.flatMap((o) => {
            const c = columns.find((x) => x.id === o.capture_id)!;
            return o.runs.flatMap((r) =>
              checkRows(r).map((k, i) => (
                <tr key={`${o.capture_id}${r.id}${k.name}${k.event}`} title={k.detail}>
                  <td>{i === 0 && r === o.runs[0] ? <CapName c={c} /> : ''}</td>
                  <td className="mono">{i === 0 ? r.id : ''}</td>
                  <td className="mono small">{k.name}</td>
                  <td className="mono small">{k.event}</td>
                  <td className="num">{k.recorded}</td>
                  <td className="num">{k.expected}</td>
                  <td className="num">{k.ratio}</td>
                  <td>{k.ok === false ? <span className="status-bad">⚠ lost</span> : k.ok === null ? <span className="muted">not checked</span> : <span className="status-good">✓</span>}</td>
                </tr>
              )),
            );
          })}
        </tbody>
      </table>
    </details>
  );
}

function SummaryView({ cmp, table, common, step, overviews }: { cmp: SchedComparison; table: SchedTable; common: Common; step: number | null; overviews: SchedOverview[] }) {
  const rates = useSwitchRates(common, step);
  // The comparison's top 3 pairs per capture, and beyond them the first workload-kworker pair.
  const pp = useSchedPingPong(common, 'workload', 'group', 1000);
  const traced = table.columns.filter((c) => c.hasTrace);
  return (
    <>
      <LossBanner notes={statusLossNotes(table.columns)} />
      <SpanNote span={common.span} />
      <MetricTable columns={table.columns} rows={table.rows} strips testId="sched-compare" />
      <Legend needs={legendNeeds(table.columns, table.rows)} />
      {common.run && <p className="muted small sched-run-note">The table covers every run of each capture; the chart and pairs below, run {common.run} only.</p>}
      <div className="sched-two">
        <div className="sched-two-chart">
          {rates.error ? (
            <ErrorBox error={rates.error} title="switch rate" />
          ) : !rates.data ? (
            <p className="muted">Loading switch rates…</p>
          ) : (
            <RateOverlayChart answers={ok(rates.data)} columns={traced} measure="switches" height={170} title="Context switches/s on the workload CPUs" />
          )}
        </div>
        <AlignedColumns selector="table.pingpong-table" className="sched-two-pairs" testId="sched-top-pairs">
          <div className="chart-head">
            <span className="chart-title">Top ping-pong pairs</span>
            <span className="chart-sub" title="Pairs of task groups switching to each other on a workload CPU (Y → X → Y with X running ≤ 1 ms), most round trips first; the first workload ⇄ kworker pair is shown also when it is not in the top 3.">
              workload CPUs · task groups · ≤ 1 ms
            </span>
          </div>
          {traced.map((c) => {
            const rows = pp.data?.find((x) => x.id === c.id)?.data?.rows ?? cmp.pingpong[c.id] ?? [];
            const o = overviews.find((x) => x.capture_id === c.id);
            return (
              <div key={c.id} className="top-pairs-cap" data-capture={c.id}>
                <div className="top-pairs-head">
                  <CapName c={c} />
                </div>
                <PingPongTable a={{ capture_id: c.id, label: c.label, runs: o?.runs ?? [], rows }} windowUs={1000} compact testId="sched-top-pairs-table" />
              </div>
            );
          })}
        </AlignedColumns>
      </div>
    </>
  );
}

function RateView({ table, common, step, state }: { table: SchedTable; common: Common; step: number | null; state: SchedState }) {
  const q = useSwitchRates(common, step);
  const traced = table.columns.filter((c) => c.hasTrace);
  if (q.error) return <ErrorBox error={q.error} title="switch rate" />;
  if (!q.data) return <p className="muted">Loading switch rates…</p>;
  const answers = ok(q.data);
  const colorOf = (id: string) => table.columns.find((c) => c.id === id)?.color ?? '#888';
  return (
    <>
      <LossBanner notes={lossNotes(answers, colorOf)} />
      <Errors settled={q.data} columns={table.columns} />
      {state.overlay ? <RateOverlayChart answers={answers} columns={traced} measure={state.measure} /> : <RateMultiples answers={answers} columns={traced} measure={state.measure} counted={state.counted} />}
    </>
  );
}

function Errors<T>({ settled, columns }: { settled: Settled<T>[]; columns: SchedColumn[] }) {
  return (
    <>
      {settled.map((s) =>
        s.error ? (
          <Fragment key={s.id}>
            <ErrorBox error={s.error} title={columns.find((c) => c.id === s.id)?.label ?? s.id} />
          </Fragment>
        ) : null,
      )}
    </>
  );
}

interface SectionProps {
  common: Common;
  columns: SchedColumn[];
  state: SchedState;
  cpus: string;
  groupBy: 'task' | 'group';
  stacks?: PairStacks;
}

/** A per-capture table view: each view asks for its own data (one component, so one hook, per view). */
function TableSection({ view, ...p }: SectionProps & { view: SchedView }) {
  return (
    <>
      <SpanNote span={p.common.span} />
      <TableOf view={view} {...p} />
    </>
  );
}

function TableOf({ view, ...p }: SectionProps & { view: SchedView }) {
  switch (view) {
    case 'tasks':
      return <TasksSection {...p} />;
    case 'pairs':
      return <PairsSection {...p} />;
    case 'pingpong':
      return <PingPongSection {...p} />;
    case 'delays':
      return <DelaysSection {...p} />;
    default:
      return <RuntimeSection {...p} />;
  }
}

function TasksSection({ common, columns, state, cpus, groupBy }: SectionProps) {
  const traced = columns.filter((c) => c.hasTrace);
  return <Loaded q={useSchedTasks(common, cpus, groupBy)} columns={columns} what="tasks" render={(d) => <TasksView settled={d} columns={traced} run={state.run} cpus={cpus} />} />;
}

function PairsSection({ common, columns, state, cpus, groupBy }: SectionProps) {
  const traced = columns.filter((c) => c.hasTrace);
  return <Loaded q={useSchedPairs(common, cpus, groupBy)} columns={columns} what="task pairs" render={(d) => <PairsView settled={d} columns={traced} run={state.run} cpus={cpus} />} />;
}

function PingPongSection({ common, columns, state, cpus, groupBy, stacks }: SectionProps) {
  const traced = columns.filter((c) => c.hasTrace);
  return (
    <Loaded
      q={useSchedPingPong(common, cpus, groupBy, state.windowUs)}
      columns={columns}
      what="ping-pong pairs"
      render={(d) => (
        <AlignedColumns selector="table.pingpong-table">
          <PingPongView settled={d} columns={traced} run={state.run} cpus={cpus} windowUs={state.windowUs} stacks={stacks} />
        </AlignedColumns>
      )}
    />
  );
}

function DelaysSection({ common, columns, state, cpus, groupBy }: SectionProps) {
  const traced = columns.filter((c) => c.hasTrace);
  return <Loaded q={useSchedDelays(common, cpus, groupBy, state.reason)} columns={columns} what="wakeup delays" render={(d) => <DelaysViewWithLegend settled={d} columns={traced} run={state.run} cpus={cpus} />} />;
}

function RuntimeSection({ common, columns, state, cpus, groupBy }: SectionProps) {
  const traced = columns.filter((c) => c.hasTrace);
  return <Loaded q={useSchedRuntime(common, cpus, groupBy)} columns={columns} what="run time" render={(d) => <RuntimeView settled={d} columns={traced} run={state.run} cpus={cpus} />} />;
}

/** Loading, the loss warning of the answers, then what they draw. */
function Loaded<T extends SchedViewBase>({ q, columns, what, render }: { q: { data?: Settled<T>[]; error?: Error; loading: boolean }; columns: SchedColumn[]; what: string; render: (d: Settled<T>[]) => ReactNode }) {
  if (q.error) return <ErrorBox error={q.error as never} title={what} />;
  if (!q.data) return <p className="muted">Loading {what}…</p>;
  const colorOf = (id: string) => columns.find((c) => c.id === id)?.color ?? '#888';
  return (
    <>
      <LossBanner notes={lossNotes(ok(q.data), colorOf)} />
      {render(q.data)}
    </>
  );
}
