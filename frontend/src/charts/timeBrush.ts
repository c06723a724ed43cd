// Pointer handling shared by the charts on a time axis (TimeSeriesChart, SectorScatter): hover
// reports the time under the pointer (a crosshair shared by every chart of the cell), a drag on the
// plot brushes a range to zoom into, a drag on the time axis (or with Shift) pans, a double click
// resets. The cell owns the range; charts only report what the user asked for.
import { useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import type { Plot } from './timeSeries';

export interface TimeInteraction {
  /** Time under the pointer in any chart of the cell (ns), for the crosshair. */
  hoverT: number | null;
  onHover: (t: number | null) => void;
  /** A brushed or panned range, ns (not clipped: the cell clips it). */
  onZoom?: (from: number, to: number) => void;
  /** Double click: back to the whole time axis. */
  onReset?: () => void;
  /** Text of a range being brushed ('1.20 – 1.35 s'). */
  brushLabel?: (from: number, to: number) => string;
}

export interface Drag {
  mode: 'zoom' | 'pan';
  x0: number;
  x1: number;
}

/** Smallest drag that zooms (px): a click is not a zoom. */
export const MIN_BRUSH_PX = 5;

export function useTimeBrush(plot: Plot, tOf: (x: number) => number, domain: [number, number], it: TimeInteraction) {
  const [drag, setDrag] = useState<Drag | null>(null);
  const [mouse, setMouse] = useState<{ x: number; y: number } | null>(null);
  const dragRef = useRef<Drag | null>(null);

  const local = (e: ReactPointerEvent<Element>) => {
    const svg = (e.currentTarget as SVGGraphicsElement).ownerSVGElement ?? (e.currentTarget as Element);
    const r = svg.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  const clampX = (x: number) => Math.max(plot.left, Math.min(plot.right, x));

  const onPointerDown = (e: ReactPointerEvent<Element>) => {
    if (e.button !== 0 || !it.onZoom) return;
    const p = local(e);
    const mode: Drag['mode'] = e.shiftKey || p.y > plot.bottom ? 'pan' : 'zoom';
    (e.currentTarget as Element).setPointerCapture?.(e.pointerId);
    const d = { mode, x0: clampX(p.x), x1: clampX(p.x) };
    dragRef.current = d;
    setDrag(d);
    e.preventDefault();
  };

  const onPointerMove = (e: ReactPointerEvent<Element>) => {
    const p = local(e);
    setMouse(p);
    const d = dragRef.current;
    if (d) {
      const nd = { ...d, x1: d.mode === 'pan' ? p.x : clampX(p.x) };
      dragRef.current = nd;
      setDrag(nd);
      return;
    }
    it.onHover(p.x >= plot.left && p.x <= plot.right ? tOf(p.x) : null);
  };

  const finish = (commit: boolean) => {
    const d = dragRef.current;
    dragRef.current = null;
    setDrag(null);
    if (!d || !commit || !it.onZoom) return;
    if (d.mode === 'zoom' && Math.abs(d.x1 - d.x0) >= MIN_BRUSH_PX) {
      it.onZoom(tOf(Math.min(d.x0, d.x1)), tOf(Math.max(d.x0, d.x1)));
    } else if (d.mode === 'pan' && Math.abs(d.x1 - d.x0) >= 2) {
      const dt = tOf(d.x0) - tOf(d.x1);
      it.onZoom(domain[0] + dt, domain[1] + dt);
    }
  };

  const handlers = {
    onPointerDown,
    onPointerMove,
    onPointerUp: () => finish(true),
    onPointerCancel: () => finish(false),
    onPointerLeave: () => {
      setMouse(null);
      if (!dragRef.current) it.onHover(null);
    },
    onDoubleClick: () => it.onReset?.(),
  };
  return { drag, mouse, handlers };
}
