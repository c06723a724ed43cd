// The scheduler cell's tables, one block per capture: tasks and task pairs per CPU (involuntary vs
// voluntary), ping-pong pairs (the top pair and the workload-kworker pair stand out), wakeup-to-run
// delays with their log2 histogram, run time per task. Every number's hover names its capture,
// run, CPU and unit (logic/sched.ts).
import { useMemo, useState, type ReactNode } from 'react';
import type { ApiError } from '../../api/client';
import { HistStrip } from '../../charts/HistStrip';
import { stripX } from '../../charts/histStrip';
import { ErrorBox } from '../../components/ErrorBox';
import {
  delayAxisLabels,
  delayBinCount,
  delayRows,
  pairRows,
  pingPongRows,
  runtimeRows,
  taskRows,
  topPairs,
  type Num,
  type SchedColumn,
  type SchedDelays,
  type SchedPairs,
  type SchedPingPong,
  type SchedRuntime,
  type SchedTask,
  type SchedTasks,
  type SchedViewBase,
} from '../../logic/sched';
import { CapName, CpuCell, InvVolBar, RunCell, ShareBar, ShowMore, TaskName } from './parts';
import type { Settled } from './queries';

const FIRST_ROWS = 15;
const STRIP_W = 280;

function N({ n, className = '' }: { n: Num; className?: string }) {
  return (
    <td className={`num ${className}`} title={n.title}>
      {n.text}
    </td>
  );
}

/** One block per capture with a trace: its heading (what the answer covers), then its table or error. */
export function PerCapture<T extends SchedViewBase>({
  settled,
  columns,
  run,
  testId,
  caption,
  children,
}: {
  settled: readonly Settled<T>[];
  columns: readonly SchedColumn[];
  run: string | null;
  testId: string;
  caption: (a: T) => ReactNode;
  children: (a: T, c: SchedColumn) => ReactNode;
}) {
  return (
    <>
      {settled.map((s) => {
        const c = columns.find((x) => x.id === s.id);
        if (!c) return null;
        return (
          <section key={s.id} className="sched-cap" data-testid={testId} data-capture={s.id}>
            <h4 className="sched-cap-head">
              <CapName c={c} />
              {s.data && <span className="muted sched-cap-sub">{caption(s.data)}</span>}
              {s.data && run && !s.data.runs.some((r) => r.id === run) && <span className="muted"> · no run {run} here: every run shown</span>}
            </h4>
            {s.error ? <ErrorBox error={s.error as ApiError} title={c.label} /> : children(s.data!, c)}
          </section>
        );
      })}
    </>
  );
}

function useLimit() {
  const [limit, setLimit] = useState(FIRST_ROWS);
  return { limit, more: () => setLimit((l) => l + 50) };
}

/** A table of rows: the first FIRST_ROWS and more on demand, or exactly `fixed` when given; `empty`
 *  says why when there is no row. `head` is the header row's cells, `row` a row's <tr>. */
function SchedTable<R>({ rows, fixed, empty, testId, className, head, row }: { rows: readonly R[]; fixed?: readonly R[]; empty: ReactNode; testId: string; className?: string; head: ReactNode; row: (r: R) => ReactNode }) {
  const { limit, more } = useLimit();
  if (!rows.length) return <p className="muted">{empty}</p>;
  return (
    <>
      <div className="table-scroll">
        <table className={`data-table sched-table${className ? ` ${className}` : ''}`} data-testid={testId}>
          <thead>
            <tr>{head}</tr>
          </thead>
          <tbody>{(fixed ?? rows.slice(0, limit)).map(row)}</tbody>
        </table>
      </div>
      {!fixed && <ShowMore shown={Math.min(limit, rows.length)} total={rows.length} onMore={more} />}
    </>
  );
}

// Cells more than one table has.
const RUN_CPU_HEAD = (
  <>
    <th>run</th>
    <th className="num">CPU</th>
  </>
);
const taskHead = (a: { group_by: string }) => <th>{a.group_by === 'group' ? 'task group' : 'task'}</th>;

