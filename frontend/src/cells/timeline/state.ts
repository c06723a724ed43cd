// State of the timeline cell and its URL form. Pure; tests in state.test.ts.
//
// URL form: fields separated by ';', each `key=value`, every one optional:
//   cap=ID        the capture (absent: the notebook's baseline)
//   run=r000      the run (absent: the capture's first run)
//   sel=FROM-TO   the brushed time selection, ns since the run's start: the notebook's ONE shared
//                 time range, applied by the flame, block and scheduler cells (shared.ts)
//   w=FROM-TO     the window shown (zoom), ns since the run's start (absent: the whole run)
// The default state encodes to ''.

export interface TimelineState {
  cap: string | null;
  run: string | null;
  sel: [number, number] | null;
  win: [number, number] | null;
}

export const defaultTimelineState: TimelineState = { cap: null, run: null, sel: null, win: null };

const CAPTURE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const RUN_ID = /^[A-Za-z0-9_.-]{1,64}$/;
const RANGE = /^(\d{1,18})-(\d{1,18})$/;
const KEYS = ['cap', 'run', 'sel', 'w'];

export function encodeTimeline(s: TimelineState): string {
  const p: string[] = [];
  if (s.cap) p.push(`cap=${s.cap}`);
  if (s.run) p.push(`run=${s.run}`);
  if (s.sel) p.push(`sel=${s.sel[0]}-${s.sel[1]}`);
  if (s.win) p.push(`w=${s.win[0]}-${s.win[1]}`);
  return p.join(';');
}

function range(key: string, v: string): [number, number] | Error {
  const m = RANGE.exec(v);
  if (!m) return new Error(`${key}: '${v.slice(0, 40)}' is not FROM-TO in ns`);
  const a = Number(m[1]);
  const b = Number(m[2]);
  if (b <= a) return new Error(`${key}: the range ${v} is empty`);
  return [a, b];
}

export function decodeTimeline(text: string): TimelineState | Error {
  const s: TimelineState = { ...defaultTimelineState };
  if (text === '') return s;
  if (text.length > 500) return new Error('state too long');
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) return new Error(`'${part.slice(0, 40)}' is not key=value`);
    const key = part.slice(0, eq);
    const v = part.slice(eq + 1);
    switch (key) {
      case 'cap':
        if (!CAPTURE_ID.test(v)) return new Error(`cap: '${v.slice(0, 40)}' is not a capture id`);
        s.cap = v;
        break;
      case 'run':
        if (!RUN_ID.test(v)) return new Error(`run: '${v.slice(0, 40)}' is not a run id`);
        s.run = v;
        break;
      case 'sel':
      case 'w': {
        const r = range(key, v);
        if (r instanceof Error) return r;
        if (key === 'sel') s.sel = r;
        else s.win = r;
        break;
      }
      default:
        return new Error(`unknown field '${key.slice(0, 20)}' (known: ${KEYS.join(', ')})`);
    }
  }
  return s;
}
