// Shapes the scheduler answers (backend/iolens/views/sched.py, docs/sched.md) into what the sched
// cell draws: the comparison table (the fio table's rows), loss notes, the switch-rate charts'
// lines, and the rows of the task, pair, ping-pong, delay and run-time tables with a hover text
// for every number (capture, run, CPU, unit). Pure; tests in sched.test.ts.
import { format as d3format } from 'd3-format';
import type { Schemas } from '../api/client';
import { buildMetricRows, orderColumns, type Column, type TableRow } from './compareTable';
import { formatValue } from './format';
import { runSpan } from './timeline';

export type SchedComparison = Schemas['SchedComparison'];
export type SchedCaptureStatus = Schemas['SchedCaptureStatus'];
export type SchedOverview = Schemas['SchedOverview'];
export type SchedSwitchRate = Schemas['SchedSwitchRate'];
export type SchedTasks = Schemas['SchedTasks'];
export type SchedPairs = Schemas['SchedPairs'];
export type SchedPingPong = Schemas['SchedPingPong'];
export type SchedPingPongRow = Schemas['SchedPingPongRow'];
export type SchedDelays = Schemas['SchedDelays'];
export type SchedDelayRow = Schemas['SchedDelayRow'];
export type SchedRuntime = Schemas['SchedRuntime'];
export type SchedTask = Schemas['SchedTask'];
export type SchedRun = Schemas['SchedRun'];
export type SchedViewBase = Pick<SchedOverview, 'capture_id' | 'label' | 'runs' | 'events_lost' | 'warnings'>;
export type RateMeasure = 'switches' | 'involuntary' | 'voluntary' | 'from_idle' | 'wakeups' | 'migrations';

// --- numbers -------------------------------------------------------------------------------------

const minus = (s: string) => s.replace(/−/g, '-');
/** A count with thousands separators: '53,387'. */
export const fmtCount = (n: number | null | undefined): string => (n === null || n === undefined || !Number.isFinite(n) ? '–' : minus(d3format(',')(Math.round(n))));
/** Events per second: '34.75k/s'. */
export const fmtRate = (v: number | null | undefined): string => formatValue(v, '/s');
/** A duration in ns: '8 µs', '1.23 ms'. */
export const fmtNs = (v: number | null | undefined): string => formatValue(v, 'ns');
/** A fraction as a percentage: 0.9395 -> '94.0 %'. */
export const fmtShare = (v: number | null | undefined): string =>
  v === null || v === undefined || !Number.isFinite(v) ? '–' : v > 0 && v < 0.0005 ? '<0.1 %' : `${(v * 100).toFixed(1)} %`;
/** Seconds since the run's first event: '0.474 s'. */
export const fmtSec = (v: number): string => `${v.toFixed(v >= 100 ? 1 : 3)} s`;

/** A CPU list as taskset writes it: [0, 1, 2, 5] -> '0-2,5'. */
export function cpuListText(cpus: readonly number[]): string {
  const s = [...new Set(cpus)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++;
    parts.push(j > i ? `${s[i]}-${s[j]}` : String(s[i]));
    i = j + 1;
  }
  return parts.join(',');
}

/** 'fio on CPU 1', 'fio on CPUs 0-3', 'workload CPUs unknown'. */
export function workloadText(comm: string | null | undefined, cpus: readonly number[]): string {
  const who = comm ?? 'the workload';
  if (!cpus.length) return `${who}, CPUs not pinned (or not known)`;
  return `${who} on CPU${cpus.length > 1 ? 's' : ''} ${cpuListText(cpus)}`;
}

/** A task as perf sched prints it: 'fio[30619]'; a group by its name: 'kworker/*'. */
export const taskText = (t: SchedTask): string => (t.pid === null ? t.comm : `${t.comm}[${t.pid}]`);

/** Whether a pair is the scenario's storm: the workload and a kworker switching to each other. */
export const isWorkloadKworker = (a: SchedTask, b: SchedTask): boolean =>
  (a.workload && b.group === 'kworker/*') || (b.workload && a.group === 'kworker/*');

// --- captures, status, loss --------------------------------------------------------------------

export interface SchedColumn extends Column {
  status: SchedCaptureStatus | null;
  hasTrace: boolean;
  /** 'fio on CPU 1' */
  workload: string;
}

/** Columns of the comparison (baseline first, colours by position as everywhere), with each capture's trace status. */
export function schedColumns(cmp: Pick<SchedComparison, 'captures' | 'baseline' | 'status'>): SchedColumn[] {
  return orderColumns(cmp).map((c) => {
    const st = cmp.status[c.id] ?? null;
    return { ...c, status: st, hasTrace: !!st && st.runs.length > 0, workload: st ? workloadText(st.workload_comm, st.workload_cpus) : '' };
  });
}

export interface SchedTable {
  columns: SchedColumn[];
  rows: TableRow[];
  /** Every metric of the answer: what a metric picker offers. */
  metrics: { metric: string; label: string }[];
}