function RunCpuCells({ r }: { r: { runId: string; lost: boolean; cpu: number; workloadCpu: boolean } }) {
  return (
    <>
      <RunCell run={r.runId} lost={r.lost} />
      <CpuCell cpu={r.cpu} workload={r.workloadCpu} />
    </>
  );
}

function TaskCell({ t }: { t: SchedTask }) {
  return (
    <td>
      <TaskName t={t} />
    </td>
  );
}

/** The scale of a table's inv / vol bars: its largest row. */
const invVolMax = (rows: readonly { involuntary: number; voluntary: number }[]) => Math.max(1, ...rows.map((r) => r.involuntary + r.voluntary));

function InvVolCell({ r, max }: { r: { involuntary: number; voluntary: number; nums: Record<'involuntary' | 'voluntary', Num> }; max: number }) {
  return (
    <td>
      <InvVolBar inv={r.involuntary} vol={r.voluntary} max={max} title={`${r.nums.involuntary.title}\n${r.nums.voluntary.text} voluntary`} />
    </td>
  );
}

function ShareCell({ r, strong }: { r: { share: number; nums: Record<'share', Num> }; strong?: boolean }) {
  return (
    <td>
      <ShareBar share={r.share} title={r.nums.share.title} strong={strong}>
        {r.nums.share.text}
      </ShareBar>
    </td>
  );
}

const runsText = (a: SchedViewBase) => (a.runs.length === 1 ? `run ${a.runs[0]!.id}` : `${a.runs.length} runs`);
const cpusText = (cpus: string, a: SchedViewBase) => {
  const wc = [...new Set(a.runs.flatMap((r) => r.workload_cpus))];
  return cpus === 'all' ? 'all CPUs' : cpus === 'workload' ? `workload CPU${wc.length === 1 ? '' : 's'} ${wc.join(',') || '(not known: all)'}` : `CPUs ${cpus}`;
};

interface ViewProps<T> {
  settled: Settled<T>[];
  columns: SchedColumn[];
  run: string | null;
  cpus: string;
}

/** One view of the cell, described once: its sections' test id, their caption (the runs, then `on`
 *  and the CPUs, then `what`) and each capture's table. P: what else the view's props carry. */
function sectionView<T extends SchedViewBase, P extends object = object>(d: {
  testId: string;
  on?: string;
  what: (a: T, p: P) => string;
  table: (a: T, c: SchedColumn, p: P) => ReactNode;
}) {
  return function SectionView(p: ViewProps<T> & P) {
    return (
      <PerCapture settled={p.settled} columns={p.columns} run={p.run} testId={d.testId} caption={(a) => ` · ${runsText(a)} · ${d.on ?? ''}${cpusText(p.cpus, a)} · ${d.what(a, p)}`}>
        {(a, c) => d.table(a, c, p)}
      </PerCapture>
    );
  };
}

// --- tasks -------------------------------------------------------------------------------------

export function TasksTable({ a }: { a: SchedTasks }) {
  const rows = useMemo(() => taskRows(a), [a]);
  const max = invVolMax(rows);
  return (
    <SchedTable
      rows={rows}
      empty="No task switched on these CPUs."
      testId="sched-tasks-table"
      head={
        <>
          {RUN_CPU_HEAD}
          {taskHead(a)}
          <th className="num" title="switches into the task">switched in</th>
          <th className="num" title="switched out while runnable (R/R+): preempted">involuntary</th>
          <th className="num" title="switched out blocked or exiting (S, D, I...)">voluntary</th>
          <th title="involuntary (dark) and voluntary (light) switches out, on one scale for the table">inv / vol</th>
          <th title="its state at each switch-out, as perf printed it">states</th>
          <th className="num">run time</th>
          <th className="num" title="run time / the trace's duration">of CPU</th>
          <th className="num">slices</th>
          <th className="num">mean slice</th>
        </>
      }
      row={(r) => (
        <tr key={r.key} className={r.task.workload ? 'row-workload' : undefined}>
          <RunCpuCells r={r} />
          <TaskCell t={r.task} />
          <N n={r.nums.switchedIn} />
          <N n={r.nums.involuntary} />
          <N n={r.nums.voluntary} />
          <InvVolCell r={r} max={max} />
          <td className="states mono small" title={r.statesTitle}>
            {r.states}
          </td>
          <N n={r.nums.runTime} />
          <N n={r.nums.share} className="muted" />
          <N n={r.nums.slices} className="muted" />
          <N n={r.nums.meanSlice} className="muted" />
        </tr>
      )}
    />
  );
}

