// A timeline selection replaces the flame cell's own ranges and runs: the notice names what it
// replaces (the text and HTML reports say the same: exports/flame.py own_ranges_text).
import { expect, test } from 'vitest';
import { ownRangesText } from './sharedTime';

test("the cell's own ranges A and B, its range, its runs, or nothing", () => {
  expect(ownRangesText({ from: 2e8, to: 1.5e9, rangeB: { from: 2e9, to: 3e9 }, runs: ['r000'] })).toBe('ranges A 0.200–1.500 s and B 2.000–3.000 s of run r000');
  expect(ownRangesText({ from: null, to: 1e9, rangeB: { from: 2e9, to: null }, runs: null })).toBe('ranges A 0.000–1.000 s and B 2.000 s to the end');
  expect(ownRangesText({ from: 5e8, to: null, rangeB: null, runs: ['r000', 'r001'] })).toBe('range 0.500 s to the end of runs r000, r001');
  expect(ownRangesText({ from: null, to: null, rangeB: null, runs: ['r002'] })).toBe('run r002');
  expect(ownRangesText({ from: null, to: null, rangeB: null, runs: null })).toBeNull();
});
