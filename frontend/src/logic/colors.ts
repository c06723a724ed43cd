// One colour per capture, by its position in the compared set (not by baseline), so a capture
// keeps its colour when the baseline changes. Tableau 10: distinct, calm, colour-blind aware.
//
// The palettes are written out here, not imported from d3-scale-chromatic: that module builds all
// of its ~40 colour ramps when it is first evaluated (its one file cannot be tree-shaken), ~16 KB
// of script on a notebook page's first paint for ten colours (issue 17). colors.test.ts checks
// them against d3-scale-chromatic's.

/** d3-scale-chromatic's schemeTableau10. */
export const TABLEAU10: readonly string[] = ['#4e79a7', '#f28e2c', '#e15759', '#76b7b2', '#59a14f', '#edc949', '#af7aa1', '#ff9da7', '#9c755f', '#bab0ab'];

export function captureColor(index: number): string {
  const n = TABLEAU10.length;
  return TABLEAU10[((index % n) + n) % n] ?? '#4e79a7';
}

/** d3-scale-chromatic's 9-class YlOrRd, the stops of interpolateYlOrRd. */
const YL_OR_RD = ['#ffffcc', '#ffeda0', '#fed976', '#feb24c', '#fd8d3c', '#fc4e2a', '#e31a1c', '#bd0026', '#800026'];

/** d3-interpolate's uniform cubic B-spline through `values` (interpolateBasis), t in [0, 1]. */
function basisSpline(values: readonly number[]): (t: number) => number {
  const n = values.length - 1;
  return (t) => {
    let i: number;
    if (t <= 0) i = t = 0;
    else if (t >= 1) {
      t = 1;
      i = n - 1;
    } else i = Math.floor(t * n);
    const v1 = values[i]!;
    const v2 = values[i + 1]!;
    const v0 = i > 0 ? values[i - 1]! : 2 * v1 - v2;
    const v3 = i < n - 1 ? values[i + 2]! : 2 * v2 - v1;
    const t1 = (t - i / n) * n;
    const t2 = t1 * t1;
    const t3 = t2 * t1;
    return ((1 - 3 * t1 + 3 * t2 - t3) * v0 + (4 - 6 * t2 + 3 * t3) * v1 + (1 + 3 * t1 + 3 * t2 - 3 * t3) * v2 + t3 * v3) / 6;
  };
}

const channel = (k: number) => basisSpline(YL_OR_RD.map((hex) => parseInt(hex.slice(1 + 2 * k, 3 + 2 * k), 16)));
const ylOrRd = [channel(0), channel(1), channel(2)];
const byte = (v: number) => Math.max(0, Math.min(255, Math.round(v) || 0));

/** d3-scale-chromatic's interpolateYlOrRd (interpolateRgbBasis of YL_OR_RD): 'rgb(r, g, b)'. */
export function interpolateYlOrRd(t: number): string {
  return `rgb(${byte(ylOrRd[0]!(t))}, ${byte(ylOrRd[1]!(t))}, ${byte(ylOrRd[2]!(t))})`;
}
