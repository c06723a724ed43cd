// Views and transforms of call stacks, pure: the flame tree taken apart into its stacks (one per
// node with samples of its own), transformed, and built back into a tree in either order; the
// inverted (bottom-up) rows and the sandwich of one function. Tests in flameStacks.test.ts, with
// golden values checked against the folded stacks of a real capture (testdata/stacks-xfs.folded).
//
// - Order: 'name' sorts siblings by name (inferno's folded order, the API's); 'heavy' puts the
//   heaviest sibling first, left (speedscope's "left heavy").
// - Transforms (Firefox Profiler's), applied in their order, each on one function name; the first
//   frame of a stack is the task's command name, not a function, and no transform touches it:
//     focus  the function as the root: samples without it go, the frames above its outermost call go
//     merge  its frames go; their samples become their callers' own
//     drop   samples with the function anywhere go
//     rec    recursion collapsed: between its outermost and innermost call, frames go (A F B F C -> A F C)
//     drec   direct recursion collapsed: a run of consecutive frames of the function becomes one
//            (A F F F B F C -> A F B F C); Firefox Profiler's "collapse direct recursion only". On
//            `[unknown]` it collapses the chains perf's frame-pointer unwinder makes in code built
//            without frame pointers (fio's user stacks: up to 126 of them, to perf's depth limit).
//            Each frame left keeps how many frames it stands for (`span`), for the tooltips.
// - Inverted rows (`callerRows`): for a chain of functions, leaf first (F, then F's caller G, ...),
//   one row per caller C of the chain: self = samples whose stack ends in C;...;G;F, total =
//   samples with C;...;G;F anywhere in the stack (each sample once). The empty chain gives one row
//   per function: self (the stack ends in it) and total (anywhere in it).
// - Sandwich (`sandwich`): a function's callers (the stacks up to its innermost call, reversed)
//   and callees (the stacks from its outermost call) as two trees rooted at the function, merged
//   over every place it appears; both weigh the function's total.
import { ROOT_NAME, structure } from './flame';

export type FlameOrder = 'name' | 'heavy';
export type TransformOp = 'focus' | 'merge' | 'drop' | 'rec' | 'drec';
export interface Transform {
  op: TransformOp;
  name: string;
}

export const TRANSFORM_LABEL: Record<TransformOp, string> = {
  focus: 'Focus on',
  merge: 'Merge into callers',
  drop: 'Drop samples with',
  rec: 'Collapse recursion of',
  drec: 'Collapse direct recursion of',
};

/** The tree as columns in pre-order (the API's FlameTree), with each node's own samples. */
export interface StackTree {
  names: string[];
  name: ArrayLike<number>;
  depth: ArrayLike<number>;
  self: ArrayLike<number>;
  samples: ArrayLike<number>;
}

export interface Stacks {
  names: string[];
  /** Frames of every stack, root side first, the tree's root excluded; stack k is frames[start[k] .. start[k + 1]]. */
  frames: Int32Array;
  start: Int32Array;
  weight: Float64Array;
  samples: Float64Array;
  /** The first frame of a stack is its task's command name (false once focused on a function). */
  comm: boolean;
  /** Name of the root (ROOT_NAME, or the function of a sandwich half). */
  root: string;
  /** How many frames of the stacks as recorded each frame stands for (parallel to frames; absent:
   *  one each). Set by a `drec` transform, kept by the others and by the sandwich's halves. */
  span?: Int32Array;
}

/** The stacks of a tree: one per node with a weight or samples of its own. */
export function stacksFromTree(t: StackTree): Stacks {
  const n = t.depth.length;
  const frames: number[] = [];
  const start: number[] = [0];
  const weight: number[] = [];
  const samples: number[] = [];
  const path: number[] = [];
  for (let i = 0; i < n; i++) {
    const d = t.depth[i]!;
    if (i > 0) {
      path.length = d - 1;
      path.push(t.name[i]!);
    }
    if (t.self[i]! > 0 || t.samples[i]! > 0) {
      for (const f of path) frames.push(f);
      start.push(frames.length);
      weight.push(t.self[i]!);
      samples.push(t.samples[i]!);
    }
  }
  return { names: t.names, frames: Int32Array.from(frames), start: Int32Array.from(start), weight: Float64Array.from(weight), samples: Float64Array.from(samples), comm: true, root: t.names[t.name[0] ?? 0] ?? ROOT_NAME };
}

export interface BuiltTree {
  names: string[];
  name: Int32Array;
  depth: Int32Array;
  self: Float64Array;
  samples: Float64Array;
  /** Of stacks with spans: the fewest and most frames as recorded each node stands for. */
  span?: { min: Int32Array; max: Int32Array };
}

