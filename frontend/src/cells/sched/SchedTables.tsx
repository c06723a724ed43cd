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

const runsText = (a: SchedViewBase) => (a.runs.length === 1 ? `run ${a.runs[0]!.id}` : `${a.runs.length} runs`);
const cpusText = (cpus: string, a: SchedViewBase) => {
  const wc = [...new Set(a.runs.flatMap((r) => r.workload_cpus))];
  return cpus === 'all' ? 'all CPUs' : cpus === 'workload' ? `workload CPU${wc.length === 1 ? '' : 's'} ${wc.join(',') || '(not known: all)'}` : `CPUs ${cpus}`;
};

// --- tasks -------------------------------------------------------------------------------------

export function TasksTable({ a }: { a: SchedTasks }) {
  const rows = useMemo(() => taskRows(a), [a]);
  const { limit, more } = useLimit();
  const max = Math.max(1, ...rows.map((r) => r.involuntary + r.voluntary));
  if (!rows.length) return <p className="muted">No task switched on these CPUs.</p>;
  return (
    <>
      <div className="table-scroll">
        <table className="data-table sched-table" data-testid="sched-tasks-table">
          <thead>
            <tr>
              <th>run</th>
              <th className="num">CPU</th>
              <th>{a.group_by === 'group' ? 'task group' : 'task'}</th>
              <th className="num" title="switches into the task">switched in</th>
              <th className="num" title="switched out while runnable (R/R+): preempted">involuntary</th>
              <th className="num" title="switched out blocked or exiting (S, D, I...)">voluntary</th>
              <th title="involuntary (dark) and voluntary (light) switches out, on one scale for the table">inv / vol</th>
              <th title="its state at each switch-out, as perf printed it">states</th>
              <th className="num">run time</th>
              <th className="num" title="run time / the trace's duration">of CPU</th>
              <th className="num">slices</th>
              <th className="num">mean slice</th>
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, limit).map((r) => (
              <tr key={r.key} className={r.task.workload ? 'row-workload' : undefined}>
                <RunCell run={r.runId} lost={r.lost} />
                <CpuCell cpu={r.cpu} workload={r.workloadCpu} />
                <td>
                  <TaskName t={r.task} />
                </td>
                <N n={r.nums.switchedIn} />
                <N n={r.nums.involuntary} />
                <N n={r.nums.voluntary} />
                <td>
                  <InvVolBar inv={r.involuntary} vol={r.voluntary} max={max} title={`${r.nums.involuntary.title}\n${r.nums.voluntary.text} voluntary`} />
                </td>
                <td className="states mono small" title={r.statesTitle}>
                  {r.states}
                </td>
                <N n={r.nums.runTime} />
                <N n={r.nums.share} className="muted" />
                <N n={r.nums.slices} className="muted" />
                <N n={r.nums.meanSlice} className="muted" />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ShowMore shown={Math.min(limit, rows.length)} total={rows.length} onMore={more} />
    </>
  );
}

export function TasksView({ settled, columns, run, cpus }: { settled: Settled<SchedTasks>[]; columns: SchedColumn[]; run: string | null; cpus: string }) {
  return (
    <PerCapture settled={settled} columns={columns} run={run} testId="sched-tasks" caption={(a) => ` · ${runsText(a)} · ${cpusText(cpus, a)} · most switches first`}>
      {(a) => <TasksTable a={a} />}
    </PerCapture>
  );
}

// --- pairs -------------------------------------------------------------------------------------

export function PairsTable({ a }: { a: SchedPairs }) {
  const rows = useMemo(() => pairRows(a), [a]);
  const { limit, more } = useLimit();
  const max = Math.max(1, ...rows.map((r) => r.involuntary + r.voluntary));
  if (!rows.length) return <p className="muted">No switch on these CPUs.</p>;
  return (
    <>
      <div className="table-scroll">
        <table className="data-table sched-table" data-testid="sched-pairs-table">
          <thead>
            <tr>
              <th>run</th>
              <th className="num">CPU</th>
              <th>prev → next</th>
              <th className="num">switches</th>
              <th className="num">per second</th>
              <th title="share of the CPU's switches in the run">of CPU's switches</th>
              <th className="num" title="prev was preempted (R/R+)">involuntary</th>
              <th className="num" title="prev blocked or exited">voluntary</th>
              <th title="involuntary (dark) and voluntary (light), on one scale for the table">inv / vol</th>
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, limit).map((r) => (
              <tr key={r.key} className={r.prev.workload || r.next.workload ? 'row-workload' : undefined}>
                <RunCell run={r.runId} lost={r.lost} />
                <CpuCell cpu={r.cpu} workload={r.workloadCpu} />
                <td className="pair">
                  <TaskName t={r.prev} /> <span className="arrow">→</span> <TaskName t={r.next} />
                </td>
                <N n={r.nums.switches} />
                <N n={r.nums.perS} />
                <td>
                  <ShareBar share={r.share} title={r.nums.share.title}>
                    {r.nums.share.text}
                  </ShareBar>
                </td>
                <N n={r.nums.involuntary} />
                <N n={r.nums.voluntary} />
                <td>
                  <InvVolBar inv={r.involuntary} vol={r.voluntary} max={max} title={`${r.nums.involuntary.title}\n${r.nums.voluntary.text} voluntary`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ShowMore shown={Math.min(limit, rows.length)} total={rows.length} onMore={more} />
    </>
  );
}

export function PairsView({ settled, columns, run, cpus }: { settled: Settled<SchedPairs>[]; columns: SchedColumn[]; run: string | null; cpus: string }) {
  return (
    <PerCapture settled={settled} columns={columns} run={run} testId="sched-pairs" caption={(a) => ` · ${runsText(a)} · ${cpusText(cpus, a)} · most switches first`}>
      {(a) => <PairsTable a={a} />}
    </PerCapture>
  );
}

// --- ping-pong ---------------------------------------------------------------------------------

/** Ping-pong pairs, most round trips first: the top pair highlighted, the workload-kworker pair marked. */
export function PingPongTable({ a, windowUs, compact = false, testId = 'sched-pingpong-table' }: { a: Pick<SchedPingPong, 'capture_id' | 'label' | 'runs' | 'rows'>; windowUs: number; compact?: boolean; testId?: string }) {
  const rows = useMemo(() => pingPongRows(a, windowUs), [a, windowUs]);
  const { limit, more } = useLimit();
  if (!rows.length) return <p className="muted">No pair of tasks switched back and forth within {windowUs} µs on these CPUs.</p>;
  return (
    <>
      <div className="table-scroll">
        <table className={`data-table sched-table pingpong-table${compact ? ' compact' : ''}`} data-testid={testId}>
          <thead>
            <tr>
              {compact && <th className="num" title="rank by round trips">#</th>}
              <th>run</th>
              <th className="num">CPU</th>
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
            </tr>
          </thead>
          <tbody>
            {(compact ? topPairs(rows) : rows.slice(0, limit)).map((r) => (
              <tr key={r.key} className={`${r.top ? 'row-top' : ''}${r.storm ? ' row-storm' : ''}`} data-top={r.top || undefined} data-storm={r.storm || undefined}>
                {compact && <td className="num muted rank">{r.rank}</td>}
                <RunCell run={r.runId} lost={r.lost} />
                <CpuCell cpu={r.cpu} workload={r.workloadCpu} />
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
                </td>
                {!compact && <N n={r.nums.roundTrips} />}
                <N n={r.nums.perS} className="strong-num" />
                <td>
                  <ShareBar share={r.share} title={r.nums.share.title} strong={r.top || r.storm}>
                    {r.nums.share.text}
                  </ShareBar>
                </td>
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
            ))}
          </tbody>
        </table>
      </div>
      {!compact && <ShowMore shown={Math.min(limit, rows.length)} total={rows.length} onMore={more} />}
    </>
  );
}

export function PingPongView({ settled, columns, run, cpus, windowUs }: { settled: Settled<SchedPingPong>[]; columns: SchedColumn[]; run: string | null; cpus: string; windowUs: number }) {
  return (
    <PerCapture
      settled={settled}
      columns={columns}
      run={run}
      testId="sched-pingpong"
      caption={(a) => ` · ${runsText(a)} · ${cpusText(cpus, a)} · round trip: Y → X → Y with X running ≤ ${windowUs} µs · most round trips first`}
    >
      {(a) => <PingPongTable a={a} windowUs={windowUs} />}
    </PerCapture>
  );
}

// --- delays ------------------------------------------------------------------------------------

const MARK_WORDS = { p50: 'median (p50)', p90: 'p90', p99: 'p99' } as const;

export function DelaysTable({ a, color, nBins }: { a: SchedDelays; color: string; nBins: number }) {
  const rows = useMemo(() => delayRows(a, nBins), [a, nBins]);
  const { limit, more } = useLimit();
  if (!rows.length) return <p className="muted">No task was switched in after waiting on these CPUs.</p>;
  const labels = delayAxisLabels(nBins, STRIP_W);
  return (
    <>
      <div className="table-scroll">
        <table className="data-table sched-table delay-table" data-testid="sched-delays-table">
          <thead>
            <tr>
              <th>run</th>
              <th>{a.group_by === 'group' ? 'task group' : 'task'}</th>
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
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, limit).map((r) => (
              <tr key={r.key} className={r.task.workload ? 'row-workload' : r.task.group === 'kworker/*' ? 'row-kworker' : undefined}>
                <RunCell run={r.runId} lost={r.lost} />
                <td>
                  <TaskName t={r.task} />
                </td>
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
            ))}
          </tbody>
        </table>
      </div>
      <ShowMore shown={Math.min(limit, rows.length)} total={rows.length} onMore={more} />
    </>
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

export function DelaysView({ settled, columns, run, cpus }: { settled: Settled<SchedDelays>[]; columns: SchedColumn[]; run: string | null; cpus: string }) {
  const nBins = useMemo(() => delayBinCount(settled.flatMap((s) => (s.data ? [s.data] : []))), [settled]);
  return (
    <PerCapture
      settled={settled}
      columns={columns}
      run={run}
      testId="sched-delays"
      caption={(a) => ` · ${runsText(a)} · switched in on ${cpusText(cpus, a)} · wakeup (or preemption) to running${a.reason !== 'all' ? `, ready since ${a.reason}` : ''}`}
    >
      {(a, c) => <DelaysTable a={a} color={c.color} nBins={nBins} />}
    </PerCapture>
  );
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
  const { limit, more } = useLimit();
  if (!rows.length) return <p className="muted">Nothing ran on these CPUs.</p>;
  return (
    <>
      <div className="table-scroll">
        <table className="data-table sched-table" data-testid="sched-runtime-table">
          <thead>
            <tr>
              <th>run</th>
              <th>{a.group_by === 'group' ? 'task group' : 'task'}</th>
              <th className="num">run time</th>
              <th className="num" title="run time / the trace's duration, like task-clock's CPUs utilized">CPUs used</th>
              <th title="share of the selected CPUs' time">of these CPUs</th>
              <th className="num">slices</th>
              <th className="num">mean slice</th>
              <th className="num" title="slices that ended with the task preempted">preempted</th>
              <th className="num">on CPUs</th>
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, limit).map((r) => (
              <tr key={r.key} className={r.task.workload ? 'row-workload' : undefined}>
                <RunCell run={r.runId} lost={r.lost} />
                <td>
                  <TaskName t={r.task} />
                </td>
                <N n={r.nums.runTime} />
                <N n={r.nums.cpusUsed} className="strong-num" />
                <td>
                  <ShareBar share={r.share} title={r.nums.share.title} strong={r.task.workload}>
                    {r.nums.share.text}
                  </ShareBar>
                </td>
                <N n={r.nums.slices} className="muted" />
                <N n={r.nums.meanSlice} />
                <N n={r.nums.preempted} />
                <td className="num muted">{r.cpus}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ShowMore shown={Math.min(limit, rows.length)} total={rows.length} onMore={more} />
    </>
  );
}

export function RuntimeView({ settled, columns, run, cpus }: { settled: Settled<SchedRuntime>[]; columns: SchedColumn[]; run: string | null; cpus: string }) {
  return (
    <PerCapture settled={settled} columns={columns} run={run} testId="sched-runtime" caption={(a) => ` · ${runsText(a)} · run time on ${cpusText(cpus, a)} · most first`}>
      {(a) => <RuntimeTable a={a} />}
    </PerCapture>
  );
}
