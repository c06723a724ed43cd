// The canvas of the time order: boxes of logic/flameTime.ts against time, the first frame on the
// top row (as Firefox Profiler's stack chart), a time axis above. Mouse: click a box to zoom to
// it, drag to pan, Ctrl+wheel (or a pinch) to zoom around the pointer, Shift+wheel or a sideways
// wheel to pan; keys are the view's (TimeOrderView.tsx). Hover shows the frame (DOM, no redraw).
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { fitLabel, FONT, ROW_H, sizedContext, TEXT } from '../../charts/flameCanvas';
import { MERGED } from '../../logic/flame';
import { boxAt, rowCount, visibleBoxes, type TimeBoxes, type TimeRect } from '../../logic/flameTime';

export interface TimeChartProps {
  boxes: TimeBoxes;
  /** The window shown, ns since the run's origin. */
  from: number;
  to: number;
  onWindow: (from: number, to: number) => void;
  fill: (box: number) => string;
  tooltip: (box: number) => ReactNode;
  onMenu?: (box: number, x: number, y: number) => void;
  /** A click on a box: zoom to [from, to) and make it the current function. */
  onPick?: (box: number, from: number, to: number) => void;
  maxHeight?: number;
}

let charWidth = 0;

/** Tick step (ns) giving about `n` ticks over `span`: 1, 2 or 5 x 10^k. */
export function tickStep(span: number, n = 8): number {
  const raw = span / n;
  const p = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
}

/** A time in seconds with the decimals a step of `step` ns needs. */
export function secondsLabel(t: number, step: number): string {
  const decimals = Math.max(0, Math.min(9, Math.ceil(-Math.log10(step / 1e9) - 1e-9)));
  return `${(t / 1e9).toFixed(decimals)} s`;
}

