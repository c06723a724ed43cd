// The flame cell's time fields of issue 17: the heatmap (hm=) and the second range (tb=).
import { describe, expect, it } from 'vitest';
import { decodeFlame, defaultFlameState, encodeFlame } from './state';

describe('flame cell state: heatmap and two ranges', () => {
  it('reads well in a URL', () => {
    const s = { ...defaultFlameState, runs: ['r000'], from: null, to: 1_000_000_000, heatmap: 50, rangeB: { from: 2_000_000_000, to: 3_000_000_000 } };
    expect(encodeFlame(s)).toBe('runs=r000;t=0-1000000000;hm=50;tb=2000000000-3000000000');
    expect(decodeFlame(encodeFlame(s))).toEqual(s);
  });
  it('a range B from 0 and to the end', () => {
    const s = { ...defaultFlameState, rangeB: { from: 0, to: null } };
    expect(encodeFlame(s)).toBe('tb=0-');
    expect(decodeFlame('tb=0-')).toEqual(s);
  });
  it('rejects garbage with a reason', () => {
    expect((decodeFlame('hm=7') as Error).message).toMatch(/row count/);
    expect((decodeFlame('hm=x') as Error).message).toMatch(/row count/);
    expect((decodeFlame('tb=5-5') as Error).message).toMatch(/empty/);
    expect((decodeFlame('tb=a-b') as Error).message).toMatch(/FROM-TO/);
  });
});