/** Pre-order columns of a tree given as parent links (parent index below the child's), siblings in `order`. */
function emit(names: string[], nameOf: ArrayLike<number>, parentOf: ArrayLike<number>, self: ArrayLike<number>, samples: ArrayLike<number>, order: FlameOrder, span?: { min: ArrayLike<number>; max: ArrayLike<number> }): BuiltTree {
  const n = nameOf.length;
  const total = Float64Array.from(self);
  for (let i = n - 1; i > 0; i--) total[parentOf[i]!]! += total[i]!;
  const count = new Int32Array(n);
  for (let i = 1; i < n; i++) count[parentOf[i]!]!++;
  const first = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) first[i + 1] = first[i]! + count[i]!;
  const fill = first.slice(0, n);
  const kids = new Int32Array(Math.max(0, n - 1));
  for (let i = 1; i < n; i++) kids[fill[parentOf[i]!]!++] = i;
  const byName = (a: number, b: number) => {
    const x = names[nameOf[a]!]!;
    const y = names[nameOf[b]!]!;
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const cmp = order === 'heavy' ? (a: number, b: number) => total[b]! - total[a]! || byName(a, b) : byName;
  for (let i = 0; i < n; i++) if (count[i]! > 1) kids.subarray(first[i]!, first[i + 1]!).sort(cmp);
  const out: BuiltTree = { names, name: new Int32Array(n), depth: new Int32Array(n), self: new Float64Array(n), samples: new Float64Array(n) };
  const outSpan = span ? { min: new Int32Array(n), max: new Int32Array(n) } : undefined;
  if (outSpan) out.span = outSpan;
  const stack: number[] = [0];
  const depthOf = new Int32Array(n);
  let k = 0;
  while (stack.length) {
    const i = stack.pop()!;
    out.name[k] = nameOf[i]!;
    out.depth[k] = depthOf[i]!;
    out.self[k] = self[i]!;
    out.samples[k] = samples[i]!;
    if (outSpan) {
      outSpan.min[k] = span!.min[i]!;
      outSpan.max[k] = span!.max[i]!;
    }
    k++;
    for (let j = first[i + 1]! - 1; j >= first[i]!; j--) {
      const c = kids[j]!;
      depthOf[c] = depthOf[i]! + 1;
      stack.push(c);
    }
  }
  return out;
}

/** The same tree with its siblings in another order (no stack taken apart). */
export function reorderTree(t: StackTree, order: FlameOrder): BuiltTree {
  const { parent } = structure(t.depth);
  return emit(t.names, t.name, parent, t.self, t.samples, order);
}

/** Stacks merged into a tree (a trie), siblings in `order`. */
export function treeFromStacks(s: Stacks, order: FlameOrder): BuiltTree {
  const names = s.names.includes(s.root) ? s.names : [...s.names, s.root];
  const nameOf: number[] = [names.indexOf(s.root)];
  const parentOf: number[] = [-1];
  const self: number[] = [0];
  const samples: number[] = [0];
  const child: Map<number, number>[] = [new Map()];
  const sp = s.span;
  const spanMin: number[] = [1];
  const spanMax: number[] = [1];
  for (let k = 0; k + 1 < s.start.length; k++) {
    let node = 0;
    for (let p = s.start[k]!; p < s.start[k + 1]!; p++) {
      const f = s.frames[p]!;
      let c = child[node]!.get(f);
      if (c === undefined) {
        c = nameOf.length;
        nameOf.push(f);
        parentOf.push(node);
        self.push(0);
        samples.push(0);
        child.push(new Map());
        child[node]!.set(f, c);
        if (sp) {
          spanMin.push(sp[p]!);
          spanMax.push(sp[p]!);
        }
      } else if (sp) {
        if (sp[p]! < spanMin[c]!) spanMin[c] = sp[p]!;
        if (sp[p]! > spanMax[c]!) spanMax[c] = sp[p]!;
      }
      node = c;
    }
    self[node]! += s.weight[k]!;
    samples[node]! += s.samples[k]!;
  }
  return emit(names, nameOf, parentOf, self, samples, order, sp ? { min: spanMin, max: spanMax } : undefined);
}

// --- transforms ------------------------------------------------------------------------------

/** The frame perf names a return address it cannot symbolise (and stackcollapse/inferno keep). */
export const UNKNOWN = '[unknown]';

/** The longest run of consecutive `[unknown]` frames in a tree's stacks (0: none; 1: no run to
 *  collapse): perf's frame-pointer unwinder walking code built without frame pointers. One pass. */
