// Flame graph layout, pure: the API's pre-order tree columns in, typed arrays and the list of
// rectangles to draw out. Tests in flame.test.ts (on text fixtures: a column of frames per sample).
//
// - Layout: D3's partition (x0/x1 of every node in [0, 1], children in the API's order: sorted
//   by name, as inferno sorts folded stacks), computed in place over typed arrays (the same
//   floats as d3-hierarchy, tested) so that a layout or a frame of 500k nodes is a loop over numbers.
// - Drawing list (`visibleRects`): the zoomed node full width with its ancestors, its subtree
//   through a d3 linear scale; runs of sibling frames narrower than a pixel are merged into one
//   block and their subtrees skipped, so the work of a frame is bounded by the pixels, not the
//   nodes (DESIGN: d3-flame-graph's SVG needs 2.4 s for 50k nodes).
// - Search (`searchMatches`): a regular expression tested once per distinct name; the share
//   matched counts each sample once (a match inside a match is not added again).
// - Top functions (`topFunctions`): self and total per function under a node, total counted once
//   per sample where a function recurses. Command names (depth 1) are not functions.
// - Colours and the rectangles drawn: the same as the backend's SVG export (its rules in
//   backend/iolens/store/rules/flame.py); both test testdata/vectors/flame.json.
import { Names } from './flameNames';

export const ROOT_NAME = 'all';
/** Frames narrower than this (CSS px) are merged with their narrow siblings. */
export const MIN_PX = 1;

/** The tree as the API sends it (FlameTree): pre-order columns. */
export interface TreeColumns {
  /** A list, or the columns answer's table (flameNames.ts). */
  names: Names | string[];
  name: ArrayLike<number>;
  depth: ArrayLike<number>;
  /** The value that gives widths: self weight per node. */
  self: ArrayLike<number>;
}

export interface FlameLayout {
  /** The frame names by id (lay.names.get(lay.name[node])): strings made when read. */
  names: Names;
  n: number;
  name: Int32Array;
  depth: Uint16Array;
  parent: Int32Array;
  /** Index after the node's last descendant (pre-order). */
  end: Int32Array;
  self: Float64Array;
  total: Float64Array;
  /**
   * The node's extent in [0, 1], set when its parent's children are placed (`placeChildren`):
   * visibleRects places the nodes it draws, `placeAll` every node. Read them only through those.
   */
  x0: Float64Array;
  x1: Float64Array;
  /** 1 once the node's children have their x0/x1. */
  placed: Uint8Array;
  maxDepth: number;
}

/** Parent and subtree end of pre-order nodes given their depths. */
export function structure(depth: ArrayLike<number>): { parent: Int32Array; end: Int32Array } {
  const n = depth.length;
  const parent = new Int32Array(n);
  const end = new Int32Array(n);
  walk(depth, parent, end);
  return { parent, end };
}

/** One pass over pre-order depths: each node's parent and subtree end; returns the deepest depth. */
function walk(depth: ArrayLike<number>, parent: Int32Array, end: Int32Array): number {
  const n = depth.length;
  // the open node at each depth, down to `top` (a pre-order depth is at most its index)
  let open = new Int32Array(Math.min(n, 256) + 1);
  let top = -1;
  let maxDepth = 0;
  for (let i = 0; i < n; i++) {
    const d = depth[i]!;
    if (d >= open.length) {
      const more = new Int32Array(Math.min(n, 2 * d) + 1);
      more.set(open);
      open = more;
    }
    for (; top >= d; top--) end[open[top]!] = i;
    parent[i] = d > 0 ? open[d - 1]! : -1;
    open[d] = i;
    top = d;
    if (d > maxDepth) maxDepth = d;
  }
  for (; top >= 0; top--) end[open[top]!] = n;
  return maxDepth;
}

/**
 * Lay the tree out as d3-hierarchy's partition does (root.sum of the self values, then
 * partition().size([1, 1]): each parent's [x0, x1] cut among its children in order by
 * treemapDice, `x0 += value * k` with k = (x1 - x0) / value), with the same arithmetic in the same
 * order, so the x0/x1 are the very floats d3 gives (flame.test.ts compares them); but over typed
 * arrays in pre-order, without a node object per frame: ~100x faster at 450k nodes. One pass
 * makes the structure, one the totals; the x extents are made per parent when first drawn
 * (`placeChildren`): a first paint of 450k nodes draws a few thousand.
 */