export const TasksView = sectionView<SchedTasks>({ testId: 'sched-tasks', what: () => 'most switches first', table: (a) => <TasksTable a={a} /> });

// --- pairs -------------------------------------------------------------------------------------

export function PairsTable({ a }: { a: SchedPairs }) {
  const rows = useMemo(() => pairRows(a), [a]);
  const max = invVolMax(rows);
  return (
    <SchedTable
      rows={rows}
      empty="No switch on these CPUs."
      testId="sched-pairs-table"
      head={
        <>
          {RUN_CPU_HEAD}
          <th>prev → next</th>
          <th className="num">switches</th>
          <th className="num">per second</th>
          <th title="share of the CPU's switches in the run">of CPU's switches</th>
          <th className="num" title="prev was preempted (R/R+)">involuntary</th>
          <th className="num" title="prev blocked or exited">voluntary</th>
          <th title="involuntary (dark) and voluntary (light), on one scale for the table">inv / vol</th>
        </>
      }
      row={(r) => (
        <tr key={r.key} className={r.prev.workload || r.next.workload ? 'row-workload' : undefined}>
          <RunCpuCells r={r} />
          <td className="pair">
            <TaskName t={r.prev} /> <span className="arrow">→</span> <TaskName t={r.next} />
          </td>
          <N n={r.nums.switches} />
          <N n={r.nums.perS} />
          <ShareCell r={r} />
          <N n={r.nums.involuntary} />
          <N n={r.nums.voluntary} />
          <InvVolCell r={r} max={max} />
        </tr>
      )}
    />
  );
}

export const PairsView = sectionView<SchedPairs>({ testId: 'sched-pairs', what: () => 'most switches first', table: (a) => <PairsTable a={a} /> });

// --- ping-pong ---------------------------------------------------------------------------------

/** Opens a pair's off-CPU and wakeup stacks (the offcpu cell), for a capture that has them; else null. */
export type PairStacks = (capture: string) => ((run: string, a: SchedTask, b: SchedTask) => void) | null;

