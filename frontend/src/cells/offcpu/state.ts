// State of the off-CPU cell and its URL form. Pure; tests in state.test.ts.
//
// URL form: fields separated by ';', each `key=value`, values percent-encoded (a task group may
// hold '/', '*' or ':'). Every field optional; the default state encodes to ''.
//   c=ID        the capture (absent: the first of the notebook with off-CPU stacks)
//   r=r000      the run (absent: the capture's first run with off-CPU stacks)
//   a=SIDE      with b: the pair view of two tasks; a side is a thread id ('7894') or a task group
//   b=SIDE      as the scheduler cell names them ('kworker/*', 'fio'). Absent: the summary
//   m=icicle    root at the top (absent: flame, root at the bottom)

export interface OffcpuState {
  cap: string | null;
  run: string | null;
  a: string | null;
  b: string | null;
  mode: 'flame' | 'icicle';
}

export const defaultOffcpuState: OffcpuState = { cap: null, run: null, a: null, b: null, mode: 'flame' };

const RUN = /^[A-Za-z0-9_.-]{1,64}$/;
const CAPTURE = /^[A-Za-z0-9_-]{1,64}$/;

export function encodeOffcpu(s: OffcpuState): string {
  const parts: string[] = [];
  if (s.cap) parts.push(`c=${s.cap}`);
  if (s.run) parts.push(`r=${s.run}`);
  if (s.a !== null) parts.push(`a=${encodeURIComponent(s.a)}`);
  if (s.b !== null) parts.push(`b=${encodeURIComponent(s.b)}`);
  if (s.mode === 'icicle') parts.push('m=icicle');
  return parts.join(';');
}

export function decodeOffcpu(text: string): OffcpuState | Error {
  const s: OffcpuState = { ...defaultOffcpuState };
  if (!text) return s;
  for (const part of text.split(';')) {
    const i = part.indexOf('=');
    const k = i < 0 ? part : part.slice(0, i);
    const raw = i < 0 ? '' : part.slice(i + 1);
    let v: string;
    try {
      v = decodeURIComponent(raw);
    } catch {
      return new Error(`${k}: bad percent-encoding '${raw}'`);
    }
    if (k === 'c') {
      if (!CAPTURE.test(v)) return new Error(`c must be a capture id, not '${v}'`);
      s.cap = v;
    } else if (k === 'r') {
      if (!RUN.test(v)) return new Error(`r must be a run id, not '${v}'`);
      s.run = v;
    } else if (k === 'a' || k === 'b') {
      if (!v || v.length > 64) return new Error(`${k} must be a thread id or a task group (1-64 characters)`);
      s[k] = v;
    } else if (k === 'm') {
      if (v !== 'icicle' && v !== 'flame') return new Error(`m must be flame or icicle, not '${v}'`);
      s.mode = v;
    } else return new Error(`unknown part '${k}' (c, r, a, b, m)`);
  }
  if ((s.a === null) !== (s.b === null)) return new Error('a pair needs both a and b');
  return s;
}

/** A side of a pair as the scheduler's ping-pong rows name a task: its thread id, or its group. */
export function sideOf(t: { pid: number | null; group: string }): string {
  return t.pid !== null ? String(t.pid) : t.group;
}
