import { describe, expect, it } from 'vitest';
import { delaysB } from '../testdata/sched';
import { delayBinCount, delayRows } from '../logic/sched';
import { checkGolden } from './golden';
import { HistStrip } from './HistStrip';
import { layoutHistStrip, stripX } from './histStrip';

describe('histogram strip', () => {
  it('bars of non-empty bins scaled to the largest, marks at bin positions', () => {
    const l = layoutHistStrip([0, 10, 40, 0, 20], [{ key: 'p50', pos: 2.5 }, { key: 'p99', pos: 9 }], 100, 21);
    expect(l.bars.map((b) => [b.i, b.x, b.w, b.h])).toEqual([
      [1, 20.5, 19, 5],
      [2, 40.5, 19, 20],
      [4, 80.5, 19, 10],
    ]);
    expect(l.bars[1]!.y).toBe(1);
    expect(l.marks).toEqual([
      { key: 'p50', x: 50 },
      { key: 'p99', x: 100 },
    ]);
  });
  it('a tiny bin still shows; the axis uses the same x', () => {
    const l = layoutHistStrip([1000, 1], [], 40, 11);
    expect(l.bars[1]!.h).toBe(1);
    expect(stripX(1, 2, 40)).toBe(20);
    expect(stripX(5, 2, 40)).toBe(40);
  });

  it('golden: the kworker/* delays of a real capture (datasets/sched-pinned-w1000, run r002)', () => {
    const r = delayRows(delaysB, delayBinCount([delaysB]))[0]!;
    expect(checkGolden('hist-strip-delays', <HistStrip bins={r.bins} titles={r.binTitles} marks={r.marks.map((m) => ({ key: m.p, pos: m.pos }))} color="#f28e2b" />)).toBeNull();
  });
});