export function unknownRun(t: { names: { indexOf(n: string): number }; name: ArrayLike<number>; depth: ArrayLike<number> }): number {
  const u = t.names.indexOf(UNKNOWN);
  if (u < 0) return 0;
  const run: number[] = [0];
  let most = 0;
  for (let i = 1; i < t.depth.length; i++) {
    const d = t.depth[i]!;
    const r = t.name[i] === u ? run[d - 1]! + 1 : 0;
    run[d] = r;
    if (r > most) most = r;
  }
  return most;
}


/** Apply the transforms in order; `missing` lists the ones whose function is not in the stacks. */
export function applyTransforms(s: Stacks, list: readonly Transform[]): { stacks: Stacks; missing: Transform[] } {
  const missing: Transform[] = [];
  let cur = s;
  for (const t of list) {
    const f = cur.names.indexOf(t.name);
    const lo = cur.comm ? 1 : 0;
    let present = false;
    if (f >= 0)
      for (let k = 0; k + 1 < cur.start.length && !present; k++)
        for (let p = cur.start[k]! + lo; p < cur.start[k + 1]!; p++)
          if (cur.frames[p] === f) {
            present = true;
            break;
          }
    if (!present) {
      missing.push(t);
      continue;
    }
    cur = transform(cur, t.op, f);
  }
  return { stacks: cur, missing };
}

function transform(s: Stacks, op: TransformOp, f: number): Stacks {
  const frames: number[] = [];
  // how many recorded frames each kept frame stands for: kept when the stacks have it, made by drec
  const sp = s.span;
  const span: number[] | null = sp || op === 'drec' ? [] : null;
  const keep = (p: number) => {
    frames.push(s.frames[p]!);
    if (span) span.push(sp ? sp[p]! : 1);
  };
  const start: number[] = [0];
  const weight: number[] = [];
  const samples: number[] = [];
  const lo = s.comm ? 1 : 0;
  for (let k = 0; k + 1 < s.start.length; k++) {
    const a = s.start[k]!;
    const b = s.start[k + 1]!;
    let firstAt = -1;
    let lastAt = -1;
    for (let p = a + lo; p < b; p++)
      if (s.frames[p] === f) {
        if (firstAt < 0) firstAt = p;
        lastAt = p;
      }
    if (op === 'focus') {
      if (firstAt < 0) continue;
      for (let p = firstAt; p < b; p++) keep(p);
    } else if (op === 'drop') {
      if (firstAt >= 0) continue;
      for (let p = a; p < b; p++) keep(p);
    } else if (op === 'merge') {
      for (let p = a; p < b; p++) if (p < a + lo || s.frames[p] !== f) keep(p);
    } else if (op === 'rec') {
      for (let p = a; p < b; p++) if (firstAt < 0 || p <= firstAt || p > lastAt) keep(p);
    } else {
      // drec: a frame of f right after a frame of f (from its first call on) joins that one
      for (let p = a; p < b; p++)
        if (p <= firstAt || s.frames[p] !== f || s.frames[p - 1] !== f) keep(p);
        else span![span!.length - 1]! += sp ? sp[p]! : 1;
    }
    start.push(frames.length);
    weight.push(s.weight[k]!);
    samples.push(s.samples[k]!);
  }
  const out: Stacks = { ...s, frames: Int32Array.from(frames), start: Int32Array.from(start), weight: Float64Array.from(weight), samples: Float64Array.from(samples), comm: s.comm && op !== 'focus' };
  if (span) out.span = Int32Array.from(span);
  return out;
}

// --- inverted rows and sandwich ----------------------------------------------------------------

export interface CallerRow {
  /** Name id (in stacks.names). */
  name: number;
  self: number;
  total: number;
  selfSamples: number;
  totalSamples: number;
}

/**
 * The callers of a chain (name ids, leaf first): one row per caller, its self and total (see the
 * header). The empty chain: one row per function (command names excluded).
 */
