// How a capture's value compares to the baseline's, for colouring. Pure; tests in ratio.test.ts.

export type Tone = 'better' | 'worse' | 'same' | 'neutral' | 'few' | 'none';

/**
 * Fewest repeats on each side for a change to be coloured better or worse: the sweep matrix's rule
 * (backend/iolens/store/stats.py MIN_REPEATS; vectors in testdata/vectors/ratio-tone.json).
 */
export const MIN_REPEATS = 3;
export type Better = 'higher' | 'lower' | 'neutral';

export interface RangeLike {
  n: number;
  mean: number | null;
  min: number | null;
  max: number | null;
}

/** Whether the repeats' ranges [min, max] of two cells overlap (touching counts as overlap). */
export function rangesOverlap(a: RangeLike, b: RangeLike): boolean {
  if (a.min === null || a.max === null || b.min === null || b.max === null) return false;
  return a.min <= b.max && b.min <= a.max;
}

/**
 * Tone of a cell against the baseline:
 * - 'none': this is the baseline, or a mean is missing;
 * - 'few' (grey): either side has fewer than MIN_REPEATS repeats, too few to judge a change (as the
 *   sweep matrix's "too few repeats"): one repeat has no spread to tell a change from noise;
 * - 'same' (grey): the two captures' repeat ranges overlap, so the difference is within the
 *   spread of both; also when the means are equal;
 * - 'neutral' (plain): the metric has no better direction (CPU % of a fixed-time run);
 * - 'better' / 'worse' (green / red): otherwise, by the metric's direction (`better`).
 */
export function ratioTone(cell: RangeLike, base: RangeLike, better: Better, isBaseline = false): Tone {
  if (isBaseline || cell.mean === null || base.mean === null) return 'none';
  if (tooFewRepeats(cell.n, base.n)) return 'few';
  if (cell.mean === base.mean) return 'same';
  if (rangesOverlap(cell, base)) return 'same';
  if (better === 'neutral') return 'neutral';
  const higher = cell.mean > base.mean;
  return higher === (better === 'higher') ? 'better' : 'worse';
}

/** Whether a change between captures of n and nBase repeats is too uncertain to colour (the sweep's rule). */
export function tooFewRepeats(n: number, nBase: number): boolean {
  return n < MIN_REPEATS || nBase < MIN_REPEATS;
}

/** Words for a tone, used in tooltips and accessible names. */
export function toneWords(t: Tone, better: Better): string {
  switch (t) {
    case 'better':
      return `better than baseline (${better} is better; repeat ranges do not overlap)`;
    case 'worse':
      return `worse than baseline (${better} is better; repeat ranges do not overlap)`;
    case 'same':
      return 'within the spread of the repeats (ranges overlap)';
    case 'few':
      return `too few repeats to judge the change (${MIN_REPEATS} needed on both sides)`;
    case 'neutral':
      return 'differs from the baseline (repeat ranges do not overlap); neither direction is better';
    default:
      return '';
  }
}