/** Ping-pong pairs, most round trips first: the top pair highlighted, the workload-kworker pair marked. */
export function PingPongTable({ a, windowUs, compact = false, testId = 'sched-pingpong-table', stacks }: { a: Pick<SchedPingPong, 'capture_id' | 'label' | 'runs' | 'rows'>; windowUs: number; compact?: boolean; testId?: string; stacks?: PairStacks }) {
  const rows = useMemo(() => pingPongRows(a, windowUs), [a, windowUs]);
  const open = stacks?.(a.capture_id) ?? null;
  return (
    <SchedTable
      rows={rows}
      fixed={compact ? topPairs(rows) : undefined}
      empty={<>No pair of tasks switched back and forth within {windowUs} µs on these CPUs.</>}
      testId={testId}
      className={`pingpong-table${compact ? ' compact' : ''}`}
      head={
        <>
          {compact && (
            <th className="num" title="rank by round trips in the run, a count: of two runs of different lengths, the one ranked first can have fewer per second">
              #
            </th>
          )}
          {RUN_CPU_HEAD}
          <th>pair</th>
          {!compact && (
            <th className="num" title={`Y → X → Y with X running at most ${windowUs} µs`}>
              round trips
            </th>
          )}
          <th className="num" title={`round trips per second (Y → X → Y with X running at most ${windowUs} µs)`}>
            {compact ? 'round trips/s' : 'per second'}
          </th>
          <th title="round trips / all of the CPU's switches: near 100 % when the CPU does nothing but this">of CPU's switches</th>
          {!compact && (
            <>
              <th className="num" title="round trips where a ran briefly between two runs of b">a in b</th>
              <th className="num" title="round trips where b ran briefly between two runs of a">b in a</th>
            </>
          )}
          <th className="num" title="round trips that began with the brief task preempting the other (R/R+)">preempting</th>
          {!compact && (
            <>
              <th className="num" title="how long the brief task ran per round trip, median">brief run p50</th>
              <th className="num">p90</th>
              <th className="num" title="first and last round trip, s since the run's first event">seen</th>
            </>
          )}
        </>
      }
      row={(r) => (
        <tr key={r.key} className={`${r.top ? 'row-top' : ''}${r.storm ? ' row-storm' : ''}`} data-top={r.top || undefined} data-storm={r.storm || undefined}>
          {compact && <td className="num muted rank">{r.rank}</td>}
          <RunCpuCells r={r} />
          <td className="pair">
            <TaskName t={r.a} /> <span className="arrow">⇄</span> <TaskName t={r.b} />
            {r.top && (
              <span className="pp-badge pp-top" title="the pair with the most round trips in this capture's answer">
                top
              </span>
            )}
            {r.storm && (
              <span className="pp-badge pp-storm" title="the workload and a kworker preempting each other: issue 4's storm (the kworker completes the direct I/O)">
                workload ⇄ kworker
              </span>
            )}
            {open && (
              <button type="button" className="pp-stacks" data-testid="pp-stacks" title="both sides' off-CPU stacks (where each blocked, by time) and the stacks that woke each (--offcpu)" onClick={() => open(r.runId, r.a, r.b)}>
                stacks
              </button>
            )}
          </td>
          {!compact && <N n={r.nums.roundTrips} />}
          <N n={r.nums.perS} className="strong-num" />
          <ShareCell r={r} strong={r.top || r.storm} />
          {!compact && (
            <>
              <N n={r.nums.aInB} className="muted" />
              <N n={r.nums.bInA} className="muted" />
            </>
          )}
          <N n={r.nums.preempting} />
          {!compact && (
            <>
              <N n={r.nums.median} />
              <N n={r.nums.p90} className="muted" />
              <N n={r.nums.span} className="muted" />
            </>
          )}
        </tr>
      )}
    />
  );
}

export const PingPongView = sectionView<SchedPingPong, { windowUs: number; stacks?: PairStacks }>({
  testId: 'sched-pingpong',
  what: (_a, p) => `round trip: Y → X → Y with X running ≤ ${p.windowUs} µs · most round trips first`,
  table: (a, _c, p) => <PingPongTable a={a} windowUs={p.windowUs} stacks={p.stacks} />,
});

// --- delays ------------------------------------------------------------------------------------

const MARK_WORDS = { p50: 'median (p50)', p90: 'p90', p99: 'p99' } as const;

export function DelaysTable({ a, color, nBins }: { a: SchedDelays; color: string; nBins: number }) {
  const rows = useMemo(() => delayRows(a, nBins), [a, nBins]);
  const labels = delayAxisLabels(nBins, STRIP_W);
  return (
    <SchedTable
      rows={rows}
      empty="No task was switched in after waiting on these CPUs."
      testId="sched-delays-table"
      className="delay-table"
      head={
        <>
          <th>run</th>
          {taskHead(a)}
          <th className="num" title="switch-ins with a known delay">delays</th>
          <th className="num" title="switch-ins after a sleep whose wakeup was not recorded: no delay (lost events)">unknown</th>
          <th className="num">p50</th>
          <th className="num">p90</th>
          <th className="num">p99</th>
          <th className="num">max</th>
          <th className="strip-head" title="log2 bins of the delay, from 1 µs; bars scaled to each row's largest bin; lines: p50, p90 (dashed), p99 (dotted)">
            <svg width={STRIP_W} height={14} aria-hidden="true">
              {labels.map((l) => (
                <text key={l.pos} x={stripX(l.pos, nBins, STRIP_W)} y={11} textAnchor={l.pos === 1 ? 'start' : 'middle'} className="chart-tick">
                  {l.label}
                </text>
              ))}
            </svg>
          </th>
          <th title="what the task was ready since: woken (waking, wakeup, wakeup_new) or preempted">since</th>
        </>
      }
      row={(r) => (
        <tr key={r.key} className={r.task.workload ? 'row-workload' : r.task.group === 'kworker/*' ? 'row-kworker' : undefined}>
          <RunCell run={r.runId} lost={r.lost} />
          <TaskCell t={r.task} />
          <N n={r.nums.count} />
          <N n={r.nums.unknown} className="muted" />
          <N n={r.nums.p50} />
          <N n={r.nums.p90} />
          <N n={r.nums.p99} className="strong-num" />
          <N n={r.nums.max} className="muted" />
          <td className="strip">
            <HistStrip bins={r.bins} titles={r.binTitles} marks={r.marks.map((m) => ({ key: m.p, pos: m.pos, title: `${MARK_WORDS[m.p]}: ${r.nums[m.p].text}` }))} color={color} width={STRIP_W} />
          </td>
          <td className="muted small reasons">{r.reasons}</td>
        </tr>
      )}
    />
  );
}