export function layoutTree(t: TreeColumns): FlameLayout {
  const n = t.depth.length;
  const depth = new Uint16Array(t.depth);
  const self = new Float64Array(t.self);
  const parent = new Int32Array(n);
  const end = new Int32Array(n);
  const maxDepth = walk(depth, parent, end);
  // totals as d3's sum makes them (a node's own value, then its children's from the last one):
  // the same floats even past 2^53
  const total = new Float64Array(self);
  for (let i = n - 1; i > 0; i--) total[parent[i]!]! += total[i]!;
  const x0 = new Float64Array(n);
  const x1 = new Float64Array(n);
  if (n > 0) x1[0] = 1;
  const names = t.names instanceof Names ? t.names : Names.of(t.names);
  return { names, n, name: new Int32Array(t.name), depth, parent, end, self, total, x0, x1, placed: new Uint8Array(n), maxDepth };
}

/** Give node i's children their x extents (once; i's own must be set: its parent's placed). */
export function placeChildren(lay: FlameLayout, i: number): void {
  if (lay.placed[i]) return;
  lay.placed[i] = 1;
  const { x0, x1, total, end } = lay;
  const stop = end[i]!;
  const v = total[i]!;
  const k = v && (x1[i]! - x0[i]!) / v;
  let x = x0[i]!;
  for (let c = i + 1; c < stop; c = end[c]!) {
    x0[c] = x;
    x += total[c]! * k;
    x1[c] = x;
  }
}

/** Place node's ancestors' children, root first, so that node's x extent is set. */
export function placeNode(lay: FlameLayout, node: number): void {
  const path: number[] = [];
  for (let a = lay.parent[node]!; a >= 0 && !lay.placed[a]; a = lay.parent[a]!) path.push(a);
  for (let k = path.length - 1; k >= 0; k--) placeChildren(lay, path[k]!);
}

/** Every node's x extent (tests and readers of the whole layout). */
export function placeAll(lay: FlameLayout): FlameLayout {
  for (let i = 0; i < lay.n; i++) if (lay.end[i]! > i + 1) placeChildren(lay, i);
  return lay;
}

export interface Rect {
  x: number;
  w: number;
  depth: number;
  /** Node index; -1 for a block of merged narrow frames. */
  node: number;
  /** Frames merged into a block. */
  merged: number;
}

/** What to draw at this width with `zoom` as the full-width node. */
export function visibleRects(lay: FlameLayout, zoom: number, width: number, minPx = MIN_PX): Rect[] {
  const out: Rect[] = [];
  for (let a = lay.parent[zoom]!; a >= 0; a = lay.parent[a]!) out.push({ x: 0, w: width, depth: lay.depth[a]!, node: a, merged: 0 });
  out.reverse();
  if (lay.total[zoom]! <= 0) return out;
  placeNode(lay, zoom);
  placeChildren(lay, zoom);
  // d3's scaleLinear().domain([x0, x1]).range([0, width]), the same arithmetic (x1 > x0 as the
  // zoomed node has samples), without d3-scale on the page's first paint
  const x0 = lay.x0[zoom]!;
  const span = lay.x1[zoom]! - x0;
  const x = (v: number) => width * ((v - x0) / span);
  const k = width / (lay.x1[zoom]! - lay.x0[zoom]!);
  out.push({ x: 0, w: width, depth: lay.depth[zoom]!, node: zoom, merged: 0 });
  const stop = lay.end[zoom]!;
  let i = zoom + 1;
  while (i < stop) {
    const w = (lay.x1[i]! - lay.x0[i]!) * k;
    if (w >= minPx - 1e-9) {
      out.push({ x: x(lay.x0[i]!), w, depth: lay.depth[i]!, node: i, merged: 0 });
      if (lay.end[i]! > i + 1) placeChildren(lay, i);
      i++;
      continue;
    }
    // merge this frame with its following narrow siblings; skip their subtrees
    const d = lay.depth[i]!;
    const p = lay.parent[i]!;
    const start = lay.x0[i]!;
    let j = i;
    let endX = start;
    let merged = 0;
    while (j < stop && lay.depth[j]! === d && lay.parent[j]! === p && (lay.x1[j]! - lay.x0[j]!) * k < minPx - 1e-9) {
      endX = lay.x1[j]!;
      merged++;
      j = lay.end[j]!;
    }
    if ((endX - start) * k >= 0.5) out.push({ x: x(start), w: (endX - start) * k, depth: d, node: -1, merged });
    i = j;
  }
  return out;
}

/** The deepest depth among rects (rows to draw). */
export function rectsDepth(rects: readonly Rect[]): number {
  let m = 0;
  for (const r of rects) if (r.depth > m) m = r.depth;
  return m;
}

