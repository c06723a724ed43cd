// Time order (speedscope's "time order", Firefox Profiler's stack chart), pure: the samples of one
// thread or CPU in time (the API's FlameTimeOrder answer, views/flame_time.py), after the flame
// cell's transforms, merged into boxes. Tests in flameTime.test.ts, with golden values on the
// samples of a real capture (testdata/stacks-xfs-time.json).
//
// - A sample at time t stands for interval_ns of the track's time: it covers [t, t + interval),
//   cut at the next sample when that comes sooner (sampling jitter).
// - Drawing (visibleBoxes): boxes narrower than a pixel next to each other are drawn as one block,
//   in their function's colour when they are of one function (the thread's command name over a
//   long run), grey when mixed.
// - Consecutive samples are contiguous when the second comes at most GAP x interval after the first;
//   a longer gap (the thread was off CPU, or a sample without a stack, or dropped by a transform)
//   ends every box.
// - A box at depth d (0: the command name, or the focused function) merges contiguous samples whose
//   stacks share the same frames 0..d: its samples, its span [start, end), its duration
//   samples x interval.
// - The transforms are logic/flameStacks.ts's, applied to the distinct stacks of the sequence (one
//   implementation of the rule for every view of the cell).
import { applyTransforms, type Stacks, type Transform } from './flameStacks';

/** A gap longer than this many intervals between two samples ends their boxes. */
export const GAP = 1.5;

export interface TimeSequence {
  names: string[];
  stack_frames: ArrayLike<number>;
  stack_start: ArrayLike<number>;
  dt_ns: ArrayLike<number>;
  stack: ArrayLike<number>;
  interval_ns: number;
}

export interface TimeBoxes {
  names: string[];
  /** Boxes ordered by depth, then start; those of depth d are rows[d] .. rows[d + 1] - 1. */
  rows: Int32Array;
  depth: Int32Array;
  name: Int32Array;
  /** ns since the run's origin. */
  start: Float64Array;
  end: Float64Array;
  samples: Int32Array;
  /** Index of the box's first sample in the sequence. */
  first: Int32Array;
  interval: number;
  /** Time of the last sample's end (ns since the origin). */
  until: number;
  /** Samples drawn (with a stack left after the transforms). */
  drawn: number;
  missing: Transform[];
  /** The first frame is a function (after a focus), not a command name. */
  focused: boolean;
}

/** The distinct stacks after the transforms, and where each sample's stack went (-1: none). */
export function transformSequence(seq: TimeSequence, transforms: readonly Transform[]): { stacks: Stacks; of: Int32Array; missing: Transform[] } {
  const nStacks = seq.stack_start.length - 1;
  const count = new Float64Array(nStacks);
  for (let i = 0; i < seq.stack.length; i++) if (seq.stack[i]! >= 0) count[seq.stack[i]!]!++;
  // `samples` carries each stack's own index through the transforms (they keep it per stack)
  const base: Stacks = {
    names: seq.names,
    frames: Int32Array.from(seq.stack_frames),
    start: Int32Array.from(seq.stack_start),
    weight: count,
    samples: Float64Array.from({ length: nStacks }, (_, k) => k),
    comm: true,
    root: 'all',
  };
  const { stacks, missing } = transforms.length ? applyTransforms(base, transforms) : { stacks: base, missing: [] };
  const map = new Int32Array(nStacks).fill(-1);
  for (let j = 0; j < stacks.weight.length; j++) if (stacks.start[j + 1]! > stacks.start[j]!) map[stacks.samples[j]!] = j;
  const of = new Int32Array(seq.stack.length);
  for (let i = 0; i < of.length; i++) of[i] = seq.stack[i]! >= 0 ? map[seq.stack[i]!]! : -1;
  return { stacks, of, missing };
}

