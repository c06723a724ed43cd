// State of the flame graph cell and its URL form. Pure; tests in state.test.ts.
//
// URL form: fields separated by ';', each `key=value`, values percent-encoded (a frame name may
// hold any character but ';'). Absent fields take their default; the default state encodes to ''.
//   v=diff          the differential graph of two captures (absent: one capture's flame graph)
//   cap=ID          flame: the capture (absent: the notebook's baseline)
//   a=ID, b=ID      diff: before and after (absent: the baseline, and the first other capture)
//   ev=cpu-clock    the perf event (absent: each capture's first sampled event)
//   runs=r000,r001  flame: the runs merged (absent: all)
//   cpu=0,3         CPUs (absent: all)
//   tid=1234        flame: one thread
//   comm=fio        tasks with this command name; comm=* all tasks. Absent: the diff view shows
//                   the workload's own tasks (fio's, or a cmd capture's command: workloadComm),
//                   so other processes on the machine do not fill the largest changes
//   t=FROM-TO       time range, ns since each run's first sample (TO empty: to the end; FROM 0 is
//                   stored as null)
//   z=f1,f2,...     the zoomed frame: its frame names from the root
//   q=REGEX         search
//   m=icicle        root at the top (absent: flame, root at the bottom)
//   c=total         diff: colour by the change of total share (absent: of self share)
//   by=total        the functions tables ordered by total, or by=name (absent: by self)
//   o=heavy         siblings heaviest first, left (speedscope's left heavy; absent: by name)
//   s=inverted      the inverted (bottom-up) call tree; s=sandwich: callers and callees of fn;
//                   s=time: the time order of one thread (tid, default the workload's busiest) or
//                   one CPU (cpu= of one CPU) in one run (runs= of one run, default the first)
//                   (absent: the flame graph)
//   tw=FROM-TO      time order: the window shown, ns since the run's first sample (absent: all)
//   fn=NAME         the sandwich's function
//   x=OP:NAME,...   transforms in order, OP one of focus, merge, drop, rec, drec (logic/flameStacks.ts)
//   hm=50           the subsecond-offset heatmap shown, with this many rows a second (absent: hidden)
//   tb=FROM-TO      a second time range (ns, as t): the flame view shows range t (A) against tb (B)
//                   of the same capture as a difference (TO empty: to the end)

import type { FlameOrder, Transform, TransformOp } from '../../logic/flameStacks';

export type FlameView = 'flame' | 'diff';
export type StacksView = 'graph' | 'inverted' | 'sandwich' | 'time';
const OPS: TransformOp[] = ['focus', 'merge', 'drop', 'rec', 'drec'];

export interface FlameState {
  view: FlameView;
  cap: string | null;
  a: string | null;
  b: string | null;
  event: string | null;
  runs: string[] | null;
  cpus: number[] | null;
  tid: number | null;
  comm: string | null;
  from: number | null;
  to: number | null;
  zoom: string[];
  search: string;
  mode: 'flame' | 'icicle';
  colour: 'self' | 'total';
  by: 'self' | 'total' | 'name';
  order: FlameOrder;
  show: StacksView;
  fn: string | null;
  transforms: Transform[];
  /** Time order: the window shown, ns since the run's first sample. */
  window: [number, number] | null;
  heatmap: number | null;
  rangeB: { from: number; to: number | null } | null;
}

export const defaultFlameState: FlameState = {
  view: 'flame',
  cap: null,
  a: null,
  b: null,
  event: null,
  runs: null,
  cpus: null,
  tid: null,
  comm: null,
  from: null,
  to: null,
  zoom: [],
  search: '',
  mode: 'flame',
  colour: 'self',
  by: 'self',
  order: 'name',
  show: 'graph',
  fn: null,
  transforms: [],
  window: null,
  heatmap: null,
  rangeB: null,
};

/** `comm` of the state when the user chose "All tasks" (the default is the workload's own tasks). */
export const ALL_TASKS = '*';

/** The command name (as perf prints it: at most 15 characters) of a capture's workload, when its
 *  bundle says what ran: fio's workers are "fio"; a cmd capture's command, its program's base name.
 *  null when unknown (loose files, a cmd run through a shell), and then all tasks are shown. */
