// Time order boxes (logic/flameTime.ts): hand-made sequences, and the samples of a real thread
// (datasets/stacks-xfs, fio's busiest thread of run r000, as the API sends them; the backend's
// test_flame_time.py keeps testdata/stacks-xfs-time.json equal to the API's answer and checks that
// answer against the perf script text).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { boxAt, GAP, rowCount, timeBoxes, visibleBoxes, type TimeBoxes, type TimeSequence } from './flameTime';

const IV = 10;

/** A sequence from (time, folded stack | null) pairs. */
function seqOf(samples: [number, string | null][]): TimeSequence {
  const names: string[] = [];
  const stacks: string[] = [];
  const stack_frames: number[] = [];
  const stack_start = [0];
  const stack: number[] = [];
  const dt_ns: number[] = [];
  let last = 0;
  for (const [t, s] of samples) {
    dt_ns.push(t - last);
    last = t;
    if (s === null) {
      stack.push(-1);
      continue;
    }
    let k = stacks.indexOf(s);
    if (k < 0) {
      k = stacks.push(s) - 1;
      for (const f of s.split(';')) {
        let i = names.indexOf(f);
        if (i < 0) i = names.push(f) - 1;
        stack_frames.push(i);
      }
      stack_start.push(stack_frames.length);
    }
    stack.push(k);
  }
  return { names, stack_frames, stack_start, dt_ns, stack, interval_ns: IV };
}

/** Boxes as 'depth name start-end xN', by depth then start. */
function show(b: TimeBoxes): string[] {
  const out: string[] = [];
  for (let j = 0; j < b.depth.length; j++) out.push(`${b.depth[j]} ${b.names[b.name[j]!]} ${b.start[j]}-${b.end[j]} x${b.samples[j]}`);
  return out;
}

describe('time order boxes', () => {
  it('merges consecutive samples that share a frame prefix', () => {
    const b = timeBoxes(seqOf([[0, 'fio;a;b'], [10, 'fio;a;b'], [20, 'fio;a;c'], [30, 'fio;d'], [40, 'fio;a;c']]));
    expect(show(b)).toEqual(['0 fio 0-50 x5', '1 a 0-30 x3', '1 d 30-40 x1', '1 a 40-50 x1', '2 b 0-20 x2', '2 c 20-30 x1', '2 c 40-50 x1']);
    expect(rowCount(b)).toBe(3);
    expect(b.drawn).toBe(5);
  });

  it('a gap longer than GAP intervals, or a sample without a stack, ends every box', () => {
    const far = 10 + GAP * IV + 1;
    const b = timeBoxes(seqOf([[0, 'fio;a'], [10, 'fio;a'], [far, 'fio;a'], [far + 10, null], [far + 20, 'fio;a']]));
    expect(show(b)).toEqual([`0 fio 0-20 x2`, `0 fio ${far}-${far + 10} x1`, `0 fio ${far + 20}-${far + 30} x1`, '1 a 0-20 x2', `1 a ${far}-${far + 10} x1`, `1 a ${far + 20}-${far + 30} x1`]);
    // jitter: a sample sooner than one interval cuts its predecessor's box there
    const j = timeBoxes(seqOf([[0, 'fio;a'], [8, 'fio;b']]));
    expect(show(j)).toEqual(['0 fio 0-18 x2', '1 a 0-8 x1', '1 b 8-18 x1']);
  });

  it('applies the transforms of the cell (flameStacks.ts) before merging', () => {
    const s = seqOf([[0, 'fio;a;x'], [10, 'fio;b;x'], [20, 'fio;a;y'], [30, 'fio;a;x']]);
    // merge a and b into their caller: x, x, y, x under fio
    expect(show(timeBoxes(s, [{ op: 'merge', name: 'a' }, { op: 'merge', name: 'b' }]))).toEqual(['0 fio 0-40 x4', '1 x 0-20 x2', '1 y 20-30 x1', '1 x 30-40 x1']);
    // drop b: its sample is a hole
    expect(show(timeBoxes(s, [{ op: 'drop', name: 'b' }]))).toEqual(['0 fio 0-10 x1', '0 fio 20-40 x2', '1 a 0-10 x1', '1 a 20-40 x2', '2 x 0-10 x1', '2 y 20-30 x1', '2 x 30-40 x1']);
    // focus on x: its samples only, x the first row
    const f = timeBoxes(s, [{ op: 'focus', name: 'x' }]);
    expect(f.focused).toBe(true);
    expect(show(f)).toEqual(['0 x 0-20 x2', '0 x 30-40 x1']);
    expect(timeBoxes(s, [{ op: 'drop', name: 'nowhere' }]).missing).toEqual([{ op: 'drop', name: 'nowhere' }]);
  });

  it('finds the box under a time and merges sub-pixel boxes into one block', () => {
    const b = timeBoxes(seqOf([[0, 'fio;a'], [10, 'fio;b'], [20, 'fio;a'], [30, 'fio;b'], [40, 'fio;c']]));
    expect(b.names[b.name[boxAt(b, 1, 25)]!]).toBe('a');
    expect(boxAt(b, 1, 55)).toBe(-1);
    expect(boxAt(b, 2, 5)).toBe(-1);
    // 50 ns on 4 px: every level-1 box is 0.8 px wide: one merged block, of several functions;
    // the command row: one block of 'fio' (a single box here)
    const r = visibleBoxes(b, 0, 50, 4);
    expect(r.filter((x) => x.depth === 1)).toEqual([{ box: b.rows[1], depth: 1, x: 0, w: 4, merged: true, mixed: true }]);
    expect(r.filter((x) => x.depth === 0)).toEqual([{ box: 0, depth: 0, x: 0, w: 4, merged: false, mixed: false }]);
    // gaps split the command row into many narrow boxes of one function: merged, not mixed
    const g = timeBoxes(seqOf(Array.from({ length: 40 }, (_, i) => [i * 100, i % 2 ? 'fio;a' : 'fio;b'] as [number, string])));
    const row0 = visibleBoxes(g, 0, 4000, 20).filter((x) => x.depth === 0);
    expect(row0.every((x) => x.merged && !x.mixed)).toBe(true);
    expect(visibleBoxes(g, 0, 4000, 20).filter((x) => x.depth === 1).some((x) => x.mixed)).toBe(true);
    // zoomed to [10, 30) at 200 px: b and a, 100 px each
    expect(visibleBoxes(b, 10, 30, 200).filter((x) => x.depth === 1).map((x) => [b.names[b.name[x.box]!], x.x, x.w])).toEqual([['b', 0, 100], ['a', 100, 100]]);
  });
});

