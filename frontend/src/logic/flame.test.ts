import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hierarchy, partition } from 'd3-hierarchy';
import { describe, expect, it } from 'vitest';
import {
  commsOf,
  dim,
  findPath,
  fnv1a,
  foldedFromText,
  frameRgb,
  hitTest,
  layoutFromText,
  layoutTree,
  matchedWeight,
  pathOf,
  placeAll,
  rectsDepth,
  searchMatches,
  subtreeSums,
  subtreeTotals,
  topFunctions,
  treeFromFolded,
  visibleRects,
  type FlameLayout,
} from './flame';
import { syntheticTree } from '../testdata/flameSynthetic';
import { vectors } from '../testdata/vectors';

// Twelve samples, one column each, root at the top; `*5` weighs a sample 5.
const TEN = `
fio      fio      fio        fio        fio       kworker   kworker   fio*5
entry    entry    entry      entry      entry     worker    worker    entry
write    write    write      read       write     blk       blk       write
iomap    iomap    xfs_ilock  copy       write
`;

const row = (lay: FlameLayout, i: number) => [lay.depth[i], lay.names.get(lay.name[i]!), lay.self[i], lay.total[i]];

describe('text fixtures', () => {
  it('a column per sample, folded', () => {
    expect(Object.fromEntries(foldedFromText(TEN))).toEqual({
      'fio;entry;write;iomap': 2,
      'fio;entry;write;xfs_ilock': 1,
      'fio;entry;read;copy': 1,
      'fio;entry;write;write': 1,
      'kworker;worker;blk': 2,
      'fio;entry;write': 5,
    });
  });

  it('the tree is the backend build_tree: pre-order, children by name, self at the leaf', () => {
    const t = treeFromFolded(foldedFromText(TEN));
    expect(t.name.map((n, i) => `${t.depth[i]}:${t.names[n]}:${t.values[0]![i]}`)).toEqual([
      '0:all:0',
      '1:fio:0',
      '2:entry:0',
      '3:read:0',
      '4:copy:1',
      '3:write:5',
      '4:iomap:2',
      '4:write:1',
      '4:xfs_ilock:1',
      '1:kworker:0',
      '2:worker:0',
      '3:blk:2',
    ]);
  });
});