/** The comparison table: the fio table's rows (mean over runs, spread, ratio, tone), each hover also naming the workload's CPUs. */
export function buildSchedTable(cmp: SchedComparison, metrics: readonly string[] | null = null): SchedTable {
  const columns = schedColumns(cmp);
  let rows = cmp.metrics;
  if (metrics) {
    const by = new Map(rows.map((m) => [m.metric, m]));
    rows = metrics.flatMap((k) => (by.has(k) ? [by.get(k)!] : []));
  }
  const built = buildMetricRows(columns, rows, {
    where: 'mean over the runs with a scheduler trace',
    missing: 'no value: this capture has no scheduler trace, or its runs lack what this figure needs',
  });
  for (const r of built) {
    for (const cell of r.cells) {
      const col = columns.find((c) => c.id === cell.column.id)!;
      if (col.hasTrace) cell.title += `\nworkload: ${col.workload}`;
      if (col.status?.events_lost) cell.title += '\n⚠ this capture lost scheduler events: figures from a lossy run undercount';
    }
  }
  return { columns, rows: built, metrics: cmp.metrics.map((m) => ({ metric: m.metric, label: m.label })) };
}

export interface LossNote {
  captureId: string;
  label: string;
  color: string;
  /** Runs that lost events. */
  runs: string[];
  warnings: string[];
}

/** What to show above a view built from these answers: each capture whose runs lost events, with its warnings. */
export function lossNotes(answers: readonly SchedViewBase[], colorOf: (id: string) => string): LossNote[] {
  return answers
    .filter((a) => a.events_lost)
    .map((a) => ({
      captureId: a.capture_id,
      label: a.label,
      color: colorOf(a.capture_id),
      runs: a.runs.filter((r) => r.events_lost).map((r) => r.id),
      warnings: a.warnings.length ? a.warnings : a.runs.flatMap((r) => r.warnings),
    }));
}

/** Loss notes of the comparison's statuses (no runs[] there: the warnings name them). */
export function statusLossNotes(columns: readonly SchedColumn[]): LossNote[] {
  return columns
    .filter((c) => c.status?.events_lost)
    .map((c) => ({
      captureId: c.id,
      label: c.label,
      color: c.color,
      runs: [...new Set((c.status?.warnings ?? []).map((w) => /^run (\S+):/.exec(w)?.[1]).filter((x): x is string => !!x))],
      warnings: c.status?.warnings ?? [],
    }));
}

/** One line per check of a run, for the "trace checks" table: what was recorded against what was expected. */
export function checkRows(run: SchedRun): { name: string; event: string; recorded: string; expected: string; ratio: string; ok: boolean | null; detail: string }[] {
  return run.checks.map((c) => ({
    name: c.name,
    event: c.event,
    recorded: fmtCount(c.recorded),
    expected: fmtCount(c.expected),
    ratio: c.ratio === null ? '–' : `${(c.ratio * 100).toFixed(1)} %`,
    ok: c.ok,
    detail: c.detail,
  }));
}

// --- switch rate over time ---------------------------------------------------------------------

export const MEASURE_INFO: Record<RateMeasure, { label: string; description: string; counted: string | null }> = {
  switches: { label: 'Context switches', description: 'sched_switch events on the CPU', counted: 'context-switches' },
  involuntary: { label: 'Involuntary switches', description: 'switches where the task leaving was preempted (R/R+)', counted: null },
  voluntary: { label: 'Voluntary switches', description: 'switches where the task leaving blocked or exited', counted: null },
  from_idle: { label: 'Switches from idle', description: 'switches out of the idle task', counted: null },
  wakeups: { label: 'Wakeups', description: 'wakeups aimed at the CPU', counted: null },
  migrations: { label: 'Migrations', description: 'tasks migrated to the CPU', counted: null },
};

const STEPS_MS = [100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000];

/** The interval (ms, as the server takes it) that gives at most `maxPoints` per run of the longest run. */
export function autoStepMs(durationsS: readonly number[], maxPoints = 150): number {
  const d = Math.max(0, ...durationsS.filter(Number.isFinite));
  return STEPS_MS.find((s) => (d * 1000) / s <= maxPoints) ?? 600_000;
}

/** perf stat's interval in the collector's recordings (`perf stat -I 1000`), ms. */
export const COUNTED_STEP_MS = 1000;

/**
 * The switch-rate chart's interval when none is chosen: `autoStepMs`, but never shorter than perf
 * stat's own interval while its counted lines are drawn. A 200 ms bucket's rate peaks several times
 * higher than the same switches averaged over perf stat's 1 s: on one y axis the counted lines lay
 * flat near 0 under the trace's peaks (seen on the lockstat-6.12 lab pair: trace peaks of 3k/s at
 * 200 ms, perf stat's 100-500/s). Same unit and resolution, the two can be compared.
 */
