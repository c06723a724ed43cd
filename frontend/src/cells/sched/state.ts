// State of the scheduler cell and its URL form. Pure; tests in state.test.ts.
//
// URL form: fields separated by ';', each `key=value`, every one optional:
//   v=rate          the view: sum (absent: the comparison, with the workload CPUs' switch rate and
//                   the top ping-pong pairs), rate, tasks, pairs, pingpong, delays, runtime
//   run=r001        only this run of each capture (absent: every run with a trace)
//   cpus=workload   CPUs of the tables: all, workload or a list '1,3-4' (absent: the view's
//                   default, all; workload for runtime)
//   by=group        tasks (pid and name) or task groups (kworker/*): task, group (absent: the
//                   view's default, task; group for delays)
//   m=involuntary   what the switch-rate chart draws: switches (absent), involuntary,
//                   voluntary, from_idle, wakeups, migrations
//   step=500        its interval in ms, a multiple of 100 (absent: from the runs' length)
//   lay=overlay     small multiples, one chart per capture and run (absent: multi), or overlay:
//                   every capture's workload CPUs in one chart
//   stat=0          hide perf stat's counted intervals in the chart (absent: shown)
//   w=500           ping-pong window, µs, 1-10000 (absent: 1000)
//   reason=woken    delays: all (absent), woken, preempted
// The default state encodes to ''.

export type SchedView = 'sum' | 'rate' | 'tasks' | 'pairs' | 'pingpong' | 'delays' | 'runtime';
export type RateMeasure = 'switches' | 'involuntary' | 'voluntary' | 'from_idle' | 'wakeups' | 'migrations';
export type GroupBy = 'task' | 'group';
export type DelayReason = 'all' | 'woken' | 'preempted';

export interface SchedState {
  view: SchedView;
  run: string | null;
  /** 'all', 'workload' or a CPU list; null: the view's default. */
  cpus: string | null;
  groupBy: GroupBy | null;
  measure: RateMeasure;
  /** ms; null: chosen from the runs' length. */
  step: number | null;
  overlay: boolean;
  counted: boolean;
  windowUs: number;
  reason: DelayReason;
}

export const defaultSchedState: SchedState = {
  view: 'sum',
  run: null,
  cpus: null,
  groupBy: null,
  measure: 'switches',
  step: null,
  overlay: false,
  counted: true,
  windowUs: 1000,
  reason: 'all',
};

export const VIEWS: readonly SchedView[] = ['sum', 'rate', 'tasks', 'pairs', 'pingpong', 'delays', 'runtime'];
export const MEASURES: readonly RateMeasure[] = ['switches', 'involuntary', 'voluntary', 'from_idle', 'wakeups', 'migrations'];
const REASONS: readonly DelayReason[] = ['all', 'woken', 'preempted'];
const RUN_ID = /^[A-Za-z0-9_.-]{1,64}$/;
/** What the backend accepts (views/sched.py select_cpus): all, workload, or '1,3-4'. */
export const CPU_LIST = /^(all|workload|\d{1,4}(-\d{1,4})?(,\d{1,4}(-\d{1,4})?)*)$/;
export const MAX_STEP_MS = 600_000;

/** The CPUs a view reads when the state does not say. */
export const defaultCpus = (view: SchedView): string => (view === 'runtime' ? 'workload' : 'all');
/** Tasks or groups when the state does not say. */
export const defaultGroupBy = (view: SchedView): GroupBy => (view === 'delays' ? 'group' : 'task');

export function encodeSched(s: SchedState): string {
  const d = defaultSchedState;
  const parts: string[] = [];
  if (s.view !== d.view) parts.push(`v=${s.view}`);
  if (s.run) parts.push(`run=${s.run}`);
  if (s.cpus) parts.push(`cpus=${s.cpus}`);
  if (s.groupBy) parts.push(`by=${s.groupBy}`);
  if (s.measure !== d.measure) parts.push(`m=${s.measure}`);
  if (s.step !== null) parts.push(`step=${s.step}`);
  if (s.overlay) parts.push('lay=overlay');
  if (!s.counted) parts.push('stat=0');
  if (s.windowUs !== d.windowUs) parts.push(`w=${s.windowUs}`);
  if (s.reason !== d.reason) parts.push(`reason=${s.reason}`);
  return parts.join(';');
}

const oneOf = <T extends string>(list: readonly T[], v: string): v is T => (list as readonly string[]).includes(v);

export function decodeSched(text: string): SchedState | Error {
  const s: SchedState = { ...defaultSchedState };
  if (text === '') return s;
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) return new Error(`'${part.slice(0, 40)}' is not key=value`);
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    switch (key) {
      case 'v':
        if (!oneOf(VIEWS, value)) return new Error(`v must be one of ${VIEWS.join(', ')}, not '${value.slice(0, 40)}'`);
        s.view = value;
        break;
      case 'run':
        if (!RUN_ID.test(value)) return new Error(`run: '${value.slice(0, 40)}' is not a run id`);
        s.run = value;
        break;
      case 'cpus':
        if (value.length > 200 || !CPU_LIST.test(value)) return new Error(`cpus must be all, workload or a list like 1,3-4, not '${value.slice(0, 40)}'`);
        s.cpus = value;
        break;
      case 'by':
        if (value !== 'task' && value !== 'group') return new Error(`by must be task or group, not '${value.slice(0, 40)}'`);
        s.groupBy = value;
        break;
      case 'm':
        if (!oneOf(MEASURES, value)) return new Error(`m must be one of ${MEASURES.join(', ')}, not '${value.slice(0, 40)}'`);
        s.measure = value;
        break;
      case 'step': {
        const n = /^\d{3,6}$/.test(value) ? Number(value) : NaN;
        if (!(n >= 100 && n <= MAX_STEP_MS && n % 100 === 0)) return new Error(`step is ms, a multiple of 100 up to ${MAX_STEP_MS}, not '${value.slice(0, 40)}'`);
        s.step = n;
        break;
      }
      case 'lay':
        if (value !== 'overlay' && value !== 'multi') return new Error(`lay must be multi or overlay, not '${value.slice(0, 40)}'`);
        s.overlay = value === 'overlay';
        break;
      case 'stat':
        if (value !== '0' && value !== '1') return new Error(`stat must be 0 or 1, not '${value.slice(0, 40)}'`);
        s.counted = value === '1';
        break;
      case 'w': {
        const n = /^\d{1,5}$/.test(value) ? Number(value) : NaN;
        if (!(n >= 1 && n <= 10000)) return new Error(`w is the ping-pong window in µs, 1-10000, not '${value.slice(0, 40)}'`);
        s.windowUs = n;
        break;
      }
      case 'reason':
        if (!oneOf(REASONS, value)) return new Error(`reason must be one of ${REASONS.join(', ')}, not '${value.slice(0, 40)}'`);
        s.reason = value;
        break;
      default:
        return new Error(`unknown field '${key.slice(0, 40)}' (known: v, run, cpus, by, m, step, lay, stat, w, reason)`);
    }
  }
  return s;
}
