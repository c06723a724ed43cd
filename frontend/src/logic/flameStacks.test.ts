import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { foldedFromText, layoutTree, topFunctions, treeFromFolded } from './flame';
import { applyTransforms, callerRows, unknownRun, reorderTree, sandwich, sortRows, stacksFromTree, stacksWeight, treeFromStacks, type Stacks, type StackTree } from './flameStacks';

// The folded stacks of datasets/stacks-xfs as captured on 2026-11-22 (its two runs merged, as the
// flame API merges them; the bundle is in the history, commit 5221f60, before the recapture with
// four repeats), folded by `iolens convert perf-script` from the bundle's perf.script.gz: weights in
// ns of cpu-clock. A fixed file: the golden values below are sums over it.
const FOLDED = fs.readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../testdata/stacks-xfs.folded'), 'utf-8');
const lines = FOLDED.trim()
  .split('\n')
  .map((l) => {
    const at = l.lastIndexOf(' ');
    return { frames: l.slice(0, at).split(';'), w: Number(l.slice(at + 1)) };
  });
const folded = new Map(lines.map((l) => [l.frames.join(';'), l.w]));

function treeOf(map: Map<string, number>): StackTree {
  const t = treeFromFolded(map);
  return { names: t.names, name: t.name, depth: t.depth, self: t.values[0]!, samples: t.values[0]!.map((w) => (w > 0 ? 1 : 0)) };
}
const xfs = stacksFromTree(treeOf(folded));
const id = (s: Stacks, name: string) => s.names.indexOf(name);

// Independent reference sums straight from the folded lines.
const sum = (pred: (fr: string[]) => boolean) => lines.reduce((a, l) => a + (pred(l.frames) ? l.w : 0), 0);
const fnsOf = (fr: string[]) => fr.slice(1);
/** chain leaf first: does fr hold it ending at p? */
const endsAt = (fr: string[], chain: string[], p: number) => chain.every((c, j) => fr[p - j] === c);

/** Folded stacks back from a built tree (for comparing trees). */
function foldedOf(t: { names: string[]; name: ArrayLike<number>; depth: ArrayLike<number>; self: ArrayLike<number> }): Map<string, number> {
  const out = new Map<string, number>();
  const p: string[] = [];
  for (let i = 0; i < t.depth.length; i++) {
    if (i > 0) {
      p.length = t.depth[i]! - 1;
      p.push(t.names[t.name[i]!]!);
    }
    if (t.self[i]! > 0) out.set(p.join(';'), (out.get(p.join(';')) ?? 0) + t.self[i]!);
  }
  return out;
}