describe('time order of a real thread (datasets/stacks-xfs)', () => {
  const file = path.join(path.dirname(fileURLToPath(import.meta.url)), '../testdata/stacks-xfs-time.json');
  const seq = JSON.parse(fs.readFileSync(file, 'utf-8')) as TimeSequence & { samples: number; track: { tid: number; comm: string } };
  const b = timeBoxes(seq);
  const t: number[] = [];
  let acc = 0;
  for (const dt of Array.from(seq.dt_ns)) t.push((acc += dt));
  const frames = (i: number) => {
    const k = seq.stack[i]!;
    return Array.from(seq.stack_frames).slice(seq.stack_start[k]!, seq.stack_start[k + 1]!);
  };
  const same = (i: number, j: number, d: number) => {
    const a = frames(i);
    const c = frames(j);
    return a.length > d && c.length > d && a.slice(0, d + 1).every((f, k) => f === c[k]);
  };
  const contiguous = (i: number) => t[i + 1]! - t[i]! <= GAP * seq.interval_ns;

  it('each box is a maximal run of contiguous samples sharing its frames, lasting samples x interval', () => {
    for (let j = 0; j < b.depth.length; j++) {
      const d = b.depth[j]!;
      const i0 = b.first[j]!;
      const n = b.samples[j]!;
      expect(seq.names[frames(i0)[d]!]).toBe(b.names[b.name[j]!]);
      for (let i = i0; i < i0 + n - 1; i++) {
        expect(contiguous(i)).toBe(true);
        expect(same(i, i + 1, d)).toBe(true);
      }
      // maximal: the samples around it do not continue it
      if (i0 > 0) expect(contiguous(i0 - 1) && same(i0 - 1, i0, d)).toBe(false);
      if (i0 + n < t.length) expect(contiguous(i0 + n - 1) && same(i0 + n - 1, i0 + n, d)).toBe(false);
      expect(b.start[j]).toBe(t[i0]);
      expect(b.end[j]).toBeLessThanOrEqual(t[i0 + n - 1]! + seq.interval_ns);
    }
  });

  it('every sample is in one box per level of its stack (golden counts)', () => {
    const perDepth = new Map<number, number>();
    for (let j = 0; j < b.depth.length; j++) perDepth.set(b.depth[j]!, (perDepth.get(b.depth[j]!) ?? 0) + b.samples[j]!);
    for (const [d, n] of perDepth) expect(n).toBe(t.filter((_, i) => frames(i).length > d).length);
    expect(perDepth.get(0)).toBe(seq.samples);
    // the fio thread of r000: 352 samples of 5.025 ms (1.769 s of CPU) in 3.37 s (the RECIPE)
    expect(seq.samples).toBe(352);
    expect(seq.interval_ns).toBe(5025125);
    let cpu = 0;
    for (let j = b.rows[0]!; j < b.rows[1]!; j++) cpu += b.samples[j]! * b.interval;
    expect(cpu).toBe(352 * 5025125);
    expect([rowCount(b), b.rows[1]! - b.rows[0]!, b.depth.length]).toEqual(GOLDEN_COUNTS);
  });

  it.each([
    ['the whole run at 1200 px', 0, 1, 1200],
    ['the whole run at 300 px', 0, 1, 300],
    ['a tenth of it', 0.45, 0.55, 1200],
  ])('draws every box at %s: wide ones alone, narrow ones inside a merged block', (_, f0, f1, width) => {
    const from = b.until * f0;
    const to = b.until * f1;
    const rects = visibleBoxes(b, from, to, width);
    const k = width / (to - from);
    for (let d = 0; d < rowCount(b); d++) {
      const row = rects.filter((r) => r.depth === d);
      for (let i = 1; i < row.length; i++) expect(row[i]!.x).toBeGreaterThanOrEqual(row[i - 1]!.x + row[i - 1]!.w - 1e-6);
      for (let j = b.rows[d]!; j < b.rows[d + 1]!; j++) {
        if (b.end[j]! <= from || b.start[j]! >= to) continue;
        const x0 = Math.max(0, (b.start[j]! - from) * k);
        const x1 = Math.min(width, (b.end[j]! - from) * k);
        if (x1 - x0 >= 1) expect(row.some((r) => r.box === j && !r.merged && Math.abs(r.w - (x1 - x0)) < 1e-6)).toBe(true);
        else expect(row.some((r) => x0 >= r.x - 1e-6 && x1 <= r.x + r.w + 1 + 1e-6)).toBe(true);
      }
    }
  });
});

// rows, boxes of the command row (the thread's on-CPU stretches), boxes in all: checked by the
// invariants above, pinned here so a change of the merge rule shows.
const GOLDEN_COUNTS = [128, 91, 4033];