export function callerRows(s: Stacks, chain: readonly number[]): CallerRow[] {
  const m = s.names.length;
  const self = new Float64Array(m);
  const total = new Float64Array(m);
  const selfN = new Float64Array(m);
  const totalN = new Float64Array(m);
  const stamp = new Int32Array(m).fill(-1);
  const seen = new Uint8Array(m);
  const k = chain.length;
  const lo = s.comm ? 1 : 0;
  for (let st = 0; st + 1 < s.start.length; st++) {
    const a = s.start[st]!;
    const b = s.start[st + 1]!;
    const w = s.weight[st]!;
    const n = s.samples[st]!;
    if (k === 0) {
      for (let p = a + lo; p < b; p++) {
        const c = s.frames[p]!;
        seen[c] = 1;
        if (stamp[c] !== st) {
          stamp[c] = st;
          total[c]! += w;
          totalN[c]! += n;
        }
      }
      if (b - a > lo) {
        const c = s.frames[b - 1]!;
        self[c]! += w;
        selfN[c]! += n;
      }
      continue;
    }
    // occurrences of the chain ending at p (frames[p] = chain[0], frames[p - 1] = chain[1], ...)
    for (let p = a + k; p < b; p++) {
      if (s.frames[p] !== chain[0]) continue;
      let ok = true;
      for (let j = 1; j < k && ok; j++) ok = s.frames[p - j] === chain[j];
      if (!ok) continue;
      const c = s.frames[p - k]!;
      seen[c] = 1;
      if (stamp[c] !== st) {
        stamp[c] = st;
        total[c]! += w;
        totalN[c]! += n;
      }
      if (p === b - 1) {
        self[c]! += w;
        selfN[c]! += n;
      }
    }
  }
  const rows: CallerRow[] = [];
  for (let c = 0; c < m; c++) if (seen[c]) rows.push({ name: c, self: self[c]!, total: total[c]!, selfSamples: selfN[c]!, totalSamples: totalN[c]! });
  return rows;
}

export type RowKey = 'self' | 'total' | 'name';

/** Rows sorted by a key, largest first (names: A to Z), ties by the other number then the name. */
export function sortRows<R extends { self: number; total: number }>(rows: R[], by: RowKey, nameOf: (r: R) => string): R[] {
  const byName = (p: R, q: R) => {
    const x = nameOf(p);
    const y = nameOf(q);
    return x < y ? -1 : x > y ? 1 : 0;
  };
  if (by === 'name') return [...rows].sort(byName);
  const o = by === 'self' ? 'total' : 'self';
  return [...rows].sort((p, q) => q[by] - p[by] || q[o] - p[o] || byName(p, q));
}

export interface Sandwich {
  /** The function's self and total weight and samples. */
  self: number;
  total: number;
  selfSamples: number;
  totalSamples: number;
  /** Callers: the stacks above its innermost call, reversed (its caller first), rooted at it. */
  callers: Stacks;
  /** Callees: the stacks below its outermost call, rooted at it. */
  callees: Stacks;
  /** The names that are task command names (the callers' last frames, when the stacks have them):
   *  drawn grey, as in the flame graph, where every other frame is a function. */
  commands: ReadonlySet<number>;
}

/** The sandwich of a function, or null when no stack holds it. */
export function sandwich(s: Stacks, fname: string): Sandwich | null {
  const f = s.names.indexOf(fname);
  if (f < 0) return null;
  const lo = s.comm ? 1 : 0;
  const sp = s.span;
  const up = { frames: [] as number[], start: [0], weight: [] as number[], samples: [] as number[], span: [] as number[] };
  const down = { frames: [] as number[], start: [0], weight: [] as number[], samples: [] as number[], span: [] as number[] };
  let self = 0;
  let total = 0;
  let selfN = 0;
  let totalN = 0;
  const commands = new Set<number>();
  for (let k = 0; k + 1 < s.start.length; k++) {
    const a = s.start[k]!;
    const b = s.start[k + 1]!;
    let firstAt = -1;
    let lastAt = -1;
    for (let p = a + lo; p < b; p++)
      if (s.frames[p] === f) {
        if (firstAt < 0) firstAt = p;
        lastAt = p;
      }
    if (firstAt < 0) continue;
    if (lo) commands.add(s.frames[a]!);
    const w = s.weight[k]!;
    const n = s.samples[k]!;
    total += w;
    totalN += n;
    if (lastAt === b - 1) {
      self += w;
      selfN += n;
    }
    for (let p = lastAt - 1; p >= a; p--) {
      up.frames.push(s.frames[p]!);
      if (sp) up.span.push(sp[p]!);
    }
    up.start.push(up.frames.length);
    up.weight.push(w);
    up.samples.push(n);
    for (let p = firstAt + 1; p < b; p++) {
      down.frames.push(s.frames[p]!);
      if (sp) down.span.push(sp[p]!);
    }
    down.start.push(down.frames.length);
    down.weight.push(w);
    down.samples.push(n);
  }
  if (totalN === 0 && total === 0) return null;
  const half = (h: typeof up): Stacks => ({ names: s.names, frames: Int32Array.from(h.frames), start: Int32Array.from(h.start), weight: Float64Array.from(h.weight), samples: Float64Array.from(h.samples), comm: false, root: fname, ...(sp ? { span: Int32Array.from(h.span) } : {}) });
  return { self, total, selfSamples: selfN, totalSamples: totalN, callers: half(up), callees: half(down), commands };
}

/** Total weight of a set of stacks. */
export function stacksWeight(s: Stacks): number {
  let w = 0;
  for (const x of s.weight) w += x;
  return w;
}