export function rateStepMs(durationsS: readonly number[], countedShown: boolean): number {
  const auto = autoStepMs(durationsS);
  return countedShown ? Math.max(auto, COUNTED_STEP_MS) : auto;
}

/** A line of a time-series chart (charts/TimeSeriesChart.tsx NamedLine): a value per bucket of the grid. */
export interface RateLine {
  key: string;
  color: string;
  dash: string;
  values: (number | null)[];
  name: string;
  detail?: string;
}

export interface RatePanel {
  key: string;
  captureId: string;
  label: string;
  color: string;
  runId: string;
  /** Bucket starts, ns since the run's first event, and their width. */
  grid: { t: number[]; interval: number };
  lines: RateLine[];
  lost: boolean;
  durationS: number;
  workloadCpus: number[];
  /** Under the notebook's time selection: this run's part of it, ns since the run's first event (runSpan
   *  by the run's own offset), the panel's window; null: no selection. */
  window: [number, number] | null;
  /** How perf stat's dotted lines were placed on the trace's axis (null: none drawn): 'clock' by its start recorded
   *  on the trace's clock, 'wall' by wall-clock start times (to a second), 'unknown' as if it started with the trace. */
  counted: { alignment: 'clock' | 'wall' | 'unknown'; note: string; startS: number; zone?: 'host' | 'utc' | null } | null;
}

/** The selection (ns since each run's start) as a run's window on its trace (ns since its first event):
 *  moved by that run's own offset (offset_ns; 0 when not known), never by another run's. */
export function runWindow(sel: readonly [number, number] | null, run: { offset_ns?: number | null }): [number, number] | null {
  return sel ? runSpan(sel[0], sel[1], run.offset_ns ?? 0) : null;
}

/** Grey of the CPUs the workload was not pinned to: calm, under the highlighted ones. */
export const OTHER_CPU = '#a9b1ba';
/** More CPUs than this outside the workload's are drawn as their mean and max, not one line each. */
export const MAX_OTHER_LINES = 6;
/** Dashes that tell runs apart when captures are overlaid (run index modulo). */
export const RUN_DASHES = ['', '6 3', '2 2', '8 3 2 3'];
const COUNTED_DASH = '1 3';

/** perf stat's counted intervals of one CPU, resampled to the trace's buckets (each bucket gets the interval holding its middle).
 *  Both on the trace's axis: the first interval starts at start_s (perf stat's own time 0 there, often before the
 *  trace's first event; 0 when unknown). */
export function countedOnGrid(counted: { start_s?: number; t_s: readonly number[]; values: readonly (number | null)[] }, grid: { t: readonly number[]; interval: number }): (number | null)[] {
  return grid.t.map((t) => {
    const mid = (t + grid.interval / 2) / 1e9;
    for (let k = 0; k < counted.t_s.length; k++) {
      const lo = k === 0 ? (counted.start_s ?? 0) : counted.t_s[k - 1]!;
      if (mid >= lo && mid < counted.t_s[k]!) return counted.values[k] ?? null;
    }
    return null;
  });
}

/**
 * Small multiples: one panel per capture and run, a line per CPU; the workload's CPUs in the
 * capture's colour, the others grey (their mean and max beyond MAX_OTHER_LINES); perf stat's
 * counted context switches of the same CPUs dotted.
 */
