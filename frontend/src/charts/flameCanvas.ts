// Drawing a flame graph on a canvas: the rects of logic/flame.ts's visibleRects, one fillRect per
// frame and a label where it fits. No DOM here beyond the 2D context (tests record the calls,
// flameCanvas.test.ts) and the small canvas of noisePattern; the React component
// (cells/flame/FlameChart.tsx) owns the canvas.
import { dim, frameRgb, GREY, hex, MATCH, MERGED, type FlameLayout, type Rect } from '../logic/flame';
import { NOISE, NOISE_LINE } from '../logic/flameDiff';
import type { Names } from '../logic/flameNames';

export const ROW_H = 16;
// the page's mono stack (styles.css --mono says why DejaVu Sans Mono comes first)
export const FONT = '11px "DejaVu Sans Mono", ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
export const TEXT = '#1f2328';

/** The part of CanvasRenderingContext2D this module uses. */
export interface Ctx2D {
  fillStyle: string | CanvasGradient | CanvasPattern;
  font: string;
  textBaseline: CanvasTextBaseline;
  beginPath(): void;
  rect(x: number, y: number, w: number, h: number): void;
  fill(): void;
  fillText(text: string, x: number, y: number): void;
  clearRect(x: number, y: number, w: number, h: number): void;
}

export type Fill = string | CanvasPattern;

export interface DrawStyle {
  width: number;
  /** Deepest depth drawn: the flame's baseline is at the bottom of this row. */
  rows: number;
  icicle: boolean;
  /** Width of one character of FONT, px. */
  charW: number;
  rowH?: number;
  /** The rows in view when the canvas holds only them (FlameChart: a canvas the size of its
   *  scroll box): y of the view's top in the graph and its height, px. Only the view is cleared
   *  and labelled; the context is translated by the caller. Without it, the whole graph is. */
  view?: { top: number; height: number };
}

/** The label that fits in px (cut with '..'), or '' when fewer than 3 characters fit. */
export function fitLabel(text: string, px: number, charW: number): string {
  const n = Math.floor((px - 6) / charW);
  if (n < 3) return '';
  return text.length <= n ? text : text.slice(0, n - 2) + '..';
}

/** y of the top of a frame at this depth. */
export const rowY = (depth: number, s: DrawStyle) => (s.icicle ? depth : s.rows - depth) * (s.rowH ?? ROW_H);

export function drawFlame(ctx: Ctx2D, lay: FlameLayout, rects: readonly Rect[], fill: (node: number) => Fill, s: DrawStyle): void {
  const rowH = s.rowH ?? ROW_H;
  const top = s.view ? s.view.top : 0;
  const bottom = s.view ? s.view.top + s.view.height : (s.rows + 1) * rowH;
  ctx.clearRect(0, top, s.width, bottom - top);
  // One path per fill: a few hundred fills instead of thousands of fillRect calls. With a view,
  // the rects out of it are drawn too (the canvas clips them): the paths stay those of the whole
  // graph, and so do the view's pixels (Skia's anti-aliasing of sub-pixel frames depends on the
  // path, seen in screenshots); a few thousand rects cost little, their labels more.
  const groups = new Map<Fill, number[]>();
  const fills: Fill[] = new Array(rects.length);
  for (let i = 0; i < rects.length; i++) {
    const r = rects[i]!;
    const f = r.node < 0 ? MERGED : fill(r.node);
    fills[i] = f;
    const g = groups.get(f);
    if (g) g.push(i);
    else groups.set(f, [i]);
  }
  for (const [f, idx] of groups) {
    ctx.fillStyle = f;
    ctx.beginPath();
    for (const i of idx) {
      const r = rects[i]!;
      ctx.rect(r.x, rowY(r.depth, s), r.w >= 3 ? r.w - 1 : Math.max(r.w, 0.5), rowH - 1);
    }
    ctx.fill();
  }
  // Labels where at least 3 characters fit: dark, white on search matches.
  ctx.font = FONT;
  ctx.textBaseline = 'middle';
  const minW = 3 * s.charW + 6;
  for (const white of [false, true]) {
    ctx.fillStyle = white ? '#ffffff' : TEXT;
    for (let i = 0; i < rects.length; i++) {
      const r = rects[i]!;
      if (r.node < 0 || r.w < minW || (fills[i] === MATCH) !== white) continue;
      const y = rowY(r.depth, s);
      if (y + rowH <= top || y >= bottom) continue;
      const label = fitLabel(lay.names.get(lay.name[r.node]!)!, r.w, s.charW);
      if (label) ctx.fillText(label, r.x + 3, y + (rowH - 1) / 2 + 0.5);
    }
  }
}