describe('layout (d3 partition)', () => {
  const lay = layoutFromText(TEN);
  it('totals and x extents', () => {
    placeAll(lay);
    expect(lay.n).toBe(12);
    expect(row(lay, 0)).toEqual([0, 'all', 0, 12]);
    expect(row(lay, 5)).toEqual([3, 'write', 5, 9]);
    expect(lay.maxDepth).toBe(4);
    // fio spans 10/12 of the width from 0, kworker the rest; children left to right by name
    expect(lay.x0[1]).toBe(0);
    expect(lay.x1[1]).toBeCloseTo(10 / 12);
    expect(lay.x0[3]).toBe(0);
    expect(lay.x1[3]).toBeCloseTo(1 / 12);
    expect(lay.x0[5]).toBeCloseTo(1 / 12);
    expect(lay.x0[9]).toBeCloseTo(10 / 12);
    expect(Array.from(lay.end)).toEqual([12, 9, 9, 5, 5, 9, 7, 8, 9, 12, 12, 12]);
  });

  it('zoom paths round-trip; a missing frame stops at the deepest that exists', () => {
    expect(pathOf(lay, 7)).toEqual(['fio', 'entry', 'write', 'write']);
    expect(findPath(lay, ['fio', 'entry', 'write', 'write'])).toEqual({ node: 7, missing: [] });
    expect(findPath(lay, ['fio', 'entry', 'nope', 'x'])).toEqual({ node: 2, missing: ['nope', 'x'] });
    expect(findPath(lay, [])).toEqual({ node: 0, missing: [] });
  });

  it('visible rects: everything at 1200 px', () => {
    const rects = visibleRects(lay, 0, 1200);
    expect(rects.map((r) => `${r.depth}:${lay.names.get(lay.name[r.node]!)}:${r.x.toFixed(0)}+${r.w.toFixed(0)}`)).toEqual([
      '0:all:0+1200',
      '1:fio:0+1000',
      '2:entry:0+1000',
      '3:read:0+100',
      '4:copy:0+100',
      '3:write:100+900',
      '4:iomap:100+200',
      '4:write:300+100',
      '4:xfs_ilock:400+100',
      '1:kworker:1000+200',
      '2:worker:1000+200',
      '3:blk:1000+200',
    ]);
    expect(rectsDepth(rects)).toBe(4);
    expect(hitTest(rects, 350, 4)?.node).toBe(7);
    expect(hitTest(rects, 750, 4)).toBeNull();
  });

  it('zoomed: ancestors full width, the subtree scaled to the width', () => {
    const rects = visibleRects(lay, 5, 800);
    expect(rects.map((r) => `${r.depth}:${lay.names.get(lay.name[r.node]!)}:${r.x.toFixed(0)}+${r.w.toFixed(0)}`)).toEqual([
      '0:all:0+800',
      '1:fio:0+800',
      '2:entry:0+800',
      '3:write:0+800',
      '4:iomap:0+178',
      '4:write:178+89',
      '4:xfs_ilock:267+89',
    ]);
  });

  it('frames narrower than a pixel are merged with their narrow siblings, subtrees skipped', () => {
    // 12 px wide: a sample is one pixel; at 6 px, half a pixel
    const rects = visibleRects(lay, 0, 6);
    const merged = rects.filter((r) => r.node < 0);
    expect(merged.map((r) => [r.depth, +r.x.toFixed(6), +r.w.toFixed(6), r.merged])).toEqual([
      [3, 0, 0.5, 1], // read (its child copy is skipped)
      [4, 0.5 + 1, 1, 2], // write + xfs_ilock under write: 2 narrow siblings after iomap (1 px)
    ]);
    expect(rects.some((r) => r.node === 4)).toBe(false);
  });

  it('500k nodes: rects are bounded by pixels, not nodes', () => {
    const s = syntheticTree(50_000, 7);
    const big = layoutTree({ names: s.names, name: s.name, depth: s.depth, self: s.self_weight });
    const rects = visibleRects(big, 0, 1000);
    expect(rects.length).toBeLessThan(big.n);
    // widths add up: at every depth the drawn frames never exceed the width
    const perDepth = new Map<number, number>();
    for (const r of rects) perDepth.set(r.depth, (perDepth.get(r.depth) ?? 0) + r.w);
    for (const w of perDepth.values()) expect(w).toBeLessThanOrEqual(1000 + 1e-6);
    expect(perDepth.get(0)).toBeCloseTo(1000);
  });
});

describe('search and top functions', () => {
  const lay = layoutFromText(TEN);
  it('regex per distinct name; matched share counts a sample once', () => {
    const s = searchMatches(lay.names, '^(write|iomap)$');
    expect(s.ok).toBe(true);
    const match = (s as { match: Uint8Array }).match;
    expect(lay.names.all().filter((_, k) => match[k])).toEqual(['write', 'iomap']);
    // write (9, includes iomap and the inner write) counted once
    expect(matchedWeight(lay, match)).toBe(9);
    expect(matchedWeight(lay, match, 9)).toBe(0);
    expect(searchMatches(lay.names, '(')).toMatchObject({ ok: false });
    expect(searchMatches(lay.names, '')).toEqual({ ok: true, match: null });
  });

  it('self and total; recursion counted once; command names left out', () => {
    expect(topFunctions(lay, 0, 'total', 3)).toEqual([
      { name: 'entry', self: 0, total: 10 },
      { name: 'write', self: 6, total: 9 },
      { name: 'blk', self: 2, total: 2 }, // ties: self, then name
    ]);
    expect(topFunctions(lay, 0, 'self').map((r) => r.name)).toEqual(['write', 'blk', 'iomap', 'copy', 'xfs_ilock', 'entry', 'worker', 'read']);
    // under a zoomed frame
    expect(topFunctions(lay, 9, 'self')).toEqual([
      { name: 'blk', self: 2, total: 2 },
      { name: 'worker', self: 0, total: 2 },
    ]);
  });
});

interface FlameVectors {
  colours: { cases: { name: string; fnv1a: number; rgb: number[]; dimmed: number[] }[] };
  visible_rects: { cases: { name: string; tree: { names: string[]; name: number[]; depth: number[]; self: number[] }; zoom: number; width: number; rects: number[][] }[] };
}
const fv = vectors<FlameVectors>('flame');