export function timeBoxes(seq: TimeSequence, transforms: readonly Transform[] = []): TimeBoxes {
  const { stacks, of, missing } = transformSequence(seq, transforms);
  const n = of.length;
  const iv = seq.interval_ns;
  const t = new Float64Array(n);
  let acc = 0;
  for (let i = 0; i < n; i++) t[i] = acc += seq.dt_ns[i]!;
  const fr = stacks.frames;
  const st = stacks.start;
  // open boxes, one per depth of the previous sample's stack
  const depth: number[] = [];
  const name: number[] = [];
  const start: number[] = [];
  const end: number[] = [];
  const cnt: number[] = [];
  const first: number[] = [];
  const open: number[] = [];
  let prev = -1;
  let drawn = 0;
  for (let i = 0; i < n; i++) {
    const s = of[i]!;
    const contiguous = prev >= 0 && i > 0 && of[i - 1] === prev && t[i]! - t[i - 1]! <= GAP * iv;
    // the prefix shared with the previous sample's stack
    let keep = 0;
    if (contiguous && s >= 0) {
      const a = st[prev]!;
      const b = st[s]!;
      const la = st[prev + 1]! - a;
      const lb = st[s + 1]! - b;
      const m = Math.min(la, lb);
      while (keep < m && fr[a + keep] === fr[b + keep]) keep++;
    }
    // close the boxes below the shared prefix at the previous sample's end
    if (i > 0) {
      const cut = contiguous ? Math.min(t[i - 1]! + iv, t[i]!) : t[i - 1]! + iv;
      for (let d = keep; d < open.length; d++) end[open[d]!] = cut;
      open.length = Math.min(open.length, keep);
    }
    if (s < 0) {
      open.length = 0;
      prev = -1;
      continue;
    }
    drawn++;
    for (let d = 0; d < keep; d++) cnt[open[d]!]!++;
    for (let p = st[s]! + keep; p < st[s + 1]!; p++) {
      open.push(depth.length);
      depth.push(p - st[s]!);
      name.push(fr[p]!);
      start.push(t[i]!);
      end.push(t[i]! + iv);
      cnt.push(1);
      first.push(i);
    }
    prev = s;
  }
  if (n > 0) for (const b of open) end[b] = t[n - 1]! + iv;
  // group by depth (boxes of one depth are already in time order)
  const m = depth.length;
  let maxD = -1;
  for (const d of depth) if (d > maxD) maxD = d;
  const rows = new Int32Array(maxD + 2);
  for (const d of depth) rows[d + 1]!++;
  for (let d = 0; d <= maxD; d++) rows[d + 1]! += rows[d]!;
  const fill = rows.slice(0, Math.max(0, maxD + 1));
  const out = { depth: new Int32Array(m), name: new Int32Array(m), start: new Float64Array(m), end: new Float64Array(m), samples: new Int32Array(m), first: new Int32Array(m) };
  for (let k = 0; k < m; k++) {
    const j = fill[depth[k]!]!++;
    out.depth[j] = depth[k]!;
    out.name[j] = name[k]!;
    out.start[j] = start[k]!;
    out.end[j] = end[k]!;
    out.samples[j] = cnt[k]!;
    out.first[j] = first[k]!;
  }
  return { names: stacks.names, rows, ...out, interval: iv, until: n ? t[n - 1]! + iv : 0, drawn, missing, focused: !stacks.comm };
}

/** Number of rows (depths) of the boxes. */
export const rowCount = (b: TimeBoxes) => b.rows.length - 1;

/** The first box of row d that ends after time `from` (binary search), or the row's end. */
export function firstVisible(b: TimeBoxes, d: number, from: number): number {
  let lo = b.rows[d]!;
  let hi = b.rows[d + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (b.end[mid]! <= from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The box of row d under time t, or -1. */
export function boxAt(b: TimeBoxes, d: number, t: number): number {
  if (d < 0 || d >= rowCount(b)) return -1;
  const k = firstVisible(b, d, t);
  return k < b.rows[d + 1]! && b.start[k]! <= t ? k : -1;
}

export interface TimeRect {
  box: number;
  depth: number;
  x: number;
  w: number;
  /** A run of boxes narrower than a pixel drawn as one: grey when they are of several functions
   *  (mixed), else in their function's colour (box is then one of them). */
  merged: boolean;
  mixed: boolean;
}

/** The rectangles of a time window [from, to) at `width` px: boxes narrower than minPx next to
 *  each other are merged into one grey block. Boxes of a row are disjoint and in time order, so a
 *  run of narrow boxes is skipped by a binary search to the next pixel: the work is bounded by
 *  the pixels of each row (times log boxes), not by the boxes. */
export function visibleBoxes(b: TimeBoxes, from: number, to: number, width: number, minPx = 1): TimeRect[] {
  const out: TimeRect[] = [];
  const k = width / (to - from);
  for (let d = 0; d < rowCount(b); d++) {
    const endRow = b.rows[d + 1]!;
    let run: TimeRect | null = null;
    for (let j = firstVisible(b, d, from); j < endRow && b.start[j]! < to; j++) {
      const x0 = Math.max(0, (b.start[j]! - from) * k);
      const x1 = Math.min(width, (b.end[j]! - from) * k);
      if (x1 - x0 >= minPx) {
        if (run) out.push(run);
        run = null;
        out.push({ box: j, depth: d, x: x0, w: x1 - x0, merged: false, mixed: false });
        continue;
      }
      if (run && x0 - (run.x + run.w) < minPx) {
        run.w = Math.max(run.w, x1 - run.x);
        run.merged = true;
        if (b.name[j] !== b.name[run.box]) run.mixed = true;
      } else {
        if (run) out.push(run);
        run = { box: j, depth: d, x: x0, w: Math.max(x1 - x0, 0), merged: false, mixed: false };
      }
      // the boxes that start before the next pixel all end before the last of them starts: merge
      // them without visiting each; the last one is looked at normally (it may be wide)
      const target = from + (run.x + run.w + minPx) / k;
      let lo = j + 1;
      let hi = endRow;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (b.start[mid]! < target) lo = mid + 1;
        else hi = mid;
      }
      const last = lo - 1; // the last box starting before target
      if (last > j + 1) {
        run.w = Math.max(run.w, Math.min(width, (b.start[last]! - from) * k) - run.x);
        run.merged = true;
        // the boxes skipped are all within this pixel: of one function when the first, the one
        // before the last and the last of them are (a pixel shows one colour either way)
        if (b.name[j + 1] !== b.name[run.box] || b.name[last - 1] !== b.name[run.box]) run.mixed = true;
        j = last - 1;
      }
    }
    if (run) out.push(run);
  }
  return out;
}