/** The rect under (px, row) where row is the depth, or null. Rects of a depth are in x order. */
export function hitTest(rects: readonly Rect[], px: number, depth: number): Rect | null {
  for (const r of rects) if (r.depth === depth && px >= r.x && px < r.x + r.w) return r;
  return null;
}

// --- zoom paths (the URL holds the zoomed frame as its names from the root) -----------------

/** Frame names from the root (excluded) to node. */
export function pathOf(lay: FlameLayout, node: number): string[] {
  const out: string[] = [];
  for (let i = node; i > 0; i = lay.parent[i]!) out.push(lay.names.get(lay.name[i]!)!);
  return out.reverse();
}

/** The node at the end of path, or the deepest one that exists; `missing` is what was not found. */
export function findPath(lay: FlameLayout, path: readonly string[]): { node: number; missing: string[] } {
  let node = 0;
  for (let k = 0; k < path.length; k++) {
    let found = -1;
    for (let i = node + 1; i < lay.end[node]!; i = lay.end[i]!) {
      if (lay.names.get(lay.name[i]!) === path[k] && lay.total[i]! > 0) {
        found = i;
        break;
      }
    }
    if (found < 0) return { node, missing: path.slice(k) };
    node = found;
  }
  return { node, missing: [] };
}

// --- search -----------------------------------------------------------------------------------

export type SearchResult = { ok: true; match: Uint8Array | null } | { ok: false; error: string };

const REGEX_SYNTAX = /[\\^$.*+?()[\]{}|]/;

// The last searches per list of names: a keystroke that extends a plain-text search only tests
// the names the shorter one matched, and a backspace finds its answer here.
const searches = new WeakMap<Names | readonly string[], Map<string, Uint8Array>>();

/**
 * Per distinct name, 1 when it matches the regular expression (null: no search). Plain text (no
 * regular-expression syntax) is a substring test, narrowed from the matches of a kept search
 * whose text it contains (a table of names: one search of their joined text); results are kept
 * per names list or table (the last 16 patterns).
 */