/**
 * Fills of a plain flame graph: warm colours by name (cached per distinct name); the root and
 * command names (depth <= 1) grey; with a search, matches purple and the rest faded. `grey`
 * replaces the depth rule for a tree whose command names lie elsewhere (the sandwich's callers,
 * rooted at a function: its direct callers at depth 1 are functions, the commands at the top).
 */
// Colours per distinct name, kept per names list: the notebook remounts the cell on every zoom
// and search, and hashing every visible name again cost ~10 ms a frame at 450k nodes.
const colourCache = new WeakMap<Names, { base: (string | undefined)[]; dimmed: (string | undefined)[] }>();

export function frameFills(lay: FlameLayout, match: Uint8Array | null, grey?: (node: number) => boolean): (node: number) => string {
  let kept = colourCache.get(lay.names);
  if (!kept) colourCache.set(lay.names, (kept = { base: new Array(lay.names.length), dimmed: new Array(lay.names.length) }));
  const cache = match ? kept.dimmed : kept.base;
  return (node) => {
    if (grey ? grey(node) : lay.depth[node]! <= 1) return match && lay.depth[node]! >= 1 && match[lay.name[node]!] ? MATCH : GREY;
    const k = lay.name[node]!;
    if (match && match[k]) return MATCH;
    let c = cache[k];
    if (c === undefined) {
      const rgb = frameRgb(lay.names.get(k)!);
      c = cache[k] = match ? hex(dim(rgb)) : hex(rgb);
    }
    return c;
  };
}

/** Fills of a half of the sandwich (rooted at a function): every function coloured by name, the
 *  root and its direct callers or callees included; only the task command names (`commands`, the
 *  callers' last frames) grey, as in the flame graph. */
export function sandwichFills(lay: FlameLayout, match: Uint8Array | null, commands: ReadonlySet<number>): (node: number) => string {
  return frameFills(lay, match, (n) => lay.depth[n]! > 0 && commands.has(lay.name[n]!));
}

/** The hatch of a differential frame whose change is within the noise (a 6 px canvas pattern). */
export function noisePattern(): CanvasPattern | null {
  if (typeof document === 'undefined') return null;
  const c = document.createElement('canvas');
  c.width = c.height = 6;
  const g = c.getContext('2d');
  if (!g) return null;
  g.fillStyle = NOISE;
  g.fillRect(0, 0, 6, 6);
  g.strokeStyle = NOISE_LINE;
  g.lineWidth = 1.5;
  g.beginPath();
  g.moveTo(0, 6);
  g.lineTo(6, 0);
  g.moveTo(-1, 1);
  g.lineTo(1, -1);
  g.moveTo(5, 7);
  g.lineTo(7, 5);
  g.stroke();
  return g.createPattern(c, 'repeat');
}

/** The canvas sized for width x height CSS pixels at the screen's pixel ratio (resized only when
 *  that changes), and its context scaled to CSS pixels, its origin `top` CSS pixels above the
 *  canvas (a canvas that shows the rows from `top` of a taller graph); null where there is no 2D
 *  context. */
export function sizedContext(c: HTMLCanvasElement, width: number, height: number, top = 0): CanvasRenderingContext2D | null {
  const dpr = window.devicePixelRatio || 1;
  if (c.width !== Math.round(width * dpr) || c.height !== Math.round(height * dpr)) {
    c.width = Math.round(width * dpr);
    c.height = Math.round(height * dpr);
    c.style.width = `${width}px`;
    c.style.height = `${height}px`;
  }
  const ctx = c.getContext('2d');
  ctx?.setTransform(dpr, 0, 0, dpr, 0, -top * dpr);
  return ctx;
}
