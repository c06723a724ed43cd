import { interpolateYlOrRd as d3YlOrRd, schemeTableau10 } from 'd3-scale-chromatic';
import { describe, expect, it } from 'vitest';
import { captureColor, interpolateYlOrRd, TABLEAU10 } from './colors';

describe('palettes written out (not d3-scale-chromatic on the page)', () => {
  it('TABLEAU10 is d3-scale-chromatic schemeTableau10', () => {
    expect(TABLEAU10).toEqual(schemeTableau10);
    expect([0, 9, 10, -1].map(captureColor)).toEqual([schemeTableau10[0], schemeTableau10[9], schemeTableau10[0], schemeTableau10[9]]);
  });

  it('interpolateYlOrRd gives the same string as d3-scale-chromatic for every t', () => {
    const ts = [-1, -1e-9, 0, 1, 1 + 1e-9, 2, NaN, 0.5, 1 / 3, 0.125];
    for (let i = 0; i <= 20_000; i++) ts.push(i / 20_000);
    for (let i = 0; i < 2_000; i++) ts.push(Math.sin(i * 12.9898) * 0.5 + 0.5);
    const differ = ts.filter((t) => interpolateYlOrRd(t) !== d3YlOrRd(t));
    expect(differ).toEqual([]);
    expect(interpolateYlOrRd(0)).toBe(d3YlOrRd(0));
    expect(interpolateYlOrRd(0.5)).toMatch(/^rgb\(\d+, \d+, \d+\)$/);
  });
});