export function searchMatches(table: Names | readonly string[], pattern: string): SearchResult {
  if (!pattern) return { ok: true, match: null };
  let kept = searches.get(table);
  const hit = kept?.get(pattern);
  if (hit) return { ok: true, match: hit };
  let rx: RegExp;
  try {
    rx = new RegExp(pattern);
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
  let match: Uint8Array = new Uint8Array(table.length);
  if (!REGEX_SYNTAX.test(pattern)) {
    // the matches of a kept plain-text search contained in this one hold every match of this one
    let from: Uint8Array | null = null;
    let best = -1;
    for (const [p, m] of kept ?? []) {
      if (p.length > best && !REGEX_SYNTAX.test(p) && pattern.includes(p)) {
        from = m;
        best = p.length;
      }
    }
    if (table instanceof Names) match = table.containing(pattern, from);
    else for (let i = 0; i < table.length; i++) if ((from === null || from[i]) && table[i]!.includes(pattern)) match[i] = 1;
  } else {
    const names = table instanceof Names ? table.all() : table;
    for (let i = 0; i < names.length; i++) match[i] = rx.test(names[i]!) ? 1 : 0;
  }
  if (!kept) searches.set(table, (kept = new Map()));
  if (kept.size >= 16) kept.delete(kept.keys().next().value!);
  kept.set(pattern, match);
  return { ok: true, match };
}

/** Weight under matching frames of root's subtree, each sample once. */
export function matchedWeight(lay: FlameLayout, match: Uint8Array, root = 0): number {
  let sum = 0;
  const stop = lay.end[root]!;
  for (let i = root; i < stop; ) {
    if (i > 0 && match[lay.name[i]!]) {
      sum += lay.total[i]!;
      i = lay.end[i]!;
    } else i++;
  }
  return sum;
}

// --- top functions ----------------------------------------------------------------------------

/**
 * Samples under each node (the node's own and its subtree's), from the pre-order depth column
 * and each node's own samples.
 */
export function subtreeSums(depth: readonly number[], self: readonly number[]): Float64Array {
  const out = Float64Array.from(self);
  const stack: number[] = [];
  const parent = new Int32Array(depth.length).fill(-1);
  for (let i = 0; i < depth.length; i++) {
    while (stack.length > 0 && depth[stack[stack.length - 1]!]! >= depth[i]!) stack.pop();
    if (stack.length) parent[i] = stack[stack.length - 1]!;
    stack.push(i);
  }
  for (let i = depth.length - 1; i > 0; i--) out[parent[i]!]! += out[i]!;
  return out;
}

/** Per node of lay: the sum of a per-node column over its subtree (lay's parents: no second pass over the depths). */
export function subtreeTotals(lay: FlameLayout, self: ArrayLike<number>): Float64Array {
  const out = Float64Array.from(self);
  for (let i = lay.n - 1; i > 0; i--) out[lay.parent[i]!]! += out[i]!;
  return out;
}

/** The command names of a tree (its depth-1 frames), most samples first. */
export function commsOf(lay: FlameLayout, current: string | null): string[] {
  const out: [string, number][] = [];
  for (let i = 1; i < lay.n; i = lay.end[i]!) out.push([lay.names.get(lay.name[i]!)!, lay.total[i]!]);
  const names = out.sort((p, q) => q[1] - p[1]).map((x) => x[0]);
  return current !== null && !names.includes(current) ? [current, ...names] : names;
}

export interface FunctionRow {
  name: string;
  self: number;
  total: number;
}

/** Self and total weight per function in root's subtree (command names excluded: nodes above fnDepth), sorted by key. */
export function topFunctions(lay: FlameLayout, root = 0, by: 'self' | 'total' | 'name' = 'self', limit = 50, fnDepth = 2): FunctionRow[] {
  const work = topFunctionsWork(lay, root, by, limit, fnDepth);
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

/** Nodes or functions between two pauses of topFunctionsWork. */
export const TOP_STEP = 4096;

/**
 * topFunctions in steps: the same work (and rows), pausing (yield) after every TOP_STEP nodes or
 * functions, so a page can spread a large subtree's table over several tasks (SingleView.tsx).
 */
export function* topFunctionsWork(lay: FlameLayout, root = 0, by: 'self' | 'total' | 'name' = 'self', limit = 50, fnDepth = 2): Generator<void, FunctionRow[], void> {
  const selfBy = new Float64Array(lay.names.length);
  const totalBy = new Float64Array(lay.names.length);
  const seen = new Uint8Array(lay.names.length);
  const onPath = new Int32Array(lay.names.length);
  const stack: number[] = [];
  const stop = lay.end[root]!;
  for (let i = root; i < stop; i++) {
    const d = lay.depth[i]!;
    while (stack.length > 0 && lay.depth[stack[stack.length - 1]!]! >= d) onPath[lay.name[stack.pop()!]!]!--;
    const nm = lay.name[i]!;
    if (d >= fnDepth) {
      if (onPath[nm] === 0) totalBy[nm]! += lay.total[i]!;
      selfBy[nm]! += lay.self[i]!;
      seen[nm] = 1;
    }
    onPath[nm]!++;
    stack.push(i);
    if ((i - root) % TOP_STEP === TOP_STEP - 1) yield;
  }
  const name = (k: number) => lay.names.get(k)!;
  const byName = (p: FunctionRow, q: FunctionRow) => (p.name < q.name ? -1 : p.name > q.name ? 1 : 0);
  if (by === 'name') {
    const rows: FunctionRow[] = [];
    for (let k = 0; k < lay.names.length; k++) if (seen[k]) rows.push({ name: name(k), self: selfBy[k]!, total: totalBy[k]! });
    yield;
    return rows.sort(byName).slice(0, limit);
  }
  // the first `limit` in the order (key desc, the other key desc, name), kept in a heap whose top
  // is the last of them: O(functions * log limit), not a sort of every function
  const ka = by === 'self' ? selfBy : totalBy;
  const kb = by === 'self' ? totalBy : selfBy;
  const cmp = (p: number, q: number) => ka[q]! - ka[p]! || kb[q]! - kb[p]! || lay.names.compare(p, q);
  const heap: number[] = [];
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let w = i;
      if (l < heap.length && cmp(heap[l]!, heap[w]!) > 0) w = l;
      if (r < heap.length && cmp(heap[r]!, heap[w]!) > 0) w = r;
      if (w === i) return;
      [heap[i], heap[w]] = [heap[w]!, heap[i]!];
      i = w;
    }
  };
  for (let k = 0; k < lay.names.length && limit > 0; k++) {
    if (k % TOP_STEP === TOP_STEP - 1) yield;
    if (!seen[k]) continue;
    if (heap.length < limit) {
      heap.push(k);
      for (let i = heap.length - 1; i > 0; ) {
        const p = (i - 1) >> 1;
        if (cmp(heap[i]!, heap[p]!) <= 0) break;
        [heap[i], heap[p]] = [heap[p]!, heap[i]!];
        i = p;
      }
    } else if (cmp(k, heap[0]!) < 0) {
      heap[0] = k;
      down(0);
    }
  }
  yield;
  return heap.sort(cmp).map((k) => ({ name: name(k), self: selfBy[k]!, total: totalBy[k]! }));
}