describe('stacks of a real capture (datasets/stacks-xfs of 2026-11-22)', () => {
  it('take the tree apart and back without a change', () => {
    expect(stacksWeight(xfs)).toBe(12_979_897_875);
    expect(foldedOf(treeFromStacks(xfs, 'name'))).toEqual(folded);
  });

  it('inverted roots: self and total of every function as the folded lines give them', () => {
    const rows = callerRows(xfs, []);
    expect(rows.length).toBeGreaterThan(300);
    for (const r of rows) {
      const f = xfs.names[r.name]!;
      expect(r.self, f).toBe(sum((fr) => fr.length > 1 && fr[fr.length - 1] === f));
      expect(r.total, f).toBe(sum((fr) => fnsOf(fr).includes(f)));
    }
    const by = new Map(rows.map((r) => [xfs.names[r.name]!, r]));
    // golden (a sum over the folded text by hand, see the header)
    expect(by.get('xfs_file_write_iter')).toMatchObject({ self: 25_125_625, total: 1_391_959_625 });
    expect(by.get('do_syscall_64')).toMatchObject({ self: 175_879_375, total: 2_271_356_500 });
    expect(by.get('iomap_dio_rw')).toMatchObject({ self: 0, total: 1_271_356_625 });
    // and the same as the flame graph's functions table
    const lay = layoutTree(treeFromStacks(xfs, 'name'));
    const top = topFunctions(lay, 0, 'total', 10_000);
    for (const t of top) expect(by.get(t.name), t.name).toMatchObject({ self: t.self, total: t.total });
  });

  it('inverted children: the callers of a chain, self and total of the longer chain', () => {
    const chain = ['iomap_dio_bio_end_io'];
    const rows = callerRows(xfs, chain.map((c) => id(xfs, c)));
    expect(rows.map((r) => [xfs.names[r.name], r.self, r.total])).toEqual([['blk_update_request', 20_100_500, 246_231_125]]);
    // two levels down, every caller against the folded lines
    for (const deep of [['xfs_file_write_iter'], ['blk_mq_submit_bio', '__submit_bio'], ['iomap_dio_rw', '__iomap_dio_rw']]) {
      for (const r of callerRows(
        xfs,
        deep.map((c) => id(xfs, c)),
      )) {
        const c = [...deep, xfs.names[r.name]!];
        expect(r.self, c.join('<')).toBe(sum((fr) => endsAt(fr, c, fr.length - 1)));
        expect(r.total, c.join('<')).toBe(sum((fr) => fr.some((_, p) => p >= c.length - 1 && endsAt(fr, c, p))));
      }
    }
  });

  it('sandwich: callers and callees weigh the function total, merged over every place', () => {
    const sw = sandwich(xfs, 'iomap_dio_bio_end_io')!;
    expect(sw).toMatchObject({ self: 20_100_500, total: 246_231_125 });
    expect(stacksWeight(sw.callers)).toBe(246_231_125);
    expect(stacksWeight(sw.callees)).toBe(246_231_125);
    const up = treeFromStacks(sw.callers, 'heavy');
    expect(up.names[up.name[0]!]).toBe('iomap_dio_bio_end_io');
    expect(up.names[up.name[1]!]).toBe('blk_update_request');
    // every callee path: the folded lines' suffixes after the function, summed
    const want = new Map<string, number>();
    for (const l of lines) {
      const p = l.frames.indexOf('iomap_dio_bio_end_io', 1);
      if (p < 0) continue;
      const k = l.frames.slice(p + 1).join(';');
      want.set(k, (want.get(k) ?? 0) + l.w);
    }
    expect(foldedOf(treeFromStacks(sw.callees, 'name'))).toEqual(want);
    expect(sandwich(xfs, 'no_such_function')).toBeNull();
  });

  it('focus: the total becomes the function total; merge keeps it; drop takes it away', () => {
    const f = 'xfs_file_write_iter';
    const focus = applyTransforms(xfs, [{ op: 'focus', name: f }]).stacks;
    expect(stacksWeight(focus)).toBe(1_391_959_625);
    expect(focus.comm).toBe(false);
    const ft = treeFromStacks(focus, 'name');
    expect(ft.depth.filter((d) => d === 1).length).toBe(1);
    const merge = applyTransforms(xfs, [{ op: 'merge', name: f }]).stacks;
    expect(stacksWeight(merge)).toBe(12_979_897_875);
    const mrows = callerRows(merge, []);
    expect(mrows.find((r) => merge.names[r.name] === f)).toBeUndefined();
    // its self went to its callers
    const callers = callerRows(xfs, [id(xfs, f)]);
    const before = callerRows(xfs, []);
    for (const c of callers) {
      const b = before.find((r) => r.name === c.name)!;
      const a = mrows.find((r) => r.name === c.name)!;
      expect(a.self - b.self, xfs.names[c.name]).toBe(c.self);
    }
    const drop = applyTransforms(xfs, [{ op: 'drop', name: f }]).stacks;
    expect(stacksWeight(drop)).toBe(12_979_897_875 - 1_391_959_625);
    // and in sequence: drop after focus leaves nothing
    const none = applyTransforms(xfs, [
      { op: 'focus', name: f },
      { op: 'drop', name: f },
    ]);
    expect(stacksWeight(none.stacks)).toBe(0);
    expect(applyTransforms(xfs, [{ op: 'merge', name: 'nope' }]).missing).toEqual([{ op: 'merge', name: 'nope' }]);
  });

  it('collapse recursion: totals unchanged, the function once per stack', () => {
    const f = '[_duckdb.cpython-311-x86_64-linux-gnu.so]';
    const before = callerRows(xfs, []).find((r) => xfs.names[r.name] === f)!;
    const rec = applyTransforms(xfs, [{ op: 'rec', name: f }]).stacks;
    expect(stacksWeight(rec)).toBe(stacksWeight(xfs));
    expect(callerRows(rec, []).find((r) => rec.names[r.name] === f)).toMatchObject({ total: before.total, self: before.self });
    for (let k = 0; k + 1 < rec.start.length; k++) expect([...rec.frames.subarray(rec.start[k]!, rec.start[k + 1]!)].filter((x) => x === id(rec, f)).length).toBeLessThan(2);
  });

  it("runs of [unknown] (fio's user stacks, perf's frame-pointer chains) collapse: totals unchanged, depth drops, spans add up", () => {
    const U = '[unknown]';
    const depthOf = (s: Stacks) => Math.max(...Array.from({ length: s.start.length - 1 }, (_, k) => s.start[k + 1]! - s.start[k]!));
    // the chains as the folded lines have them: up to 126 in a row, to perf's depth limit
    let longest = 0;
    for (const l of lines)
      for (let i = 1, run = 0; i < l.frames.length; i++) longest = Math.max(longest, (run = l.frames[i] === U ? run + 1 : 0));
    expect(longest).toBe(126);
    expect(unknownRun(treeOf(folded))).toBe(126);
    const { stacks: c, missing } = applyTransforms(xfs, [{ op: 'drec', name: U }]);
    expect(missing).toEqual([]);
    expect(stacksWeight(c)).toBe(stacksWeight(xfs));
    expect(depthOf(xfs)).toBe(128);
    expect(depthOf(c)).toBe(29);
    const u = id(c, U);
    for (let k = 0; k + 1 < c.start.length; k++) {
      const a = c.start[k]!;
      const b = c.start[k + 1]!;
      for (let p = a + 2; p < b; p++) expect(c.frames[p] === u && c.frames[p - 1] === u).toBe(false);
      // each stack's frames stand for as many recorded frames as it had (one stack out per stack in)
      let n = 0;
      for (let p = a; p < b; p++) n += c.span![p]!;
      expect(n).toBe(xfs.start[k + 1]! - xfs.start[k]!);
    }
    // the tree: a node of a collapsed chain says how many frames it stands for
    const t = treeFromStacks(c, 'name');
    expect(Math.max(...t.span!.max)).toBe(126);
    expect(Math.min(...t.span!.min)).toBe(1);
    // the sandwich's callers of a function under a chain: one [unknown] frame, not 126
    const sw = sandwich(c, 'fio_gettime')!;
    expect(sw.total).toBe(sum((fr) => fr.slice(1).includes('fio_gettime')));
    const callersDepth = depthOf(sw.callers);
    expect(callersDepth).toBeLessThan(6);
    expect(depthOf(sandwich(xfs, 'fio_gettime')!.callers)).toBeGreaterThan(100);
  });
});