/** The line under a run's chart when perf stat's dotted lines are not placed by a clock reading (null: they are, or none). */
export function countedPlacement(c: RatePanel['counted']): string | null {
  if (!c || c.alignment === 'clock') return null;
  // perf's '# started on' is the host's local time: read as UTC when the bundle has no UTC offset
  const utc = "perf's '# started on' read as UTC, the bundle not recording the host's UTC offset";
  if (c.alignment === 'wall')
    return `perf stat placed by wall-clock start times, to a second at best (its start ${c.startS.toFixed(1)} s from the trace's first event): its start on the trace's clock was not recorded${c.zone === 'utc' ? `; ${utc}` : c.zone === 'host' ? "; perf's '# started on' put on UTC by the host's recorded offset" : ''}`;
  return `perf stat's start on the trace's clock is unknown: its dotted lines are drawn as if it started with the trace's first event, and may be shifted by seconds${c.zone === 'utc' ? ` (${utc}, did not fit the run's start)` : ''}`;
}

export function ratePanels(
  answers: readonly SchedSwitchRate[],
  colorOf: (id: string) => string,
  measure: RateMeasure,
  withCounted: boolean,
  sel: readonly [number, number] | null = null,
): RatePanel[] {
  const info = MEASURE_INFO[measure];
  const out: RatePanel[] = [];
  for (const a of answers) {
    const color = colorOf(a.capture_id);
    for (const run of a.runs) {
      const series = a.series.filter((s) => s.run_id === run.id);
      if (!series.length) continue;
      const t = series[0]!.t_s.map((v) => Math.round(v * 1e9));
      const grid = { t, interval: a.step_ms * 1e6 };
      const work = series.filter((s) => s.workload);
      const other = series.filter((s) => !s.workload);
      const lines: RateLine[] = [];
      const detail = `${info.label.toLowerCase()}/s, ${a.step_ms} ms intervals`;
      if (other.length > MAX_OTHER_LINES) {
        const mean = t.map((_, i) => other.reduce((acc, s) => acc + (s[measure][i] ?? 0), 0) / other.length);
        const max = t.map((_, i) => Math.max(...other.map((s) => s[measure][i] ?? 0)));
        const cpus = cpuListText(other.map((s) => s.cpu));
        lines.push({ key: 'other-max', color: OTHER_CPU, dash: '3 2', values: max, name: `CPUs ${cpus}, max`, detail: `the busiest of ${other.length} CPUs in each interval` });
        lines.push({ key: 'other-mean', color: OTHER_CPU, dash: '', values: mean, name: `CPUs ${cpus}, mean`, detail: `mean of ${other.length} CPUs` });
      } else {
        for (const s of other) lines.push({ key: `cpu${s.cpu}`, color: OTHER_CPU, dash: '', values: [...s[measure]], name: `CPU ${s.cpu}`, detail });
      }
      for (const s of work) lines.push({ key: `cpu${s.cpu}`, color, dash: '', values: [...s[measure]], name: `CPU ${s.cpu} (workload)`, detail });
      let placed: RatePanel['counted'] = null;
      if (withCounted && info.counted) {
        const shown = other.length > MAX_OTHER_LINES ? work : [...other, ...work];
        for (const s of shown) {
          const c = a.counted.find((x) => x.run_id === run.id && x.scope === 'system' && x.cpu === s.cpu && x.event === info.counted);
          if (!c) continue;
          placed ??= { alignment: c.alignment, note: c.alignment_note, startS: c.start_s, zone: c.wall_zone ?? null };
          const step = c.t_s.length > 1 ? c.t_s[1]! - c.t_s[0]! : c.t_s.length ? c.t_s[0]! - c.start_s : 1;
          lines.push({
            key: `stat${s.cpu}`,
            color: s.workload ? color : OTHER_CPU,
            dash: COUNTED_DASH,
            values: countedOnGrid(c, grid),
            name: `CPU ${s.cpu}${s.workload ? ' (workload)' : ''}, perf stat`,
            detail: `${c.event} counted by perf stat (${step.toFixed(1)} s intervals, never lost)${c.alignment === 'clock' ? '' : c.alignment === 'wall' ? '; placed by wall-clock times, to a second' : '; its start unknown, drawn from the trace’s'}`,
          });
        }
      }
      out.push({
        key: `${a.capture_id}:${run.id}`,
        captureId: a.capture_id,
        label: a.label,
        color,
        runId: run.id,
        grid,
        lines,
        lost: run.events_lost,
        durationS: run.duration_s,
        workloadCpus: run.workload_cpus,
        window: runWindow(sel, run),
        counted: placed,
      });
    }
  }
  return out;
}

export interface RateOverlay {
  grid: { t: number[]; interval: number };
  lines: RateLine[];
  /** Run ids in the order of RUN_DASHES. */
  runs: string[];
  lost: { key: string; label: string; color: string }[];
  /** Under the notebook's time selection: from the earliest to the latest of the runs' windows (each
   *  line is cut at its own run's window, its other intervals blank); null: no selection. */
  window: [number, number] | null;
}

/**
 * Every capture in one chart: the workload CPUs of each run (all CPUs summed when not pinned),
 * colour by capture, dash by run. The grid is the longest run's; shorter runs end early.
 */
export function rateOverlay(answers: readonly SchedSwitchRate[], colorOf: (id: string) => string, measure: RateMeasure, sel: readonly [number, number] | null = null): RateOverlay {
  const info = MEASURE_INFO[measure];
  const runs = [...new Set(answers.flatMap((a) => a.runs.map((r) => r.id)))].sort();
  let longest: number[] = [];
  let interval = (answers[0]?.step_ms ?? 1000) * 1e6;
  for (const a of answers)
    for (const s of a.series)
      if (s.t_s.length > longest.length) {
        longest = s.t_s.map((v) => Math.round(v * 1e9));
        interval = a.step_ms * 1e6;
      }
  const lines: RateLine[] = [];
  const windows: [number, number][] = [];
  for (const a of answers) {
    const color = colorOf(a.capture_id);
    for (const run of a.runs) {
      const series = a.series.filter((s) => s.run_id === run.id);
      const work = series.filter((s) => s.workload);
      const pinned = work.length > 0;
      const use = pinned ? work : series;
      if (!use.length) continue;
      const w = runWindow(sel, run);
      const inWindow = (t: number) => !w || (t + interval > w[0] && t < w[1]);
      const values = longest.map((t, i) => (i < use[0]!.t_s.length && inWindow(t) ? use.reduce((acc, s) => acc + (s[measure][i] ?? 0), 0) : null));
      if (w) windows.push(w);
      const cpus = cpuListText(use.map((s) => s.cpu));
      lines.push({
        key: `${a.capture_id}:${run.id}`,
        color,
        dash: RUN_DASHES[Math.max(0, runs.indexOf(run.id)) % RUN_DASHES.length]!,
        values,
        name: `${a.label} · ${run.id}`,
        detail: `${pinned ? `workload CPU${use.length > 1 ? 's' : ''} ${cpus}` : `all CPUs (${cpus}): workload CPUs not known`} · ${info.label.toLowerCase()}/s${use.length > 1 ? ', summed' : ''}`,
      });
    }
  }
  const lost = answers.filter((a) => a.events_lost).map((a) => ({ key: a.capture_id, label: a.label, color: colorOf(a.capture_id) }));
  const window: [number, number] | null = windows.length ? [Math.min(...windows.map((w) => w[0])), Math.max(...windows.map((w) => w[1]))] : null;
  return { grid: { t: longest, interval }, lines, runs, lost, window };
}

/** Largest value drawn: the shared y scale of small multiples. */
export const maxValue = (lines: readonly { values: readonly (number | null)[] }[]): number =>
  lines.reduce((m, l) => l.values.reduce<number>((mm, v) => (v !== null && Number.isFinite(v) && v > mm ? v : mm), m), 0);

// --- tables ------------------------------------------------------------------------------------

export interface Num {
  text: string;
  title: string;
}

/** Where a number comes from: 'sched-pinned-w1000 (0511…) · run r000 · CPU 1 (workload)'. */
export function whereText(label: string, captureId: string, runId: string, cpu?: number | null, workloadCpus: readonly number[] = []): string {
  const cpuPart = cpu === undefined || cpu === null ? '' : ` · CPU ${cpu}${workloadCpus.includes(cpu) ? ' (workload)' : ''}`;
  return `${label} (${captureId}) · run ${runId}${cpuPart}`;
}

const num = (text: string, where: string, what: string): Num => ({ text, title: `${where}\n${what}` });

function runInfo(a: Pick<SchedViewBase, 'runs'>): Map<string, SchedRun> {
  return new Map(a.runs.map((r) => [r.id, r]));
}

export interface TaskRowView {
  key: string;
  runId: string;
  cpu: number;
  workloadCpu: boolean;
  task: SchedTask;
  lost: boolean;
  involuntary: number;
  voluntary: number;
  nums: Record<'switchedIn' | 'involuntary' | 'voluntary' | 'runTime' | 'share' | 'slices' | 'meanSlice', Num>;
  states: string;
  statesTitle: string;
}

/** Rows of the tasks table: switches in and out (involuntary = preempted), states at switch-out, run time per CPU. */
export function taskRows(a: SchedTasks): TaskRowView[] {
  const runs = runInfo(a);
  return a.rows.map((r, i) => {
    const run = runs.get(r.run_id);
    const wc = run?.workload_cpus ?? [];
    const where = `${whereText(a.label, a.capture_id, r.run_id, r.cpu, wc)} · ${taskText(r.task)}`;
    const out = r.switched_out;
    const states = Object.entries(r.states).sort((x, y) => y[1] - x[1]);
    return {
      key: `${r.run_id}:${r.cpu}:${r.task.pid ?? r.task.comm}:${i}`,
      runId: r.run_id,
      cpu: r.cpu,
      workloadCpu: wc.includes(r.cpu),
      task: r.task,
      lost: run?.events_lost ?? false,
      involuntary: r.involuntary,
      voluntary: r.voluntary,
      nums: {
        switchedIn: num(fmtCount(r.switched_in), where, `${fmtCount(r.switched_in)} switches into the task (${fmtRate(run ? r.switched_in / run.duration_s : null)} over the run's ${run ? fmtSec(run.duration_s) : '?'})`),
        involuntary: num(fmtCount(r.involuntary), where, `${fmtCount(r.involuntary)} switches out while runnable (preempted, R/R+): ${fmtShare(out ? r.involuntary / out : null)} of its ${fmtCount(out)} switches out`),
        voluntary: num(fmtCount(r.voluntary), where, `${fmtCount(r.voluntary)} switches out blocked or exiting (S, D, I...): ${fmtShare(out ? r.voluntary / out : null)} of its ${fmtCount(out)} switches out`),
        runTime: num(fmtNs(r.run_ns), where, `ran ${fmtNs(r.run_ns)} on this CPU (${fmtCount(r.run_ns)} ns)`),
        share: num(fmtShare(r.cpu_share), where, `${fmtShare(r.cpu_share)} of CPU ${r.cpu}'s time over the trace`),
        slices: num(fmtCount(r.slices), where, `${fmtCount(r.slices)} times on the CPU (slices)`),
        meanSlice: num(fmtNs(r.mean_slice_ns), where, `mean slice ${fmtNs(r.mean_slice_ns)}`),
      },
      states: states.map(([s, n]) => `${s} ${fmtCount(n)}`).join(' · '),
      statesTitle: `${where}\nstate at each switch-out, as perf printed it (R/R+ runnable: preempted; S sleeping, D uninterruptible, I idle kthread...):\n${states.map(([s, n]) => `${s}: ${fmtCount(n)}`).join('\n')}`,
    };
  });
}

export interface PairRowView {
  key: string;
  runId: string;
  cpu: number;
  workloadCpu: boolean;
  prev: SchedTask;
  next: SchedTask;
  lost: boolean;
  involuntary: number;
  voluntary: number;
  share: number;
  nums: Record<'switches' | 'perS' | 'share' | 'involuntary' | 'voluntary', Num>;
}

/** Rows of the pairs table: switches prev -> next per CPU. */
export function pairRows(a: SchedPairs): PairRowView[] {
  const runs = runInfo(a);
  return a.rows.map((r, i) => {
    const run = runs.get(r.run_id);
    const wc = run?.workload_cpus ?? [];
    const where = `${whereText(a.label, a.capture_id, r.run_id, r.cpu, wc)} · ${taskText(r.prev)} → ${taskText(r.next)}`;
    return {
      key: `${r.run_id}:${r.cpu}:${taskText(r.prev)}>${taskText(r.next)}:${i}`,
      runId: r.run_id,
      cpu: r.cpu,
      workloadCpu: wc.includes(r.cpu),
      prev: r.prev,
      next: r.next,
      lost: run?.events_lost ?? false,
      involuntary: r.involuntary,
      voluntary: r.voluntary,
      share: r.share ?? 0,
      nums: {
        switches: num(fmtCount(r.switches), where, `${fmtCount(r.switches)} switches from ${taskText(r.prev)} to ${taskText(r.next)}`),
        perS: num(fmtRate(r.per_s), where, `${fmtRate(r.per_s)}: switches per second of the run's trace`),
        share: num(fmtShare(r.share), where, `${fmtShare(r.share)} of CPU ${r.cpu}'s switches in the run`),
        involuntary: num(fmtCount(r.involuntary), where, `${fmtCount(r.involuntary)} with ${taskText(r.prev)} preempted (R/R+)`),
        voluntary: num(fmtCount(r.voluntary), where, `${fmtCount(r.voluntary)} with ${taskText(r.prev)} blocked or exiting`),
      },
    };
  });
}

export interface PingPongView {
  key: string;
  /** 1 = most round trips. */
  rank: number;
  runId: string;
  cpu: number;
  workloadCpu: boolean;
  a: SchedTask;
  b: SchedTask;
  lost: boolean;
  /** The first row: the pair with the most round trips. */
  top: boolean;
  /** The workload and a kworker: the storm of issue 4. */
  storm: boolean;
  share: number;
  nums: Record<'roundTrips' | 'perS' | 'share' | 'aInB' | 'bInA' | 'preempting' | 'median' | 'p90' | 'span', Num>;
}

/** Rows of the ping-pong table, most round trips first; the first flagged as the top pair. */
export function pingPongRows(a: Pick<SchedPingPong, 'capture_id' | 'label' | 'runs' | 'rows'> & { window_us?: number }, windowUs = a.window_us ?? 1000): PingPongView[] {
  const runs = runInfo(a);
  return a.rows.map((r, i) => {
    const run = runs.get(r.run_id);
    const wc = run?.workload_cpus ?? [];
    const pair = `${taskText(r.a)} ⇄ ${taskText(r.b)}`;
    const where = `${whereText(a.label, a.capture_id, r.run_id, r.cpu, wc)} · ${pair}`;
    const pct = (n: number) => fmtShare(r.round_trips ? n / r.round_trips : null);
    return {
      key: `${r.run_id}:${r.cpu}:${pair}:${i}`,
      rank: i + 1,
      runId: r.run_id,
      cpu: r.cpu,
      workloadCpu: wc.includes(r.cpu),
      a: r.a,
      b: r.b,
      lost: run?.events_lost ?? false,
      top: i === 0,
      storm: isWorkloadKworker(r.a, r.b),
      share: r.share ?? 0,
      nums: {
        roundTrips: num(fmtCount(r.round_trips), where, `${fmtCount(r.round_trips)} round trips (Y → X → Y with X running ≤ ${windowUs} µs)`),
        perS: num(fmtRate(r.per_s), where, `${fmtRate(r.per_s)}: round trips per second of the run's trace`),
        share: num(fmtShare(r.share), where, `round trips / all of CPU ${r.cpu}'s switches: ${fmtShare(r.share)} (near 100 %: the CPU does nothing but this ping-pong)`),
        aInB: num(fmtCount(r.a_inside_b), where, `${fmtCount(r.a_inside_b)} (${pct(r.a_inside_b)}): ${taskText(r.a)} ran briefly between two runs of ${taskText(r.b)}`),
        bInA: num(fmtCount(r.b_inside_a), where, `${fmtCount(r.b_inside_a)} (${pct(r.b_inside_a)}): ${taskText(r.b)} ran briefly between two runs of ${taskText(r.a)}`),
        preempting: num(pct(r.preempting), where, `${fmtCount(r.preempting)} of ${fmtCount(r.round_trips)} round trips (${pct(r.preempting)}) began with the brief task preempting the other (R/R+)`),
        median: num(fmtNs(r.median_inside_ns), where, `the brief task ran ${fmtNs(r.median_inside_ns)} per round trip (median)`),
        p90: num(fmtNs(r.p90_inside_ns), where, `the brief task ran ${fmtNs(r.p90_inside_ns)} per round trip (p90)`),
        span: num(`${r.first_s.toFixed(2)}–${r.last_s.toFixed(2)} s`, where, `first round trip at ${fmtSec(r.first_s)}, last at ${fmtSec(r.last_s)} since the run's first event`),
      },
    };
  });
}

/** The first `n` pairs, and the first workload-kworker pair after them: the storm must show even when other pairs are busier. */
export function topPairs(rows: readonly PingPongView[], n = 3): PingPongView[] {
  const top = rows.slice(0, n);
  const storm = rows.slice(n).find((r) => r.storm);
  return storm ? [...top, storm] : top;
}

export interface RuntimeRowView {
  key: string;
  runId: string;
  task: SchedTask;
  lost: boolean;
  share: number;
  nums: Record<'runTime' | 'cpusUsed' | 'share' | 'slices' | 'meanSlice' | 'preempted', Num>;
  cpus: string;
}

/** Rows of the run-time table: how much of the selected CPUs each task had. */
export function runtimeRows(a: SchedRuntime): RuntimeRowView[] {
  const runs = runInfo(a);
  return a.rows.map((r, i) => {
    const run = runs.get(r.run_id);
    const cpus = cpuListText(r.cpus);
    const where = `${whereText(a.label, a.capture_id, r.run_id)} · CPU${r.cpus.length > 1 ? 's' : ''} ${cpus} (${a.cpus}) · ${taskText(r.task)}`;
    return {
      key: `${r.run_id}:${taskText(r.task)}:${i}`,
      runId: r.run_id,
      task: r.task,
      lost: run?.events_lost ?? false,
      share: r.share ?? 0,
      cpus,
      nums: {
        runTime: num(fmtNs(r.run_ns), where, `ran ${fmtNs(r.run_ns)} on these CPUs (${fmtCount(r.run_ns)} ns)`),
        cpusUsed: num(formatValue(r.cpus_used, 'CPUs'), where, `${formatValue(r.cpus_used, 'CPUs')} utilized: run time / the run's ${run ? fmtSec(run.duration_s) : '?'} (as task-clock says it)`),
        share: num(fmtShare(r.share), where, `${fmtShare(r.share)} of the selected CPUs' time`),
        slices: num(fmtCount(r.slices), where, `${fmtCount(r.slices)} slices on the CPU`),
        meanSlice: num(fmtNs(r.mean_slice_ns), where, `mean slice ${fmtNs(r.mean_slice_ns)}`),
        preempted: num(fmtShare(r.slices ? r.preempted / r.slices : null), where, `${fmtCount(r.preempted)} of ${fmtCount(r.slices)} slices ended with the task preempted`),
      },
    };
  });
}

// --- wakeup-to-run delays ----------------------------------------------------------------------

/** Index of a log2 delay bin: [0, 1 µs] -> 0, (1, 2 µs] -> 1, (2, 4 µs] -> 2 ... */
export const delayBinIndex = (loNs: number): number => (loNs <= 0 ? 0 : Math.round(Math.log2(loNs / 1000)) + 1);

/** Position of a delay on the bins' axis, in bins: 1 µs -> 1, 2 µs -> 2, 4 µs -> 3, within a bin linear in log2. */
export const delayPos = (ns: number): number => (ns <= 1000 ? Math.max(0, ns / 1000) : 1 + Math.log2(ns / 1000));

/** Upper end (ns) of bin i. */
export const binHigh = (i: number): number => (i <= 0 ? 1000 : 1000 * 2 ** i);

export interface DelayRowView {
  key: string;
  runId: string;
  task: SchedTask;
  lost: boolean;
  count: number;
  /** Count per bin index, 0..bins-1. */
  bins: number[];
  binTitles: string[];
  marks: { p: 'p50' | 'p90' | 'p99'; pos: number }[];
  nums: Record<'count' | 'unknown' | 'p50' | 'p90' | 'p99' | 'max', Num>;
  reasons: string;
}

/**
 * Bins shared by the rows (so strips line up): up to the largest bin with a delay among each
 * answer's first `firstRows` rows (what shows before "Show more"), at least 1 ms. Longer delays of
 * rows further down fall into the last bin, which says so.
 */
export function delayBinCount(answers: readonly Pick<SchedDelays, 'rows'>[], firstRows = 15): number {
  let hi = delayBinIndex(1e6);
  for (const a of answers) for (const r of a.rows.slice(0, firstRows)) for (const b of r.histogram) if (b.count > 0) hi = Math.max(hi, delayBinIndex(b.lo_ns));
  return hi + 1;
}

function binRange(i: number): string {
  return i === 0 ? '[0, 1 µs]' : `(${shortNs(binHigh(i - 1))}, ${shortNs(binHigh(i))}]`;
}

/** Rows of the delay table: percentiles, and the log2 histogram on `nBins` shared bins. */
export function delayRows(a: SchedDelays, nBins: number): DelayRowView[] {
  const runs = runInfo(a);
  return a.rows.map((r, i) => {
    const run = runs.get(r.run_id);
    const where = `${whereText(a.label, a.capture_id, r.run_id)} · CPUs ${a.cpus} · ${taskText(r.task)}${a.reason !== 'all' ? ` · ready since ${a.reason}` : ''}`;
    const bins = new Array<number>(nBins).fill(0);
    for (const b of r.histogram) {
      const k = Math.min(nBins - 1, delayBinIndex(b.lo_ns));
      bins[k] = (bins[k] ?? 0) + b.count;
    }
    const total = bins.reduce((x, y) => x + y, 0);
    const over = r.histogram.some((b) => b.count > 0 && delayBinIndex(b.lo_ns) >= nBins);
    const reasons = Object.entries(r.reasons).sort((x, y) => y[1] - x[1]);
    const p = (v: number | null, what: string) => num(fmtNs(v), where, `${what}: ${fmtNs(v)} from ready (woken or preempted) to running (nearest rank over ${fmtCount(r.count)} delays)`);
    return {
      key: `${r.run_id}:${taskText(r.task)}:${i}`,
      runId: r.run_id,
      task: r.task,
      lost: run?.events_lost ?? false,
      count: r.count,
      bins,
      binTitles: bins.map((n, k) => `${where}\n${fmtCount(n)} delays in ${k === nBins - 1 && over ? `(${shortNs(binHigh(k - 1))}, ${fmtNs(r.max_ns)}]` : binRange(k)}: ${fmtShare(total ? n / total : null)} of ${fmtCount(total)}`),
      marks: (
        [
          ['p50', r.p50_ns],
          ['p90', r.p90_ns],
          ['p99', r.p99_ns],
        ] as const
      ).flatMap(([k, v]) => (v === null ? [] : [{ p: k, pos: Math.min(nBins, delayPos(v)) }])),
      nums: {
        count: num(fmtCount(r.count), where, `${fmtCount(r.count)} switch-ins with a known delay`),
        unknown: num(r.unknown ? fmtCount(r.unknown) : '', where, `${fmtCount(r.unknown)} switch-ins after a sleep whose wakeup was not recorded (lost events): no delay`),
        p50: p(r.p50_ns, 'median'),
        p90: p(r.p90_ns, 'p90'),
        p99: p(r.p99_ns, 'p99'),
        max: num(fmtNs(r.max_ns), where, `longest wait: ${fmtNs(r.max_ns)}`),
      },
      reasons: reasons.map(([k, n]) => `${k} ${fmtCount(n)}`).join(' · '),
    };
  });
}

/**
 * Labels of the delay axis at bin edges 1 µs, 32 µs, 1 ms, 33 ms, 1 s (every 5 doublings), or
 * every 10 when the strip is too narrow for labels `minPx` apart.
 */
export function delayAxisLabels(nBins: number, width = 280, minPx = 44): { pos: number; label: string }[] {
  const every = (5 * width) / nBins >= minPx ? 5 : 10;
  const out: { pos: number; label: string }[] = [];
  for (let i = 1; i < nBins; i += every) out.push({ pos: i, label: shortNs(binHigh(i - 1)) });
  return out;
}

function shortNs(ns: number): string {
  const [f, u] = ns >= 1e9 ? [1e9, 's'] : ns >= 1e6 ? [1e6, 'ms'] : [1e3, 'µs'];
  const v = ns / f;
  return `${v >= 10 ? Math.round(v) : Number(v.toPrecision(v >= 1.5 ? 2 : 1))} ${u}`;
}

// --- the empty state ---------------------------------------------------------------------------

/** How to record a capture these views can read (collectors/iolens_collect/cli.py): issue 4's pair. */
export const CAPTURE_COMMANDS = `JOB='--name=w --directory=/mnt/test --size=256m --rw=randwrite --bs=4k --ioengine=libaio --iodepth=32 --direct=1 --runtime=10 --time_based'
iolens-collect run --label base  --repeat 3 --cpus 1 --sched --fio-args="$JOB" -o base.iolens.tar.gz
iolens-collect run --label w1000 --repeat 3 --cpus 1 --sched --cgroup iolens-w1000 --cpu-weight 1000 --fio-args="$JOB" -o w1000.iolens.tar.gz`;
