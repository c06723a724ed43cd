// Layout of a dot strip: the per-repeat values of one capture on a row's shared x scale, with
// the capture's mean and the baseline's mean marked. Pure; tests in dotStrip.test.ts.
import { scaleLinear } from 'd3-scale';

export interface StripLayout {
  width: number;
  height: number;
  /** x of each value, in the order given. */
  dots: number[];
  meanX: number | null;
  baselineX: number | null;
}

export function stripLayout(
  values: readonly number[],
  mean: number | null,
  baselineMean: number | null,
  domain: readonly [number, number],
  width = 72,
  height = 14,
  pad = 4,
): StripLayout {
  let [lo, hi] = domain;
  if (lo === hi) {
    // One value for the whole row: centre it.
    const d = Math.abs(lo) * 0.01 || 1;
    lo -= d;
    hi += d;
  }
  const x = scaleLinear().domain([lo, hi]).range([pad, width - pad]).clamp(true);
  const r = (v: number) => Math.round(x(v) * 10) / 10;
  return {
    width,
    height,
    dots: values.filter(Number.isFinite).map(r),
    meanX: mean === null ? null : r(mean),
    baselineX: baselineMean === null ? null : r(baselineMean),
  };
}
