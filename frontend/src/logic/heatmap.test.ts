import { describe, expect, it } from 'vitest';
import { cellAt, cellsOfRange, heatColour, heatmapLayout, legendStops, rangeOfCells, rangeText, SECOND_NS } from './heatmap';

const g = { cols: 4, rows: 50, rowNs: 20_000_000 };

describe('subsecond heatmap', () => {
  it('lays out columns as seconds and rows as fractions, within the width', () => {
    const l = heatmapLayout(g, 400);
    expect(l.cellW).toBe(48); // capped
    expect(l.cellH).toBe(5);
    expect(l.width).toBe(l.left + 4 * 48);
    const wide = heatmapLayout({ ...g, cols: 600 }, 1000);
    expect(wide.cellW).toBe(2);
    expect(heatmapLayout({ ...g, cols: 60 }, 1000).width).toBeLessThanOrEqual(1000);
  });
  it('finds the cell under the pointer, column-major', () => {
    const l = heatmapLayout(g, 400);
    expect(cellAt(g, l, l.left + 1, l.top + 1)).toBe(0);
    expect(cellAt(g, l, l.left + l.cellW + 1, l.top + 2 * l.cellH + 1)).toBe(52);
    expect(cellAt(g, l, l.left - 1, l.top)).toBeNull();
    expect(cellAt(g, l, l.left + 4 * l.cellW, l.top)).toBeNull();
  });
  it('a selection is a time range in time order, either direction', () => {
    expect(rangeOfCells(g, 10, 74)).toEqual({ from: 200_000_000, to: SECOND_NS + 25 * 20_000_000 });
    expect(rangeOfCells(g, 74, 10)).toEqual(rangeOfCells(g, 10, 74));
    expect(rangeOfCells(g, 0, 0)).toEqual({ from: 0, to: 20_000_000 });
  });
  it('a range gives back its cells', () => {
    const r = rangeOfCells(g, 10, 74);
    expect(cellsOfRange(g, r.from, r.to)).toEqual([10, 74]);
    expect(cellsOfRange(g, null, null)).toEqual([0, 199]);
    expect(cellsOfRange(g, 2 * SECOND_NS + 5, null)).toEqual([100, 199]);
    expect(cellsOfRange(g, 9 * SECOND_NS, null)).toBeNull();
  });
  it('colours: empty cells pale, more samples darker', () => {
    expect(heatColour(0, 10)).toBe('#f4f5f7');
    expect(heatColour(1, 10)).not.toBe(heatColour(10, 10));
    expect(legendStops(200)).toEqual([0, 2, 20, 50, 100, 200]);
    expect(legendStops(0)).toEqual([0]);
  });
  it('says ranges in seconds', () => expect(rangeText(null, 1_500_000_000)).toBe('0.000–1.500 s'));
});