export function TimeChart({ boxes, from, to, onWindow, fill, tooltip, onMenu, onPick, maxHeight = 560 }: TimeChartProps) {
  const wrap = useRef<HTMLDivElement>(null);
  const host = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [hover, setHover] = useState<{ box: number; rect: TimeRect | null; depth: number; cx: number; cy: number } | null>(null);
  const drag = useRef<{ x: number; from: number; to: number; moved: boolean } | null>(null);

  useLayoutEffect(() => {
    const el = wrap.current;
    if (!el) return;
    setWidth(Math.floor(el.clientWidth));
    const ro = new ResizeObserver(() => setWidth(Math.floor(el.clientWidth)));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const rectsMs = useRef(0);
  const rects = useMemo(() => {
    const t0 = performance.now();
    const r = width > 0 && to > from ? visibleBoxes(boxes, from, to, width) : [];
    rectsMs.current = performance.now() - t0;
    return r;
  }, [boxes, from, to, width]);
  // as tall as the deepest stack in the window
  let rows = 1;
  for (const r of rects) if (r.depth + 1 > rows) rows = r.depth + 1;
  rows = Math.min(rows, Math.max(1, rowCount(boxes)));
  const height = rows * ROW_H;

  useLayoutEffect(() => {
    const c = canvas.current;
    if (!c || width === 0) return;
    const ctx = sizedContext(c, width, height);
    if (!ctx) return;
    const t0 = performance.now();
    ctx.clearRect(0, 0, width, height);
    ctx.font = FONT;
    if (!charWidth) charWidth = ctx.measureText('MMMMMMMMMM').width / 10 || 6.6;
    // one path per fill colour
    const groups = new Map<string, TimeRect[]>();
    for (const r of rects) {
      const f = r.mixed ? MERGED : fill(r.box);
      const g = groups.get(f);
      if (g) g.push(r);
      else groups.set(f, [r]);
    }
    for (const [f, list] of groups) {
      ctx.fillStyle = f;
      ctx.beginPath();
      for (const r of list) ctx.rect(r.x, r.depth * ROW_H, Math.max(r.w - (r.w > 3 ? 1 : 0), 0.5), ROW_H - 1);
      ctx.fill();
    }
    ctx.fillStyle = TEXT;
    ctx.textBaseline = 'middle';
    for (const r of rects) {
      if (r.mixed || r.w < 24) continue;
      const label = fitLabel(boxes.names[boxes.name[r.box]!]!, r.w, charWidth);
      if (label) ctx.fillText(label, r.x + 3, r.depth * ROW_H + ROW_H / 2);
    }
    const ms = performance.now() - t0 + rectsMs.current;
    c.dataset.drawMs = ms.toFixed(2);
    c.dataset.rects = String(rects.length);
    (window.__iolensTimeDraws ??= []).push(ms);
  }, [rects, fill, width, height, boxes]);

  // Ctrl+wheel zooms, Shift+wheel or a sideways wheel pans: a listener that may preventDefault
  const view = useRef({ from, to, width, onWindow });
  view.current = { from, to, width, onWindow };
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      const v = view.current;
      if (v.width === 0) return;
      const span = v.to - v.from;
      const x = e.clientX - el.getBoundingClientRect().left;
      if (e.ctrlKey || e.metaKey) {
        e.preventDefault();
        const k = Math.exp(e.deltaY * 0.0025);
        const at = v.from + (x / v.width) * span;
        v.onWindow(at - (at - v.from) * k, at + (v.to - at) * k);
      } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        e.preventDefault();
        const dx = e.shiftKey ? e.deltaY || e.deltaX : e.deltaX;
        const dt = (dx / v.width) * span;
        v.onWindow(v.from + dt, v.to + dt);
      }
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, []);

  const at = (e: React.MouseEvent) => {
    const box = host.current!.getBoundingClientRect();
    const x = e.clientX - box.left;
    const depth = Math.floor((e.clientY - box.top) / ROW_H);
    const t = from + (x / width) * (to - from);
    const k = boxAt(boxes, depth, t);
    if (k < 0) return null;
    const rect = rects.find((r) => r.depth === depth && x >= r.x && x <= r.x + Math.max(r.w, 1)) ?? null;
    return { box: k, rect, depth, cx: e.clientX, cy: e.clientY };
  };

  const step = tickStep(to - from);
  const ticks: number[] = [];
  // a label needs about 70 px: none past the right edge
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) if (((t - from) / (to - from)) * width < width - 70) ticks.push(t);

  return (
    <div className="time-chart" data-testid="time-chart">
      <div className="time-axis" aria-hidden="true">
        {width > 0 &&
          ticks.map((t) => (
            <span key={t} className="tick" style={{ left: ((t - from) / (to - from)) * width }}>
              {secondsLabel(t, step)}
            </span>
          ))}
      </div>
      <div className="flame-chart" ref={wrap} style={{ maxHeight }}>
        <div
          className="flame-canvas-box time-canvas-box"
          ref={host}
          style={{ height }}
          onMouseDown={(e) => {
            if (e.button === 0) drag.current = { x: e.clientX, from, to, moved: false };
          }}
          onMouseMove={(e) => {
            const d = drag.current;
            if (d && (e.buttons & 1) === 1) {
              const dx = e.clientX - d.x;
              if (Math.abs(dx) > 3) d.moved = true;
              if (d.moved) {
                const dt = (-dx / width) * (d.to - d.from);
                onWindow(d.from + dt, d.to + dt);
                setHover(null);
                return;
              }
            }
            setHover(at(e));
          }}
          onMouseLeave={() => setHover(null)}
          onMouseUp={(e) => {
            const d = drag.current;
            drag.current = null;
            if (!d || d.moved) return;
            const h = at(e);
            if (h) {
              const pad = (boxes.end[h.box]! - boxes.start[h.box]!) * 0.05;
              (onPick ?? ((_b: number, f: number, t: number) => onWindow(f, t)))(h.box, boxes.start[h.box]! - pad, boxes.end[h.box]! + pad);
            }
          }}
          onContextMenu={(e) => {
            const h = onMenu ? at(e) : null;
            if (!h) return;
            e.preventDefault();
            setHover(null);
            onMenu!(h.box, e.clientX, e.clientY);
          }}
        >
          <canvas ref={canvas} data-testid="time-canvas" role="img" aria-label="Time order: click a box to zoom to it, drag to pan, Ctrl+wheel to zoom, right click for transforms" />
          {hover && (
            <div
              className="flame-hover"
              style={{
                left: Math.max(0, ((boxes.start[hover.box]! - from) / (to - from)) * width),
                top: hover.depth * ROW_H,
                width: Math.max(1, Math.min(width, ((boxes.end[hover.box]! - from) / (to - from)) * width) - Math.max(0, ((boxes.start[hover.box]! - from) / (to - from)) * width) - 1),
                height: ROW_H - 1,
              }}
            />
          )}
          {hover && (
            <div className="flame-tooltip" role="tooltip" data-testid="time-tooltip" style={tooltipBox(hover.cx, hover.cy)}>
              {tooltip(hover.box)}
            </div>
          )}
        </div>
      </div>
    </div>
  );
}

function tooltipBox(cx: number, cy: number): React.CSSProperties {
  const style: React.CSSProperties = {};
  if (cx > window.innerWidth - 400) style.right = window.innerWidth - cx + 12;
  else style.left = cx + 14;
  if (cy > window.innerHeight - 170) style.bottom = window.innerHeight - cy + 10;
  else style.top = cy + 16;
  return style;
}