export function workloadComm(c: { workload_kind: string; workload_summary: string | null; artifact_kinds?: string[] } | undefined): string | null {
  if (!c) return null;
  const kinds = c.artifact_kinds ?? [];
  if (c.workload_kind === 'fio') return kinds.includes('fio-json') || kinds.includes('fio-terse') ? 'fio' : null;
  if (c.workload_kind === 'cmd' && c.workload_summary && kinds.includes('cmd-rusage')) {
    const prog = c.workload_summary.split(' ')[0]!.split('/').pop() ?? '';
    if (!prog || ['sh', 'bash', 'dash', 'env', 'sudo', 'nice', 'taskset', 'chrt', 'ionice', 'stdbuf', 'timeout'].includes(prog)) return null;
    return prog.slice(0, 15);
  }
  return null;
}

/** The pair's default task filter: the workload's command when both captures ran the same one. */
export function pairComm(a: Parameters<typeof workloadComm>[0], b: Parameters<typeof workloadComm>[0]): string | null {
  const ca = workloadComm(a);
  return ca !== null && ca === workloadComm(b) ? ca : null;
}

/** One capture's default task filter: the workload's own tasks when its graph is of off-CPU stacks
 *  (event offcpu or wakeup, or no event chosen on a capture whose only stacks are off-CPU ones: the
 *  server's default), where every sleeping task of the machine has some and other processes fill
 *  it; a CPU profile shows every task. Tested with pairComm on testdata/vectors/workload-comm.json. */
export function singleComm(c: Parameters<typeof workloadComm>[0], event: string | null): string | null {
  const kinds = c?.artifact_kinds ?? [];
  const offcpu = event === 'offcpu' || event === 'wakeup' || (event === null && kinds.includes('perf-offcpu') && !kinds.includes('perf-script'));
  return offcpu ? workloadComm(c) : null;
}

/** The state a view draws: the default task filter `work` (pairComm, singleComm) when the user chose
 *  no command, thread or "All tasks" (ALL_TASKS, then no filter). */
export function withDefaultTasks(s: FlameState, work: string | null): FlameState {
  if (s.comm === ALL_TASKS) return { ...s, comm: null };
  return s.comm === null && s.tid === null && work ? { ...s, comm: work } : s;
}

/** From a difference of two captures to one side's sandwich of `fn`: the flame view of capture
 *  `id` (the state's cap is null for the cell's first capture), over the pair's tasks (`comm`: the
 *  workload's own by default), every run, CPU and thread. */
export function sandwichOfPair(fn: string, id: string, first: string, comm: string | null): Partial<FlameState> {
  return { view: 'flame', cap: id === first ? null : id, show: 'sandwich', fn, comm, zoom: [], runs: null, tid: null, window: null };
}

/** From a difference of two time ranges (A the state's t=, B `rangeB`) to one range's sandwich of
 *  `fn`: range B becomes the time range when it is B's. */
export function sandwichOfRange(fn: string, side: 'a' | 'b', rangeB: NonNullable<FlameState['rangeB']>): Partial<FlameState> {
  return { rangeB: null, ...(side === 'b' ? { from: rangeB.from || null, to: rangeB.to } : {}), show: 'sandwich', fn, zoom: [] };
}

const CAPTURE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const RUN_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const MAX_TEXT = 2000;
const KEYS = ['v', 'cap', 'a', 'b', 'ev', 'runs', 'cpu', 'tid', 'comm', 't', 'z', 'q', 'm', 'c', 'by', 'o', 's', 'fn', 'x', 'tw', 'hm', 'tb'];

const enc = encodeURIComponent;
/** Rows a second the heatmap offers: divisors of 1e9 ns (the API's rows). */
export const HEATMAP_ROWS = [10, 20, 25, 50, 100];

