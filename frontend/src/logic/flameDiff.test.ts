import { describe, expect, it } from 'vitest';
import { foldedFromText, treeFromFolded } from './flame';
import { vectors } from '../testdata/vectors';
import { GREY, hex } from './flame';
import { colouredChange, diffColours, diffFill, diffLayout, diffNodeInfo, diffRgb, FADED, fewRgb, formatPp, sortDiffFunctions } from './flameDiff';

// Before: 10 samples; after: 8 samples (widths). xfs_ilock appears, iomap shrinks.
const BEFORE = `
fio    fio    fio    fio    fio    fio    kworker  kworker  fio    fio
entry  entry  entry  entry  entry  entry  worker   worker   entry  entry
write  write  write  write  write  write  blk      blk      read   write
iomap  iomap  iomap  iomap  iomap
`;
const AFTER = `
fio    fio    fio        fio        fio        fio        kworker  fio
entry  entry  entry      entry      entry      entry      worker   entry
write  write  write      write      write      write      blk      write
iomap  iomap  xfs_ilock  xfs_ilock  xfs_ilock  xfs_ilock
`;

function diffTree() {
  const a = foldedFromText(BEFORE);
  const b = foldedFromText(AFTER);
  const both = new Map<string, number[]>();
  for (const [k, v] of a) both.set(k, [v, 0]);
  for (const [k, v] of b) both.set(k, [both.get(k)?.[0] ?? 0, v]);
  const t = treeFromFolded(both, 2);
  return { names: t.names, name: t.name, depth: t.depth, self_a: t.values[0]!, self_b: t.values[1]! };
}

describe('differential layout', () => {
  const t = diffTree();
  const d = diffLayout(t);
  const at = (name: string, depth: number) => t.name.findIndex((n, i) => t.names[n] === name && t.depth[i] === depth);

  it('widths from the second capture, totals of both', () => {
    expect([d.sumA, d.sumB]).toEqual([10, 8]);
    const iomap = at('iomap', 4);
    expect([d.totalA[iomap], d.lay.total[iomap]]).toEqual([5, 2]);
    const read = at('read', 3);
    expect([d.totalA[read], d.lay.total[read]]).toEqual([1, 0]); // gone: no width
    expect(diffNodeInfo(d, iomap)).toMatchObject({ selfA: 50, selfB: 25, totalA: 50, totalB: 25, noiseSelf: null });
  });

  it('colour by self: change of share in pp, the largest sets the scale', () => {
    const c = diffColours(d, 'self');
    expect(c.delta[at('xfs_ilock', 4)]).toBeCloseTo(50);
    expect(c.delta[at('iomap', 4)]).toBeCloseTo(-25);
    expect(c.delta[at('write', 3)]).toBeCloseTo(100 / 8 - 200 / 10);
    expect(c.maxAbs).toBeCloseTo(50);
    expect(diffRgb(c.delta[at('xfs_ilock', 4)]!, c.maxAbs)).toEqual([214, 69, 61]);
    expect(diffRgb(c.delta[at('iomap', 4)]!, c.maxAbs)).toEqual([149, 173, 214]);
  });

  it('colour by total; noise frames do not set the scale', () => {
    const noisy = diffLayout({ ...t, noise_total: t.name.map((_, i) => i === at('xfs_ilock', 4)), noise_self: null });
    const c = diffColours(noisy, 'total');
    expect(c.delta[at('fio', 1)]).toBeCloseTo(100 * 7 / 8 - 100 * 8 / 10);
    expect(c.noise?.[at('xfs_ilock', 4)]).toBe(1);
    expect(c.maxAbs).toBeCloseTo(25); // iomap, not xfs_ilock's 50
    expect(diffColours(noisy, 'self').noise).toBeNull();
  });

  it('fills: root grey, non-matches faded, noise hatched, else the colour of the change', () => {
    const noisy = diffLayout({ ...t, noise_self: t.name.map((_, i) => i === at('xfs_ilock', 4)), noise_total: null });
    const c = diffColours(noisy, 'self');
    const fill = diffFill(noisy, c, null, 'HATCH');
    expect(fill(0)).toBe(GREY);
    expect(fill(at('xfs_ilock', 4))).toBe('HATCH');
    expect(fill(at('iomap', 4))).toBe('#' + diffRgb(c.delta[at('iomap', 4)]!, c.maxAbs).map((v) => v.toString(16).padStart(2, '0')).join(''));
    const match = new Uint8Array(t.names.length);
    match[t.names.indexOf('iomap')] = 1;
    const searched = diffFill(noisy, c, match, 'HATCH');
    expect(searched(at('write', 3))).toBe(FADED);
    expect(searched(at('iomap', 4))).toBe(fill(at('iomap', 4)));
  });
});

