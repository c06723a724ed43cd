// The timeline's drawing, recorded through a fake canvas: no text over a bar, no text over other
// text, every text inside the canvas, at the e2e width (1440 px page) and at a narrow one.
import { describe, expect, it } from 'vitest';
import type { components } from '../../api/schema';
import { layoutRows, LABEL_W, type Scale, type TrackShape } from '../../logic/timeline';
import { canvasWidth, drawAxis, drawRow, GRID, ROW_BG, type Paint } from './draw';

type Track = components['schemas']['TimelineTrack'];
interface Box { x0: number; x1: number; y0: number; y1: number }
interface Text extends Box { text: string }

const CHAR = 6.2; // px per character of the 11 px font, a little wide (Inter's digits are ~6.1)

/** A Paint that records texts and filled rectangles (clipped as the canvas would clip them). */
function recorder() {
  const texts: Text[] = [];
  const bars: Box[] = [];
  let clip: Box | null = null;
  let path: Box | null = null;
  const stack: (Box | null)[] = [];
  const g = {
    font: '', textBaseline: 'alphabetic', textAlign: 'start', fillStyle: '#000', strokeStyle: '#000', lineWidth: 1, globalAlpha: 1,
    measureText: (s: string) => ({ width: s.length * CHAR }),
    fillText(text: string, x: number, y: number) {
      const w = text.length * CHAR;
      const x0 = this.textAlign === 'right' ? x - w : this.textAlign === 'center' ? x - w / 2 : x;
      const y0 = this.textBaseline === 'top' ? y : this.textBaseline === 'middle' ? y - 6 : y - 10;
      texts.push({ text, x0, x1: x0 + w, y0, y1: y0 + 12 });
    },
    fillRect(x: number, y: number, w: number, h: number) {
      if (this.fillStyle === ROW_BG || this.fillStyle === GRID) return; // backgrounds and grid lines
      let b = { x0: x, x1: x + w, y0: y, y1: y + h };
      if (clip) b = { x0: Math.max(b.x0, clip.x0), x1: Math.min(b.x1, clip.x1), y0: Math.max(b.y0, clip.y0), y1: Math.min(b.y1, clip.y1) };
      if (b.x1 > b.x0 && b.y1 > b.y0) bars.push(b);
    },
    strokeRect() {},
    save: () => stack.push(clip),
    restore: () => {
      clip = stack.pop() ?? null;
    },
    beginPath: () => {
      path = null;
    },
    rect: (x: number, y: number, w: number, h: number) => {
      path = { x0: x, x1: x + w, y0: y, y1: y + h };
    },
    clip: () => {
      clip = path;
    },
  };
  return { g: g as unknown as Paint, texts, bars };
}

const overlap = (a: Box, b: Box) => a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;

const N = 200;
const base = { aligned: true, available: true, bucket_ns: 1e7, buckets: N, elapsed_ms: 1, from_ns: 0, grid_lo_ns: 0, to_ns: N * 1e7, run: 'r000', note: null } as const;
// the first column is the highest: the old "max" label sat on it
const tall = Array.from({ length: N }, (_, i) => (i === 0 ? 40 : 10 + (i % 7)));
const tracks: Track[] = [
  { ...base, kind: 'cpu', cpus: [0, 1].map((cpu) => ({ cpu, busy: Array(N).fill(1), task: Array(N).fill(0) })), names: ['fio'], level_ns: 1e6 },
  { ...base, kind: 'block', depth: tall, iops: tall.map((v) => v * 1000), device: '7,0' },
  { ...base, kind: 'fio', ddirs: [{ ddir: 'write', iops: tall.map((v) => v * 999) }] },
  { ...base, kind: 'samples', counts: tall, event: 'cpu-clock' },
] as unknown as Track[];
const KINDS = ['cpu', 'block', 'fio', 'samples'] as const;

function draw(pageW: number, available: boolean[]) {
  // TimelineCell: the plot takes the box's width less the label column, at least 200 px
  const plotW = Math.max(200, pageW - 40 - LABEL_W - 12);
  const shapes: TrackShape[] = KINDS.map((k, i) => ({
    track: k,
    available: available[i]!,
    note: available[i] ? null : `no ${k} data in this run (iolens-collect run --${k} and a long explanation of why not)`,
    cpus: k === 'cpu' ? [0, 1] : undefined,
  }));
  const { rows, height } = layoutRows(shapes);
  const s: Scale = { from: 0, to: N * 1e7, left: LABEL_W, width: plotW };
  const rec = recorder();
  drawAxis(rec.g, s, height);
  for (const r of rows) drawRow(rec.g, r, s, available[KINDS.indexOf(r.track)] ? tracks[KINDS.indexOf(r.track)] : undefined);
  return { ...rec, width: canvasWidth(plotW), height, rows };
}

describe('timeline drawing', () => {
  for (const pageW of [1440, 760, 360]) {
    for (const available of [[true, true, true, true], [false, true, false, true], [false, false, false, false]]) {
      it(`at ${pageW} px, tracks ${available.map((a) => (a ? 'on' : 'off')).join('/')}: no text over a bar or other text, all inside the canvas`, () => {
        const { texts, bars, width, height } = draw(pageW, available);
        expect(texts.length).toBeGreaterThan(0);
        for (const t of texts) {
          const on = bars.find((b) => overlap(t, b));
          expect(on, `"${t.text}" at ${t.x0.toFixed(0)}-${t.x1.toFixed(0)} x ${t.y0}-${t.y1} overlaps a bar`).toBeUndefined();
          expect(t.x0, `"${t.text}" starts left of the canvas`).toBeGreaterThanOrEqual(0);
          expect(t.x1, `"${t.text}" ends right of the canvas (${width} px)`).toBeLessThanOrEqual(width);
          expect(t.y1).toBeLessThanOrEqual(height);
        }
        for (let i = 0; i < texts.length; i++)
          for (let j = i + 1; j < texts.length; j++) expect(overlap(texts[i]!, texts[j]!), `"${texts[i]!.text}" overlaps "${texts[j]!.text}"`).toBe(false);
      });
    }
  }
  it('every chart row still says its scale (the tallest column), under its name', () => {
    const { texts, rows } = draw(1440, [true, true, true, true]);
    for (const r of rows.filter((r) => r.track !== 'cpu')) {
      const inRow = texts.filter((t) => t.y0 >= r.y && t.y1 <= r.y + r.h && t.x1 <= LABEL_W);
      expect(inRow.map((t) => t.text), r.key).toEqual([r.label, expect.stringMatching(/^max \d/)]);
    }
    // the review's 'queue depth max 32.0': an integer-valued depth as an integer, every scale with its unit
    // (the export's rule, testdata/vectors/number-format.json)
    const scales = texts.map((t) => t.text).filter((t) => t.startsWith('max '));
    expect(scales).toEqual(['max 40 I/Os', 'max 40.00k IO/s', 'max 39.96k IO/s', 'max 4.000k/s']);
  });
});