export function encodeFlame(s: FlameState): string {
  const p: string[] = [];
  if (s.view === 'diff') p.push('v=diff');
  if (s.cap) p.push(`cap=${s.cap}`);
  if (s.a) p.push(`a=${s.a}`);
  if (s.b) p.push(`b=${s.b}`);
  if (s.event !== null) p.push(`ev=${enc(s.event)}`);
  if (s.runs) p.push(`runs=${s.runs.join(',')}`);
  if (s.cpus) p.push(`cpu=${s.cpus.join(',')}`);
  if (s.tid !== null) p.push(`tid=${s.tid}`);
  if (s.comm !== null) p.push(`comm=${enc(s.comm)}`);
  if (s.from !== null || s.to !== null) p.push(`t=${s.from ?? 0}-${s.to ?? ''}`);
  if (s.zoom.length) p.push(`z=${s.zoom.map(enc).join(',')}`);
  if (s.search) p.push(`q=${enc(s.search)}`);
  if (s.mode === 'icicle') p.push('m=icicle');
  if (s.colour === 'total') p.push('c=total');
  if (s.by !== 'self') p.push(`by=${s.by}`);
  if (s.order === 'heavy') p.push('o=heavy');
  if (s.show !== 'graph') p.push(`s=${s.show}`);
  if (s.fn !== null) p.push(`fn=${enc(s.fn)}`);
  if (s.transforms.length) p.push(`x=${s.transforms.map((t) => `${t.op}:${enc(t.name)}`).join(',')}`);
  if (s.window) p.push(`tw=${s.window[0]}-${s.window[1]}`);
  if (s.heatmap !== null) p.push(`hm=${s.heatmap}`);
  if (s.rangeB) p.push(`tb=${s.rangeB.from}-${s.rangeB.to ?? ''}`);
  return p.join(';');
}

function dec(v: string): string | Error {
  try {
    return decodeURIComponent(v);
  } catch {
    return new Error(`'${v.slice(0, 40)}' is not percent-encoded text`);
  }
}

const nonNegInt = (v: string) => (/^\d{1,18}$/.test(v) ? Number(v) : null);

