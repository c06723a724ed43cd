// How a capture's value compares to the baseline's, for colouring. Pure; tests in ratio.test.ts.

export type Tone = 'better' | 'worse' | 'same' | 'neutral' | 'none';
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
 * - 'same' (grey): the two captures' repeat ranges overlap, so the difference is within the
 *   spread of both; also when the means are equal;
 * - 'neutral' (plain): the metric has no better direction (CPU % of a fixed-time run);
 * - 'better' / 'worse' (green / red): otherwise, by the metric's direction (`better`).
 * A single repeat has min = max = its value, so two single runs are judged by direction alone.
 */
export function ratioTone(cell: RangeLike, base: RangeLike, better: Better, isBaseline = false): Tone {
  if (isBaseline || cell.mean === null || base.mean === null) return 'none';
  if (cell.mean === base.mean) return 'same';
  if (rangesOverlap(cell, base)) return 'same';
  if (better === 'neutral') return 'neutral';
  const higher = cell.mean > base.mean;
  return higher === (better === 'higher') ? 'better' : 'worse';
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
    case 'neutral':
      return 'differs from the baseline (repeat ranges do not overlap); neither direction is better';
    default:
      return '';
  }
}