describe('colours (testdata/vectors/flame.json, as the SVG export)', () => {
  it.each(fv.colours.cases.map((c) => [c.name, c] as const))('%j', (_, c) => {
    expect(fnv1a(c.name)).toBe(c.fnv1a);
    expect(frameRgb(c.name)).toEqual(c.rgb);
    expect(dim(frameRgb(c.name))).toEqual(c.dimmed);
  });
});

describe('visible rectangles (testdata/vectors/flame.json, as the SVG export)', () => {
  it.each(fv.visible_rects.cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const lay = layoutTree(c.tree);
    const got = visibleRects(lay, c.zoom, c.width)
      .map((r) => [r.depth, r.x, r.w, r.node, r.merged])
      .sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
    expect(got.length).toBe(c.rects.length);
    got.forEach((r, k) => {
      const want = c.rects[k]!;
      expect([r[0], r[3], r[4]]).toEqual([want[0], want[3], want[4]]);
      expect(r[1]).toBeCloseTo(want[1]!, 5);
      expect(r[2]).toBeCloseTo(want[2]!, 5);
    });
  });
});

describe('cell helpers', () => {
  const lay = layoutFromText(TEN);
  it('samples under each node: its own and its subtree\'s (pre-order depths)', () => {
    // all(0) > fio(1) > [write(2), read(3)], kworker(4) > blk(5)
    expect(Array.from(subtreeSums([0, 1, 2, 2, 1, 2], [0, 1, 2, 3, 4, 5]))).toEqual([15, 6, 2, 3, 9, 5]);
    expect(Array.from(subtreeSums([0], [7]))).toEqual([7]);
  });
  it('command names by samples, the current one kept when absent', () => {
    expect(commsOf(lay, null)).toEqual(['fio', 'kworker']);
    expect(commsOf(lay, 'kworker')).toEqual(['fio', 'kworker']);
    expect(commsOf(lay, 'dd')).toEqual(['dd', 'fio', 'kworker']);
  });
});

// The layout is d3-hierarchy's partition computed over typed arrays: the same floats, bit for bit.
describe('layoutTree is d3 partition', () => {
  const d3Layout = (t: { depth: number[]; self: number[] }) => {
    const n = t.depth.length;
    const kids: number[][] = Array.from({ length: n }, () => []);
    const stack: number[] = [];
    for (let i = 0; i < n; i++) {
      while (stack.length && t.depth[stack[stack.length - 1]!]! >= t.depth[i]!) stack.pop();
      if (stack.length) kids[stack[stack.length - 1]!]!.push(i);
      stack.push(i);
    }
    const root = hierarchy<number>(0, (i) => (kids[i]!.length ? kids[i] : undefined)).sum((i) => t.self[i]!);
    const out = { x0: new Float64Array(n), x1: new Float64Array(n), total: new Float64Array(n) };
    partition<number>().size([1, 1])(root).each((nd) => {
      out.x0[nd.data] = nd.x0;
      out.x1[nd.data] = nd.x1;
      out.total[nd.data] = nd.value ?? 0;
    });
    return out;
  };
  const same = (names: string[], name: number[], depth: number[], self: number[]) => {
    const lay = placeAll(layoutTree({ names, name, depth, self }));
    const ref = d3Layout({ depth, self });
    expect(Array.from(lay.total)).toEqual(Array.from(ref.total));
    expect(Array.from(lay.x0)).toEqual(Array.from(ref.x0));
    expect(Array.from(lay.x1)).toEqual(Array.from(ref.x1));
  };

  it('on a synthetic tree of 20,000 nodes, zero-weight subtrees included', () => {
    const s = syntheticTree(20_000, 3);
    same(s.names, s.name, s.depth, s.self_weight);
    const zeroed = s.self_weight.map((w, i) => (i % 7 === 0 ? 0 : w));
    same(s.names, s.name, s.depth, zeroed);
  });

  it('on the real stacks of datasets/stacks-xfs (of 2026-11-22, testdata/stacks-xfs.folded; ns weights)', () => {
    const folded = new Map<string, number>();
    for (const line of fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../testdata/stacks-xfs.folded'), 'utf-8').split('\n')) {
      const at = line.lastIndexOf(' ');
      if (at > 0) folded.set(line.slice(0, at), Number(line.slice(at + 1)) * 5025125);
    }
    const t = treeFromFolded(folded);
    expect(t.name.length).toBeGreaterThan(1000);
    same(t.names, t.name, t.depth, t.values[0]!);
  });

  it('a single root, and an empty tree', () => {
    same(['all'], [0], [0], [0]);
    expect(layoutTree({ names: [], name: [], depth: [], self: [] }).n).toBe(0);
  });
});

