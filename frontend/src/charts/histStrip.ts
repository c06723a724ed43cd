// Layout of a histogram strip: counts per bin as bars on a row's width, every row of a table on
// the same bins (so strips line up), with markers at positions given in bins (p50, p90, p99 of a
// delay distribution). Bars are scaled to the row's largest bin: the strip shows a shape, the
// table's numbers say how many. Pure; tests in histStrip.test.ts. Drawn by HistStrip.tsx.

export interface StripBar {
  i: number;
  x: number;
  w: number;
  y: number;
  h: number;
}

export interface StripMark {
  key: string;
  x: number;
}

export interface HistStripLayout {
  width: number;
  height: number;
  bars: StripBar[];
  marks: StripMark[];
}

const r1 = (v: number) => Math.round(v * 10) / 10;

/** Bars of the non-empty bins (at least 1 px high), marks at `pos` bins from the left edge. */
export function layoutHistStrip(bins: readonly number[], marks: readonly { key: string; pos: number }[], width: number, height: number): HistStripLayout {
  const n = Math.max(1, bins.length);
  const bw = width / n;
  const top = Math.max(0, ...bins);
  const bars: StripBar[] = [];
  bins.forEach((c, i) => {
    if (!(c > 0)) return;
    const h = Math.max(1, top > 0 ? (c / top) * (height - 1) : 0);
    bars.push({ i, x: r1(i * bw + 0.5), w: r1(Math.max(1, bw - 1)), y: r1(height - h), h: r1(h) });
  });
  return {
    width,
    height,
    bars,
    marks: marks.map((m) => ({ key: m.key, x: r1(Math.max(0, Math.min(n, m.pos)) * bw) })),
  };
}

/** x of a position in bins on a strip of this width: the axis labels above a column of strips. */
export const stripX = (pos: number, nBins: number, width: number): number => r1((Math.max(0, Math.min(nBins, pos)) * width) / Math.max(1, nBins));