describe('diff colours (testdata/vectors/flame.json, as the SVG export)', () => {
  const cases = vectors<{ diff_colours: { cases: { delta: number; max_abs: number; rgb: number[] }[] } }>('flame').diff_colours.cases;
  it.each(cases.map((c) => [c.delta, c.max_abs, c] as const))('%s of %s', (_, __, c) => expect(diffRgb(c.delta, c.max_abs)).toEqual(c.rgb));
});

describe('too few repeats: grey, not red or blue (testdata/vectors/flame.json few_colours, ratio-tone.json)', () => {
  const cases = vectors<{ few_colours: { cases: { delta: number; max_abs: number; rgb: number[] }[] } }>('flame').few_colours.cases;
  it.each(cases.map((c) => [c.delta, c.max_abs, c] as const))('%s of %s', (_, __, c) => expect(fewRgb(c.delta, c.max_abs)).toEqual(c.rgb));

  // the tables' rule: a case they colour grey '?' (tone 'few') is a difference whose frames are grey
  const tone = vectors<{ min_repeats: number; cases: { name: string; cell: { n: number; mean: number | null }; base: { n: number; mean: number | null }; tone: string }[] }>('ratio-tone');
  it.each(tone.cases.filter((c) => c.tone !== '').map((c) => [c.name, c] as const))('%s', (_, c) => {
    expect(colouredChange(c.base.n, c.cell.n)).toBe(c.tone !== 'few');
  });

  it('a difference of one run a side: every frame grey, the same for a growth as for a shrink', () => {
    const t = { names: ['all', 'fio', 'grew', 'shrank'], name: [0, 1, 2, 3], depth: [0, 1, 2, 2], self_a: [0, 0, 10, 30], self_b: [0, 0, 30, 10] };
    const d = diffLayout(t);
    for (const few of [true, false]) {
      const c = diffColours(d, 'self', few);
      const fill = diffFill(d, c, null, 'hatch');
      const [grew, shrank] = [2, 3].map((n) => fill(n));
      if (few) {
        expect(grew).toBe(shrank);
        expect(grew).toBe(hex(fewRgb(20, 20)));
      } else {
        expect(grew).toBe(hex(diffRgb(20, 20)));
        expect(shrank).toBe(hex(diffRgb(-20, 20)));
      }
    }
  });
});

describe('function table', () => {
  it('sorted by the largest change of the key', () => {
    const rows = [
      { name: 'a', delta_self: 1, delta_total: -9 },
      { name: 'b', delta_self: -3, delta_total: 2 },
      { name: 'c', delta_self: 3, delta_total: 0 },
    ];
    expect(sortDiffFunctions(rows, 'self').map((r) => r.name)).toEqual(['b', 'c', 'a']);
    expect(sortDiffFunctions(rows, 'total').map((r) => r.name)).toEqual(['a', 'b', 'c']);
  });
  it('percentage points', () => {
    expect([formatPp(1.254), formatPp(-0.4), formatPp(0.001), formatPp(12.34)]).toEqual(['+1.25 pp', '−0.40 pp', '0 pp', '+12.3 pp']);
  });
});
