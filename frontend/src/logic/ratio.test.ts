import { describe, expect, it } from 'vitest';
import { vectors } from '../testdata/vectors';
import { MIN_REPEATS, rangesOverlap, ratioTone, toneWords } from './ratio';

const c = (min: number, max: number, n = 3) => ({ n, mean: (min + max) / 2, min, max });

describe('ratioTone', () => {
  it('green when higher-is-better and clearly higher', () => {
    expect(ratioTone(c(110, 120), c(90, 100), 'higher')).toBe('better');
  });
  it('red when higher-is-better and clearly lower', () => {
    expect(ratioTone(c(80, 85), c(90, 100), 'higher')).toBe('worse');
  });
  it('lower-is-better flips the colours (latency, CPU)', () => {
    expect(ratioTone(c(80, 85), c(90, 100), 'lower')).toBe('better');
    expect(ratioTone(c(110, 120), c(90, 100), 'lower')).toBe('worse');
  });
  it('grey when the min–max ranges overlap, whatever the direction', () => {
    expect(ratioTone(c(95, 120), c(90, 100), 'higher')).toBe('same');
    expect(ratioTone(c(100, 120), c(90, 100), 'lower')).toBe('same'); // touching counts
  });
  it('single repeats are too few to judge, as the sweep matrix (grey, not green)', () => {
    expect(ratioTone(c(101, 101, 1), c(100, 100, 1), 'higher')).toBe('few');
    expect(ratioTone(c(100, 100, 1), c(100, 100, 1), 'higher')).toBe('few');
    expect(toneWords('few', 'higher')).toMatch(/too few repeats/);
  });
  it('no tone for the baseline itself or missing values', () => {
    expect(ratioTone(c(1, 2), c(1, 2), 'higher', true)).toBe('none');
    expect(ratioTone({ n: 0, mean: null, min: null, max: null }, c(1, 2), 'higher')).toBe('none');
  });
  it('rangesOverlap is false when a range is missing', () => {
    expect(rangesOverlap({ n: 0, mean: null, min: null, max: null }, c(1, 2))).toBe(false);
  });
});

describe('neutral metrics', () => {
  it('are never coloured better or worse, only told apart from noise', () => {
    const base = { n: 3, mean: 40, min: 39, max: 41 };
    expect(ratioTone({ n: 3, mean: 60, min: 59, max: 61 }, base, 'neutral')).toBe('neutral');
    expect(ratioTone({ n: 3, mean: 40.5, min: 40, max: 41 }, base, 'neutral')).toBe('same');
    expect(toneWords('neutral', 'neutral')).toMatch(/neither direction/);
  });
});

interface ToneCase {
  name: string;
  cell: { n: number; mean: number | null; min: number | null; max: number | null };
  base: { n: number; mean: number | null; min: number | null; max: number | null };
  better: 'higher' | 'lower' | 'neutral';
  tone: string;
}
const TONE = vectors<{ min_repeats: number; cases: ToneCase[] }>('ratio-tone');

describe('shared vectors (testdata/vectors/ratio-tone.json)', () => {
  it('uses the same fewest repeats', () => {
    expect(MIN_REPEATS).toBe(TONE.min_repeats);
  });
  for (const v of TONE.cases) {
    it(v.name, () => {
      const tone = ratioTone(v.cell, v.base, v.better);
      expect(tone === 'none' ? '' : tone).toBe(v.tone);
    });
  }
});
