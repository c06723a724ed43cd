import { describe, expect, it } from 'vitest';
import { stripLayout } from './dotStrip';

describe('dot strip layout', () => {
  it('maps values on the shared domain with padding', () => {
    const l = stripLayout([0, 50, 100], 50, 0, [0, 100], 72, 14, 4);
    expect(l.dots).toEqual([4, 36, 68]);
    expect(l.meanX).toBe(36);
    expect(l.baselineX).toBe(4);
  });
  it('centres a single value and drops non-finite ones', () => {
    const l = stripLayout([5, Number.NaN], 5, null, [5, 5], 72, 14, 4);
    expect(l.dots).toEqual([36]);
    expect(l.baselineX).toBeNull();
  });
});
