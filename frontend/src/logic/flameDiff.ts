// Differential flame graph, pure: widths from the second capture (b), colour by the change of
// each frame's share of its capture's samples (percentage points, each side normalised by its own
// total), red where it grew, blue where it shrank, intensity |change| / the largest |change| of
// the tree. A change within the spread between repeats (the API's noise flags) is grey and
// hatched. With fewer than MIN_REPEATS runs on a side (ratio.ts tooFewRepeats: the compared-metric
// tables' grey '?', vectors testdata/vectors/ratio-tone.json) no change is coloured red or blue:
// frames are grey, darker by |change| (fewRgb), whether it grew or shrank. Tests in flameDiff.test.ts; the colours are the backend SVG's
// (backend/iolens/store/rules/flame.py), both tested on testdata/vectors/flame.json.
import { GREY, hex, layoutTree, type FlameLayout, type Rgb } from './flame';
import { MIN_REPEATS, tooFewRepeats } from './ratio';
import type { Names } from './flameNames';

export const NEUTRAL: Rgb = [238, 235, 231];
export const GREW: Rgb = [214, 69, 61];
export const SHRANK: Rgb = [59, 111, 196];
/** A change not coloured red or blue: too few repeats to judge it (fewRgb). */
export const FEW: Rgb = [122, 127, 135];
export const NOISE = '#d3d6db';
export const NOISE_LINE = '#aeb3ba';
/** A frame that does not match the search. */
export const FADED = '#f1f1f1';

export type ColourBy = 'self' | 'total';

/** Red when the share grew, blue when it shrank, intensity |delta| / maxAbs. */
export function diffRgb(delta: number, maxAbs: number): Rgb {
  const t = maxAbs > 0 ? Math.min(1, Math.abs(delta) / maxAbs) : 0;
  const target = delta > 0 ? GREW : SHRANK;
  return [0, 1, 2].map((k) => Math.floor(NEUTRAL[k]! + (target[k]! - NEUTRAL[k]!) * t + 0.5)) as Rgb;
}

/** A change between sides with too few repeats to judge it: grey, darker by |delta| / maxAbs. */
export function fewRgb(delta: number, maxAbs: number): Rgb {
  const t = maxAbs > 0 ? Math.min(1, Math.abs(delta) / maxAbs) : 0;
  return [0, 1, 2].map((k) => Math.floor(NEUTRAL[k]! + (FEW[k]! - NEUTRAL[k]!) * t + 0.5)) as Rgb;
}

/** Whether a difference of sides with these runs colours its changes red and blue: not with fewer
 *  than MIN_REPEATS runs on a side (the compared-metric tables' grey '?', ratio.ts tooFewRepeats). */
export function colouredChange(runsA: number, runsB: number): boolean {
  return !tooFewRepeats(runsA, runsB);
}

/**
 * Why a difference of two time ranges of one capture is grey (fewer than MIN_REPEATS runs in its
 * selection: colouredChange), and whether selecting every run of the capture colours it. Both
 * ranges are of the same runs, so recording more repeats of a side is no answer: with MIN_REPEATS
 * or more runs in the capture, the ranges over every run (the same seconds since each run's first
 * sample) are; with fewer, the difference has no noise estimate. The text report says the same
 * (backend exports/flame.py range_few_text).
 */
export function rangeFewText(selected: number, all: number): { text: string; everyRun: boolean } {
  const runs = (n: number) => (n === 0 ? 'no run' : n === 1 ? 'one run' : n === 2 ? 'two runs' : `${n} runs`);
  if (all >= MIN_REPEATS)
    return {
      everyRun: true,
      text:
        `Both ranges are of ${runs(selected)} of this capture's ${all}: fewer than ${MIN_REPEATS} repeats are too few to tell a change from noise (the compared-metric tables' grey ?). ` +
        `Over every run, each range is the same seconds of each of the ${all} runs, and a change is coloured where it stands out of the spread between them.`,
    };
  return {
    everyRun: false,
    text:
      `This capture has ${runs(all)} with samples: a difference of two time ranges of it has no noise estimate. Telling a change from noise takes the spread between ${MIN_REPEATS} or more repeats of the same seconds, ` +
      `and both ranges are of the same ${all === 1 ? 'run' : 'runs'}. The tooltips and the table give each change, not coloured red or blue.`,
  };
}

/** The API's FlameDiffTree (the fields this module reads). */
export interface DiffColumns {
  names: Names | string[];
  name: ArrayLike<number>;
  depth: ArrayLike<number>;
  self_a: ArrayLike<number>;
  self_b: ArrayLike<number>;
  samples_a?: ArrayLike<number>;
  samples_b?: ArrayLike<number>;
  /** Per node, true or 1: the change is within the noise (the columns answer's u8 flags). */
  noise_self?: ArrayLike<boolean | number> | null;
  noise_total?: ArrayLike<boolean | number> | null;
}

export interface DiffLayout {
  /** Widths from b. */
  lay: FlameLayout;
  selfA: Float64Array;
  totalA: Float64Array;
  samplesA: Float64Array;
  samplesB: Float64Array;
  sumA: number;
  sumB: number;
  noiseSelf: Uint8Array | null;
  noiseTotal: Uint8Array | null;
}