describe('orders and transforms on small stacks', () => {
  const text = `
fio*1    fio*5        fio*2       kworker*3
entry    entry        entry       worker
a_small  b_big        b_big       b_big
         c            c
         a_small      b_big
`;
  const tree = treeOf(foldedFromText(text));

  it('left heavy: the heaviest sibling first, the same stacks', () => {
    const h = reorderTree(tree, 'heavy');
    const names = (t: { names: string[]; name: ArrayLike<number> }) => Array.from(t.name, (n) => t.names[n]);
    expect(names(h)).toEqual(['all', 'fio', 'entry', 'b_big', 'c', 'a_small', 'b_big', 'a_small', 'kworker', 'worker', 'b_big']);
    expect(names(reorderTree(tree, 'name'))).toEqual(names(tree));
    expect(foldedOf(h)).toEqual(foldedOf(tree));
    expect(names(treeFromStacks(stacksFromTree(tree), 'heavy'))).toEqual(names(h));
  });

  it('collapse recursion keeps the outermost call and the frames below the innermost', () => {
    const s = applyTransforms(stacksFromTree(tree), [{ op: 'rec', name: 'b_big' }]).stacks;
    expect(foldedOf(treeFromStacks(s, 'name'))).toEqual(
      new Map([
        ['fio;entry;a_small', 1],
        ['fio;entry;b_big;c;a_small', 5],
        ['fio;entry;b_big', 2],
        ['kworker;worker;b_big', 3],
      ]),
    );
  });

  it('sorts rows by self, total or name', () => {
    const s = stacksFromTree(tree);
    const rows = callerRows(s, []);
    const nm = (r: { name: number }) => s.names[r.name]!;
    expect(sortRows(rows, 'self', nm).map(nm)).toEqual(['a_small', 'b_big', 'entry', 'c', 'worker']);
    expect(sortRows(rows, 'total', nm).map(nm)).toEqual(['b_big', 'entry', 'c', 'a_small', 'worker']);
    expect(sortRows(rows, 'name', nm).map(nm)).toEqual(['a_small', 'b_big', 'c', 'entry', 'worker']);
  });
});