// --- colours (same as backend/iolens/views/flame_svg.py) --------------------------------------

export function fnv1a(text: string): number {
  let h = 2166136261;
  for (const ch of text) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h >>> 0;
}

export type Rgb = [number, number, number];

/** One of 64 warm colours, picked by the name's hash (few distinct fills: the canvas draws one path per fill). */
export function frameRgb(name: string): Rgb {
  const k = fnv1a(name) % 64;
  const lo = (k % 8) * 8192 + 4096;
  const hi = Math.floor(k / 8) * 8192 + 4096;
  return [232 + Math.floor((20 * hi) / 65536), 128 + Math.floor((92 * lo) / 65536), 64 + Math.floor((48 * hi) / 65536)];
}

/** 60% towards white: frames that do not match the search. */
export const dim = (c: Rgb): Rgb => [Math.floor((2 * c[0] + 765) / 5), Math.floor((2 * c[1] + 765) / 5), Math.floor((2 * c[2] + 765) / 5)];

export const hex = (c: Rgb): string => '#' + c.map((v) => v.toString(16).padStart(2, '0')).join('');

export const GREY = '#d5d9de';
export const MATCH = '#b44fcf';
export const MERGED = '#c9ccd1';

// --- text fixtures (Firefox Profiler style): a column of frames per sample ---------------------

/**
 * Samples written as columns, root at the top:
 *
 *     fio        fio       kworker
 *     entry      entry     worker
 *     vfs_write  vfs_read
 *
 * A column starts where a token of the first line starts; a token belongs to the column whose
 * start is the nearest at or before it. `name*3` weighs a sample 3. Returns folded stacks.
 */
export function foldedFromText(text: string): Map<string, number> {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const tokens = (line: string) => [...line.matchAll(/\S+/g)].map((m) => ({ at: m.index, text: m[0] }));
  const head = tokens(lines[0] ?? '');
  const columns: string[][] = head.map(() => []);
  const weights = head.map(() => 1);
  for (const line of lines) {
    for (const tok of tokens(line)) {
      let c = -1;
      for (let k = 0; k < head.length; k++) if (head[k]!.at <= tok.at) c = k;
      if (c < 0) throw new Error(`fixture: '${tok.text}' starts before the first column`);
      const m = /^(.*)\*(\d+)$/.exec(tok.text);
      if (m) weights[c] = Number(m[2]);
      columns[c]!.push(m ? m[1]! : tok.text);
    }
  }
  const out = new Map<string, number>();
  columns.forEach((frames, c) => {
    const key = frames.join(';');
    out.set(key, (out.get(key) ?? 0) + weights[c]!);
  });
  return out;
}

/** Folded stacks -> the API's tree columns (the backend's build_tree, for tests and fixtures). */
export function treeFromFolded(stacks: Map<string, number> | Map<string, number[]>, columns = 1): { names: string[]; name: number[]; depth: number[]; values: number[][] } {
  const names = new Map<string, number>([[ROOT_NAME, 0]]);
  const name = [0];
  const depth = [0];
  const values: number[][] = Array.from({ length: columns }, () => [0]);
  const key = (s: string) => s.split(';').join('\u0000');
  const entries = [...stacks.entries()].sort((a, b) => (key(a[0]) < key(b[0]) ? -1 : key(a[0]) > key(b[0]) ? 1 : 0));
  let path: string[] = [];
  let nodes: number[] = [0];
  for (const [stack, v] of entries) {
    const frames = stack.split(';');
    let k = 0;
    while (k < Math.min(frames.length, path.length) && frames[k] === path[k]) k++;
    path = path.slice(0, k);
    nodes = nodes.slice(0, k + 1);
    for (const f of frames.slice(k)) {
      if (!names.has(f)) names.set(f, names.size);
      name.push(names.get(f)!);
      depth.push(nodes.length);
      for (const col of values) col.push(0);
      path.push(f);
      nodes.push(name.length - 1);
    }
    const leaf = nodes[nodes.length - 1]!;
    const vals = Array.isArray(v) ? v : [v];
    vals.forEach((x, c) => {
      if (values[c]) values[c]![leaf]! += x;
    });
  }
  return { names: [...names.keys()], name, depth, values };
}

/** A layout straight from a text fixture. */
export function layoutFromText(text: string): FlameLayout {
  const t = treeFromFolded(foldedFromText(text));
  return layoutTree({ names: t.names, name: t.name, depth: t.depth, self: t.values[0]! });
}