function DelayLegend() {
  return (
    <p className="legend muted delay-legend">
      <span>
        Histogram: delays in log2 bins ((1, 2] µs, (2, 4] µs…), bars scaled to each row's largest bin; marks{' '}
        <svg width="34" height="10" aria-hidden="true">
          <line x1="3" x2="3" y1="0" y2="10" className="hist-mark hist-mark-p50" />
          <line x1="16" x2="16" y1="0" y2="10" className="hist-mark hist-mark-p90" />
          <line x1="29" x2="29" y1="0" y2="10" className="hist-mark hist-mark-p99" />
        </svg>{' '}
        p50, p90, p99. Delay: from ready (woken, or preempted while runnable) to running, as <code>perf sched timehist</code>'s “sch delay”.
      </span>
    </p>
  );
}

const DelaysSections = sectionView<SchedDelays, { nBins: number }>({
  testId: 'sched-delays',
  on: 'switched in on ',
  what: (a) => `wakeup (or preemption) to running${a.reason !== 'all' ? `, ready since ${a.reason}` : ''}`,
  table: (a, c, p) => <DelaysTable a={a} color={c.color} nBins={p.nBins} />,
});

export function DelaysView(p: ViewProps<SchedDelays>) {
  // one histogram scale for every capture's table
  const nBins = useMemo(() => delayBinCount(p.settled.flatMap((s) => (s.data ? [s.data] : []))), [p.settled]);
  return <DelaysSections {...p} nBins={nBins} />;
}

export function DelaysViewWithLegend(p: Parameters<typeof DelaysView>[0]) {
  return (
    <>
      <DelaysView {...p} />
      <DelayLegend />
    </>
  );
}

// --- run time ----------------------------------------------------------------------------------

export function RuntimeTable({ a }: { a: SchedRuntime }) {
  const rows = useMemo(() => runtimeRows(a), [a]);
  return (
    <SchedTable
      rows={rows}
      empty="Nothing ran on these CPUs."
      testId="sched-runtime-table"
      head={
        <>
          <th>run</th>
          {taskHead(a)}
          <th className="num">run time</th>
          <th className="num" title="run time / the trace's duration, like task-clock's CPUs utilized">CPUs used</th>
          <th title="share of the selected CPUs' time">of these CPUs</th>
          <th className="num">slices</th>
          <th className="num">mean slice</th>
          <th className="num" title="slices that ended with the task preempted">preempted</th>
          <th className="num">on CPUs</th>
        </>
      }
      row={(r) => (
        <tr key={r.key} className={r.task.workload ? 'row-workload' : undefined}>
          <RunCell run={r.runId} lost={r.lost} />
          <TaskCell t={r.task} />
          <N n={r.nums.runTime} />
          <N n={r.nums.cpusUsed} className="strong-num" />
          <ShareCell r={r} strong={r.task.workload} />
          <N n={r.nums.slices} className="muted" />
          <N n={r.nums.meanSlice} />
          <N n={r.nums.preempted} />
          <td className="num muted">{r.cpus}</td>
        </tr>
      )}
    />
  );
}

export const RuntimeView = sectionView<SchedRuntime>({ testId: 'sched-runtime', on: 'run time on ', what: () => 'most first', table: (a) => <RuntimeTable a={a} /> });
