// The canvas of a flame graph: draws the rects of the current zoom, hit-tests the mouse, shows a
// tooltip and a hover outline (DOM, so hovering never redraws), and zooms on click. Each draw's
// time is kept on the canvas (data-draw-ms) and in window.__iolensFlameDraws for measurement.
import { useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { drawFlame, FONT, ROW_H, rowY, sizedContext, type Fill } from '../../charts/flameCanvas';
import { hitTest, rectsDepth, visibleRects, type FlameLayout, type Rect } from '../../logic/flame';
import { fmtInt } from '../../logic/flameFormat';

declare global {
  interface Window {
    /** Time of each frame drawn (rects found + painted), ms: read by e2e/flame.spec.ts. */
    __iolensFlameDraws?: number[];
    /** Time of each layout (d3 hierarchy + partition of a whole tree), ms. */
    __iolensFlameLayouts?: number[];
    /** ms to read each flame answer's columns (queries.ts fetchFlame), for bench/. */
    __iolensFlameDecodes?: number[];
  }
}

export interface FlameChartProps {
  lay: FlameLayout;
  zoom: number;
  icicle: boolean;
  fill: (node: number) => Fill;
  tooltip: (node: number) => ReactNode;
  onZoom: (node: number) => void;
  /** Tallest the chart gets before it scrolls, px. */
  maxHeight?: number;
  /** A right click on a frame (its node, the mouse in the window). */
  onMenu?: (node: number, x: number, y: number) => void;
  /** Which chart of the cell, when it has more than one (each keeps its canvas). */
  slot?: string;
  label?: string;
}

// One canvas per notebook cell, kept across remounts: the notebook remounts a cell whenever its
// state (the URL) changes, and a new canvas would pay for its backing store on every zoom.
const canvases = new Map<string, HTMLCanvasElement>();

/** .flame-chart's border, px (flame.css): the box's view is its max-height less twice this. */
const CHART_BORDER = 1;

let charWidth = 0;
function measureChar(ctx: CanvasRenderingContext2D): number {
  if (!charWidth) {
    ctx.font = FONT;
    charWidth = ctx.measureText('MMMMMMMMMM').width / 10 || 6.6;
  }
  return charWidth;
}

export function FlameChart({ lay, zoom, icicle, fill, tooltip, onZoom, maxHeight = 620, onMenu, slot = '', label = 'Flame graph' }: FlameChartProps) {
  const wrap = useRef<HTMLDivElement>(null);
  const host = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement | null>(null);
  const [width, setWidth] = useState(0);
  const [hover, setHover] = useState<Hover | null>(null);

  useLayoutEffect(() => {
    const el = wrap.current;
    if (!el) return;
    setWidth(Math.floor(el.clientWidth));
    const ro = new ResizeObserver(() => setWidth(Math.floor(el.clientWidth)));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useLayoutEffect(() => {
    const cell = host.current?.closest('section.cell')?.id ?? '';
    const key = cell ? `${cell}${slot ? `:${slot}` : ''}` : '';
    let c = key ? canvases.get(key) : undefined;
    if (!c) {
      c = document.createElement('canvas');
      c.setAttribute('data-testid', slot ? `flame-canvas-${slot}` : 'flame-canvas');
      c.className = 'in-view';
      c.setAttribute('role', 'img');
      c.setAttribute('aria-label', `${label}: click a frame to zoom, Esc to zoom out, right click for its callers, callees and transforms`);
      if (key) canvases.set(key, c);
    }
    host.current!.prepend(c);
    canvas.current = c;
    return () => {
      c.remove();
      canvas.current = null;
    };
  }, [slot, label]);

  // The time to find the rects counts in the frame's time (data-draw-ms) of the draw that follows.
  const rectsMs = useRef(0);
  const rects = useMemo(() => {
    const t0 = performance.now();
    const r = width > 0 ? visibleRects(lay, zoom, width) : [];
    rectsMs.current = performance.now() - t0;
    return r;
  }, [lay, zoom, width]);
  const rows = Math.max(rectsDepth(rects), 0);
  const height = (rows + 1) * ROW_H;
  // The canvas is the size of the box's view, not of the graph (a 51k-node graph is 2,000 px
  // tall in a 620 px box: its backing store, clear and commit cost 10-40 ms of the first paint),
  // kept in view by `position: sticky` (flame.css), and drawn again with the rows in view when the
  // box scrolls. The view's height is the box's less its border, known without reading the layout.
  const viewH = Math.min(height, maxHeight - 2 * CHART_BORDER);

  // A flame graph grows upwards: its root stays in view when it is taller than the box because
  // the box scrolls from the bottom (flex-direction: column-reverse in flame.css: scrollTop 0 is
  // the bottom, negative above), so a draw never reads or writes the layout. Only when the user
  // has scrolled up (seen in scroll events) does a zoom scroll back down to the root. scrollTop is
  // the box's last scroll position, from its scroll events (0 until the user scrolls).
  const scrolled = useRef(false);
  const scrollTop = useRef(0);
  const shown = useRef({ zoom, icicle, height });

  const draw = useRef<() => void>(() => {});
  draw.current = () => {
    const c = canvas.current;
    if (!c || width === 0) return;
    // the graph's y at the top of the view: the box's top, less what is scrolled away
    const top = Math.round(Math.min(Math.max(icicle ? scrollTop.current : height - viewH + scrollTop.current, 0), height - viewH));
    const ctx = sizedContext(c, width, viewH, top);
    if (!ctx) return;
    const charW = measureChar(ctx);
    // A frame's time: finding the rects (above) and painting them; not the canvas's own setup.
    const t0 = performance.now();
    drawFlame(ctx, lay, rects, fill, { width, rows, icicle, charW, view: { top, height: viewH } });
    const paint = performance.now() - t0;
    const ms = paint + rectsMs.current;
    c.dataset.paintMs = paint.toFixed(2);
    c.dataset.rectsMs = rectsMs.current.toFixed(2);
    rectsMs.current = 0;
    c.dataset.drawMs = ms.toFixed(2);
    c.dataset.rects = String(rects.length);
    c.dataset.top = String(top);
    (window.__iolensFlameDraws ??= []).push(ms);
  };

  useLayoutEffect(() => {
    const el = wrap.current;
    const was = shown.current;
    shown.current = { zoom, icicle, height };
    if (el && !icicle && scrolled.current && (was.zoom !== zoom || was.icicle !== icicle || was.height !== height)) {
      scrolled.current = false;
      scrollTop.current = 0;
      el.scrollTop = 0;
    }
    draw.current();
  }, [lay, rects, fill, width, height, viewH, rows, icicle, zoom]);

  const at = (e: React.MouseEvent): Hover | null => {
    const box = host.current!.getBoundingClientRect();
    const x = e.clientX - box.left;
    const y = e.clientY - box.top;
    const row = Math.floor(y / ROW_H);
    const depth = icicle ? row : rows - row;
    const rect = hitTest(rects, x, depth);
    return rect ? { rect, cx: e.clientX, cy: e.clientY } : null;
  };

  return (
    <div
      className={`flame-chart${icicle ? '' : ' from-root'}`}
      ref={wrap}
      style={{ maxHeight }}
      onScroll={(e) => {
        const y = e.currentTarget.scrollTop;
        scrolled.current = y !== 0;
        if (y === scrollTop.current) return;
        scrollTop.current = y;
        if (height > viewH) draw.current();
      }}
      data-testid={slot ? `flame-chart-${slot}` : 'flame-chart'}
    >
      <div
        className="flame-canvas-box"
        ref={host}
        style={{ height }}
        onMouseMove={(e) => setHover(at(e))}
        onMouseLeave={() => setHover(null)}
        onClick={(e) => {
          const h = at(e);
          if (h && h.rect.node >= 0) onZoom(h.rect.node);
        }}
        onContextMenu={(e) => {
          const h = onMenu ? at(e) : null;
          if (!h || h.rect.node < 0) return;
          e.preventDefault();
          setHover(null);
          onMenu!(h.rect.node, e.clientX, e.clientY);
        }}
      >
        {hover && (
          <div
            className="flame-hover"
            style={{ left: hover.rect.x, top: rowY(hover.rect.depth, { width, rows, icicle, charW: 0 }), width: Math.max(hover.rect.w - 1, 1), height: ROW_H - 1 }}
          />
        )}
        {hover && (
          <div className="flame-tooltip" role="tooltip" data-testid="flame-tooltip" style={tooltipBox(hover)}>
            {hover.rect.node >= 0 ? (
              tooltip(hover.rect.node)
            ) : (
              <>
                <div className="tt-name">{fmtInt(hover.rect.merged)} frames, each narrower than a pixel</div>
                <div className="muted">Zoom into the frame below to see them.</div>
              </>
            )}
          </div>
        )}
      </div>
    </div>
  );
}

interface Hover {
  rect: Rect;
  /** Mouse position in the window (the tooltip is position: fixed, never clipped by the scroll box). */
  cx: number;
  cy: number;
}

function tooltipBox(h: Hover): React.CSSProperties {
  const style: React.CSSProperties = {};
  if (h.cx > window.innerWidth - 400) style.right = window.innerWidth - h.cx + 12;
  else style.left = h.cx + 14;
  if (h.cy > window.innerHeight - 170) style.bottom = window.innerHeight - h.cy + 10;
  else style.top = h.cy + 16;
  return style;
}