export function diffLayout(t: DiffColumns): DiffLayout {
  const lay = layoutTree({ names: t.names, name: t.name, depth: t.depth, self: t.self_b });
  const parent = lay.parent;
  const n = lay.n;
  const selfA = Float64Array.from(t.self_a);
  const totalA = Float64Array.from(selfA);
  const samplesA = t.samples_a ? Float64Array.from(t.samples_a) : new Float64Array(n);
  const samplesB = t.samples_b ? Float64Array.from(t.samples_b) : new Float64Array(n);
  for (let i = n - 1; i > 0; i--) {
    totalA[parent[i]!]! += totalA[i]!;
    samplesA[parent[i]!]! += samplesA[i]!;
    samplesB[parent[i]!]! += samplesB[i]!;
  }
  const flags = (f: ArrayLike<boolean | number> | null | undefined) => (f ? Uint8Array.from(f, (x) => (x ? 1 : 0)) : null);
  return { lay, selfA, totalA, samplesA, samplesB, sumA: totalA[0] ?? 0, sumB: lay.total[0] ?? 0, noiseSelf: flags(t.noise_self), noiseTotal: flags(t.noise_total) };
}

const pct = (x: number, total: number) => (total > 0 ? (100 * x) / total : 0);

export interface DiffColours {
  /** Per node: the change of share, percentage points. */
  delta: Float64Array;
  noise: Uint8Array | null;
  /** The largest |delta| of a frame drawn (width in b > 0) that is not noise. */
  maxAbs: number;
  /** Too few repeats on a side: changes grey (fewRgb), not red and blue. */
  few: boolean;
}

export function diffColours(d: DiffLayout, by: ColourBy, few = false): DiffColours {
  const { lay } = d;
  const delta = new Float64Array(lay.n);
  const noise = by === 'self' ? d.noiseSelf : d.noiseTotal;
  let maxAbs = 0;
  for (let i = 0; i < lay.n; i++) {
    const a = by === 'self' ? d.selfA[i]! : d.totalA[i]!;
    const b = by === 'self' ? lay.self[i]! : lay.total[i]!;
    const v = pct(b, d.sumB) - pct(a, d.sumA);
    delta[i] = v;
    if (lay.total[i]! > 0 && !(noise && noise[i]) && Math.abs(v) > maxAbs) maxAbs = Math.abs(v);
  }
  return { delta, noise, maxAbs, few };
}

/** What a node's tooltip says in a difference. */
export interface DiffNodeInfo {
  selfA: number;
  selfB: number;
  totalA: number;
  totalB: number;
  samplesA: number;
  samplesB: number;
  noiseSelf: boolean | null;
  noiseTotal: boolean | null;
}

export function diffNodeInfo(d: DiffLayout, i: number): DiffNodeInfo {
  return {
    selfA: pct(d.selfA[i]!, d.sumA),
    selfB: pct(d.lay.self[i]!, d.sumB),
    totalA: pct(d.totalA[i]!, d.sumA),
    totalB: pct(d.lay.total[i]!, d.sumB),
    samplesA: d.samplesA[i]!,
    samplesB: d.samplesB[i]!,
    noiseSelf: d.noiseSelf ? d.noiseSelf[i] === 1 : null,
    noiseTotal: d.noiseTotal ? d.noiseTotal[i] === 1 : null,
  };
}

/** Rows of the API's function table, ordered by the largest |change| of the key. */
export function sortDiffFunctions<T extends { name: string; delta_self: number; delta_total: number }>(rows: readonly T[], by: ColourBy): T[] {
  const k = by === 'self' ? 'delta_self' : 'delta_total';
  return [...rows].sort((p, q) => Math.abs(q[k]) - Math.abs(p[k]) || (p.name < q.name ? -1 : p.name > q.name ? 1 : 0));
}

/** "+1.25 pp", "−0.40 pp", "0 pp". */
export function formatPp(v: number): string {
  if (Math.abs(v) < 0.005) return '0 pp';
  const s = Math.abs(v) >= 10 ? Math.abs(v).toFixed(1) : Math.abs(v).toFixed(2);
  return `${v > 0 ? '+' : '−'}${s} pp`;
}

/**
 * The fill of each node of a differential graph: the root grey; with a search, the frames that
 * do not match faded; a change within the spread between repeats `noiseFill` (the hatch); else
 * the colour of its change (cached per 1e-4 percentage points).
 */
export function diffFill<P>(d: DiffLayout, colours: DiffColours, match: Uint8Array | null, noiseFill: P | string): (n: number) => P | string {
  const cache = new Map<number, string>();
  return (n) => {
    if (d.lay.depth[n] === 0) return GREY;
    if (match && !match[d.lay.name[n]!]) return FADED;
    if (colours.noise && colours.noise[n] && Math.abs(colours.delta[n]!) > 0) return noiseFill;
    const key = Math.round(colours.delta[n]! * 1e4);
    let c = cache.get(key);
    if (!c) cache.set(key, (c = hex((colours.few ? fewRgb : diffRgb)(colours.delta[n]!, colours.maxAbs))));
    return c;
  };
}