export function decodeFlame(text: string): FlameState | Error {
  const s: FlameState = { ...defaultFlameState };
  if (text === '') return s;
  if (text.length > 20000) return new Error('state too long');
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) return new Error(`'${part.slice(0, 40)}' is not key=value`);
    const key = part.slice(0, eq);
    const v = part.slice(eq + 1);
    switch (key) {
      case 'v':
        if (v !== 'diff' && v !== 'flame') return new Error(`v must be flame or diff, not '${v}'`);
        s.view = v;
        break;
      case 'cap':
      case 'a':
      case 'b':
        if (!CAPTURE_ID.test(v)) return new Error(`${key}: '${v}' is not a capture id`);
        s[key] = v;
        break;
      case 'ev':
      case 'comm':
      case 'q': {
        const d = dec(v);
        if (d instanceof Error) return d;
        if (d.length > MAX_TEXT) return new Error(`${key}: longer than ${MAX_TEXT} characters`);
        if (key === 'ev') s.event = d;
        else if (key === 'comm') s.comm = d;
        else s.search = d;
        break;
      }
      case 'runs': {
        const runs = v.split(',');
        if (runs.some((r) => !RUN_ID.test(r))) return new Error(`runs: '${v}' is not a list of run ids`);
        s.runs = runs;
        break;
      }
      case 'cpu': {
        const cpus = v.split(',').map(nonNegInt);
        if (cpus.some((c) => c === null || c > 65535)) return new Error(`cpu: '${v}' is not a list of CPU numbers`);
        s.cpus = cpus as number[];
        break;
      }
      case 'tid': {
        const t = nonNegInt(v);
        if (t === null) return new Error(`tid: '${v}' is not a thread id`);
        s.tid = t;
        break;
      }
      case 't': {
        const m = /^(\d{1,18})-(\d{1,18})?$/.exec(v);
        if (!m) return new Error(`t: '${v}' is not FROM-TO in ns`);
        const from = Number(m[1]);
        const to = m[2] !== undefined ? Number(m[2]) : null;
        if (to !== null && to <= from) return new Error(`t: the range ${v} is empty`);
        if (from === 0 && to === null) return new Error('t: 0- is the whole run; leave t out');
        s.from = from === 0 ? null : from; // 0 and absent both mean "from the run's first sample"
        s.to = to;
        break;
      }
      case 'z': {
        const frames: string[] = [];
        for (const f of v.split(',')) {
          const d = dec(f);
          if (d instanceof Error) return d;
          frames.push(d);
        }
        if (frames.length > 1000) return new Error('z: a zoom path of more than 1000 frames');
        s.zoom = frames;
        break;
      }
      case 'm':
        if (v !== 'icicle' && v !== 'flame') return new Error(`m must be flame or icicle, not '${v}'`);
        s.mode = v;
        break;
      case 'c':
        if (v !== 'self' && v !== 'total') return new Error(`c must be self or total, not '${v}'`);
        s.colour = v;
        break;
      case 'by':
        if (v !== 'self' && v !== 'total' && v !== 'name') return new Error(`by must be self, total or name, not '${v}'`);
        s.by = v;
        break;
      case 'o':
        if (v !== 'heavy' && v !== 'name') return new Error(`o must be name or heavy, not '${v}'`);
        s.order = v;
        break;
      case 's':
        if (v !== 'graph' && v !== 'inverted' && v !== 'sandwich' && v !== 'time') return new Error(`s must be graph, inverted, sandwich or time, not '${v}'`);
        s.show = v;
        break;
      case 'fn': {
        const d = dec(v);
        if (d instanceof Error) return d;
        if (d.length > MAX_TEXT || d === '') return new Error(`fn: a function name of 1 to ${MAX_TEXT} characters`);
        s.fn = d;
        break;
      }
      case 'x': {
        const list: Transform[] = [];
        for (const item of v.split(',')) {
          const colon = item.indexOf(':');
          const op = item.slice(0, colon) as TransformOp;
          if (colon < 0 || !OPS.includes(op)) return new Error(`x: '${item.slice(0, 40)}' is not OP:NAME (OP one of ${OPS.join(', ')})`);
          const d = dec(item.slice(colon + 1));
          if (d instanceof Error) return d;
          if (d === '' || d.length > MAX_TEXT) return new Error(`x: ${op} needs a function name of 1 to ${MAX_TEXT} characters`);
          list.push({ op, name: d });
        }
        if (list.length > 50) return new Error('x: more than 50 transforms');
        s.transforms = list;
        break;
      }
      case 'tw': {
        const m = /^(\d{1,18})-(\d{1,18})$/.exec(v);
        if (!m || Number(m[2]) <= Number(m[1])) return new Error(`tw: '${v}' is not a time window FROM-TO in ns`);
        s.window = [Number(m[1]), Number(m[2])];
        break;
      }
      case 'hm': {
        const r = nonNegInt(v);
        if (r === null || !HEATMAP_ROWS.includes(r)) return new Error(`hm: '${v}' is not a row count (${HEATMAP_ROWS.join(', ')})`);
        s.heatmap = r;
        break;
      }
      case 'tb': {
        const m = /^(\d{1,18})-(\d{1,18})?$/.exec(v);
        if (!m) return new Error(`tb: '${v}' is not FROM-TO in ns`);
        const from = Number(m[1]);
        const to = m[2] !== undefined ? Number(m[2]) : null;
        if (to !== null && to <= from) return new Error(`tb: the range ${v} is empty`);
        s.rangeB = { from, to };
        break;
      }
      default:
        return new Error(`unknown field '${key.slice(0, 20)}' (known: ${KEYS.join(', ')})`);
    }
  }
  return s;
}

/** What narrows a stacks view's selection, each with how to widen it: the next steps of its empty
 *  line when the selection leaves no sample ('command fio: choose All tasks'). `track`: the time
 *  order's track (a thread or CPU of one run) is the view itself, not a narrowing. */
export function selectionNarrowing(s: FlameState, track = false): string[] {
  const out: string[] = [];
  if (s.comm !== null && s.comm !== ALL_TASKS) out.push(`command ${s.comm}: choose All tasks`);
  if (!track && s.tid !== null) out.push(`thread ${s.tid}: all threads`);
  if (!track && s.cpus?.length) out.push(`CPU${s.cpus.length > 1 ? 's' : ''} ${s.cpus.join(',')}: all CPUs`);
  if (s.from !== null || s.to !== null)
    out.push(`${((s.from ?? 0) / 1e9).toFixed(3)}${s.to === null ? ' s to the end' : ` to ${(s.to / 1e9).toFixed(3)} s`}: the whole run`);
  if (!track && s.runs?.length) out.push(`run${s.runs.length > 1 ? 's' : ''} ${s.runs.join(', ')}: all runs`);
  if (s.transforms.length) out.push(`${s.transforms.length === 1 ? 'a transform' : `${s.transforms.length} transforms`}: remove ${s.transforms.length === 1 ? 'it' : 'them'} (×)`);
  return out;
}