describe('x extents made when drawn', () => {
  it('draws what a fully placed layout draws, placing only the parents of what it draws', () => {
    const s = syntheticTree(20_000, 13);
    const cols = { names: s.names, name: s.name, depth: s.depth, self: s.self_weight };
    const full = placeAll(layoutTree(cols));
    const lazy = layoutTree(cols);
    expect(lazy.placed.reduce((a, b) => a + b, 0)).toBe(0);
    const first = visibleRects(lazy, 0, 1440);
    expect(first).toEqual(visibleRects(full, 0, 1440));
    // a first paint places the parents of the frames it draws, not every parent
    const parents = full.end.reduce((a, e, i) => a + (e > i + 1 ? 1 : 0), 0);
    const placed = lazy.placed.reduce((a, b) => a + b, 0);
    expect(placed).toBeGreaterThan(0);
    expect(placed).toBeLessThan(parents / 2);
    // zooms anywhere (deep first, never drawn before), then back at the root, at other widths
    const deep = Array.from({ length: lazy.n }, (_, i) => i).filter((i) => lazy.depth[i]! >= 6 && i % 97 === 0);
    for (const z of [...deep.slice(0, 20), 1, 0]) for (const w of [300, 1440]) expect(visibleRects(lazy, z, w), `zoom ${z} at ${w}`).toEqual(visibleRects(full, z, w));
    expect(Array.from(lazy.total)).toEqual(Array.from(full.total));
  });
});

describe('topFunctions keeps the first rows of the full order', () => {
  it('equals sorting every function, for each key, limit and zoom', () => {
    const s = syntheticTree(30_000, 5);
    const lay = layoutTree({ names: s.names, name: s.name, depth: s.depth, self: s.self_weight });
    for (const by of ['self', 'total'] as const) {
      const all = topFunctions(lay, 0, by, 1e9);
      const other = by === 'self' ? 'total' : 'self';
      const sorted = [...all].sort((p, q) => q[by] - p[by] || q[other] - p[other] || (p.name < q.name ? -1 : p.name > q.name ? 1 : 0));
      expect(all).toEqual(sorted);
      for (const limit of [0, 1, 7, 500]) expect(topFunctions(lay, 0, by, limit)).toEqual(sorted.slice(0, limit));
      const zoom = lay.end[1]! > 3 ? 2 : 1;
      expect(topFunctions(lay, zoom, by, 20).map((r) => r.name)).toHaveLength(Math.min(20, topFunctions(lay, zoom, by, 1e9).length));
    }
  });
});

describe('search as you type', () => {
  it('every keystroke gives what a full regular-expression scan gives', () => {
    const s = syntheticTree(20_000, 9);
    const names = [...s.names, 'a.b', 'a-b', 'xfs_file_write_iter', 'xfs_ilock'];
    const scan = (p: string) => Uint8Array.from(names, (n) => (new RegExp(p).test(n) ? 1 : 0));
    const typed = ['x', 'xf', 'xfs', 'xfs_', 'xfs_i', 'xfs_', 'xfs_f', 'fs_f', 'a.b', 'a-', 'a-b', 'fn_1', 'fn_1.*xfs', 'fn_1', 'fn_1a', '_xfs'];
    for (const p of typed) {
      const r = searchMatches(names, p);
      expect(r.ok).toBe(true);
      expect(Array.from((r as { match: Uint8Array }).match)).toEqual(Array.from(scan(p)));
    }
    // kept: the same pattern again is the same array
    const again = searchMatches(names, 'xfs_');
    expect(again).toEqual(searchMatches(names, 'xfs_'));
  });
});

describe('subtreeTotals', () => {
  it('is subtreeSums over the layout', () => {
    const s = syntheticTree(10_000, 11);
    const lay = layoutTree({ names: s.names, name: s.name, depth: s.depth, self: s.self_weight });
    expect(Array.from(subtreeTotals(lay, s.self_samples))).toEqual(Array.from(subtreeSums(s.depth, s.self_samples)));
    expect(Array.from(subtreeTotals(lay, s.self_weight))).toEqual(Array.from(lay.total));
  });
});
