// The subsecond-offset heatmap of one run (FlameScope) above the flame graph: columns are seconds
// since the run's first sample, rows fractions of a second, colour the samples with a call stack in
// each cell (the event and task filters of the cell applied). Drag from one cell to another to
// select range A (the flame graph shows it); with B (or Shift) a second range: the flame view becomes
// the difference A vs B of the same run. Layout and colours: logic/heatmap.ts.
import { useEffect, useMemo, useRef, useState, type PointerEvent as ReactPointerEvent } from 'react';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useQuery } from '../../api/useQuery';
import { useWidth } from '../../charts/useWidth';
import { ErrorBox } from '../../components/ErrorBox';
import { fmtInt } from '../../logic/flameFormat';
import { cellAt, cellsOfRange, heatColour, heatmapLayout, legendStops, rangeOfCells, rangeText, SECOND_NS, type HeatmapGrid, type HeatmapLayout } from '../../logic/heatmap';
import { useStale } from './parts';
import { flameParams } from './queries';
import { HEATMAP_ROWS, type FlameState } from './state';

export type FlameHeatmapData = components['schemas']['FlameHeatmap'];
const A_COLOUR = '#1f5fbf';
const B_COLOUR = '#8a2be2';

function useHeatmap(id: string, s: FlameState) {
  const q = flameParams({ ...s, from: null, to: null }, false);
  const query = { event: q.event, cpus: q.cpus, tid: q.tid, comm: q.comm, run: s.runs?.[0], rows: s.heatmap ?? 50 };
  const key = `flameheatmap:${id}|${JSON.stringify(query)}`;
  return useQuery(key, () => unwrap(api.GET('/api/captures/{capture_id}/flame/heatmap', { params: { path: { capture_id: id }, query } })));
}

/** The heatmap with its ranges (TimePanel.tsx shows it; loaded when first shown: lazyViews.ts). */
export function Heatmap({ id, state, set }: { id: string; state: FlameState; set: (p: Partial<FlameState>) => void }) {
  const q = useStale(useHeatmap(id, state));
  const h = q.data;
  const [which, setWhich] = useState<'A' | 'B'>('A');
  if (q.error) return <ErrorBox error={q.error} title="heatmap" />;
  if (!h) return <p className="muted">Counting samples per second…</p>;
  const g: HeatmapGrid = { cols: h.cols, rows: h.rows, rowNs: h.row_ns };
  const a = state.from !== null || state.to !== null ? { from: state.from, to: state.to } : null;
  const b = state.rangeB;
  const pick = (r: { from: number; to: number }, which: 'A' | 'B') => {
    const runs = [h.run];
    if (which === 'B') set({ runs, rangeB: r, zoom: [] });
    else set({ runs, from: r.from || null, to: r.to, zoom: [] });
  };
  return (
    <div className="heatmap-box" data-testid="heatmap">
      <div className="heatmap-head">
        <label className="select-label">
          Run
          <select
            value={h.run}
            aria-label="Heatmap run"
            onChange={(e) => set({ runs: [e.target.value], from: null, to: null, rangeB: null, zoom: [] })}
          >
            {h.runs.map((r) => (
              <option key={r.id} value={r.id}>
                {r.id} · {fmtInt(r.samples)} samples · {((r.duration_ns ?? 0) / 1e9).toFixed(2)} s
              </option>
            ))}
          </select>
        </label>
        <label className="select-label">
          Rows
          <select value={h.rows} aria-label="Heatmap rows" onChange={(e) => set({ heatmap: Number(e.target.value) })}>
            {HEATMAP_ROWS.map((r) => (
              <option key={r} value={r}>
                {r} a second ({1000 / r} ms)
              </option>
            ))}
          </select>
        </label>
        <div className="segmented" role="group" aria-label="Select range">
          <span className="select-label">Drag selects</span>
          <button type="button" className={`toggle${which === 'A' ? ' on' : ''}`} aria-pressed={which === 'A'} onClick={() => setWhich('A')} title="Range A: the flame graph shows it">
            <i className="sw" style={{ background: A_COLOUR }} /> range A
          </button>
          <button type="button" className={`toggle${which === 'B' ? ' on' : ''}`} aria-pressed={which === 'B'} onClick={() => setWhich('B')} title="Range B (or Shift+drag): the flame view becomes the difference A vs B">
            <i className="sw" style={{ background: B_COLOUR }} /> range B
          </button>
        </div>
        <span className="muted small" data-testid="heatmap-ranges">
          {a ? <>A {rangeText(a.from, a.to)} <button type="button" className="link-button" onClick={() => set({ from: null, to: null })}>clear</button></> : 'A: the whole run'}
          {b ? <> · B {rangeText(b.from, b.to)} <button type="button" className="link-button" data-testid="clear-range-b" onClick={() => set({ rangeB: null })}>clear</button></> : null}
        </span>
      </div>
      <HeatmapCanvas h={h} g={g} a={a} b={b} onPick={(r, shift) => pick(r, shift ? 'B' : which)} />
      <HeatmapLegend h={h} />
    </div>
  );
}

function HeatmapCanvas({ h, g, a, b, onPick }: { h: FlameHeatmapData; g: HeatmapGrid; a: { from: number | null; to: number | null } | null; b: { from: number; to: number | null } | null; onPick: (r: { from: number; to: number }, shift: boolean) => void }) {
  const [box, width] = useWidth<HTMLDivElement>();
  const canvas = useRef<HTMLCanvasElement>(null);
  const l = useMemo(() => heatmapLayout(g, width), [g, width]);
  const [drag, setDrag] = useState<{ start: number; end: number; shift: boolean } | null>(null);
  const [hover, setHover] = useState<{ cell: number; x: number; y: number } | null>(null);
  const H = l.height + 22;

  useEffect(() => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx) return;
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.ceil(l.width * dpr) + 8;
    c.height = Math.ceil(H * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, l.width + 8, H);
    drawCells(ctx, h, g, l);
    const sel = (cells: [number, number] | null, colour: string, fill: boolean) => cells && outline(ctx, g, l, cells, colour, fill);
    if (a) sel(cellsOfRange(g, a.from, a.to), A_COLOUR, false);
    if (b) sel(cellsOfRange(g, b.from, b.to), B_COLOUR, false);
    if (drag) sel([Math.min(drag.start, drag.end), Math.max(drag.start, drag.end)], drag.shift ? B_COLOUR : A_COLOUR, true);
    drawAxes(ctx, g, l, H);
  }, [h, g, l, a, b, drag, H]);

  const local = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  const onDown = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    if (e.button !== 0) return;
    const p = local(e);
    const cell = cellAt(g, l, p.x, p.y);
    if (cell === null) return;
    e.currentTarget.setPointerCapture?.(e.pointerId);
    setDrag({ start: cell, end: cell, shift: e.shiftKey });
    e.preventDefault();
  };
  const onMove = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    const p = local(e);
    const cell = cellAt(g, l, Math.min(Math.max(p.x, l.left), l.width - 1), Math.min(Math.max(p.y, l.top), l.height - 1));
    setHover(cellAt(g, l, p.x, p.y) === null ? null : { cell: cell!, x: p.x, y: p.y });
    if (drag && cell !== null && cell !== drag.end) setDrag({ ...drag, end: cell });
  };
  const onUp = () => {
    if (!drag) return;
    setDrag(null);
    onPick(rangeOfCells(g, drag.start, drag.end), drag.shift);
  };

  const hc = hover ? hover.cell : null;
  const hr = hc !== null ? rangeOfCells(g, hc, hc) : null;
  return (
    <div className="heatmap-plot" ref={box}>
      <canvas
        ref={canvas}
        data-testid="heatmap-canvas"
        data-left={l.left}
        data-top={l.top}
        data-cellw={l.cellW}
        data-cellh={l.cellH}
        data-rows={g.rows}
        data-cols={g.cols}
        style={{ width: l.width + 8, height: H, cursor: 'crosshair', touchAction: 'none' }}
        onPointerDown={onDown}
        onPointerMove={onMove}
        onPointerUp={onUp}
        onPointerLeave={() => setHover(null)}
        role="img"
        aria-label={`Subsecond heatmap of run ${h.run}: ${h.cols} seconds by ${h.rows} rows, ${h.total_samples} samples`}
      />
      {hover && hr && (
        <div className="chart-tooltip heatmap-tip" style={{ left: Math.min(hover.x + 14, l.width - 120), top: hover.y + 14 }}>
          <strong>{fmtInt(h.counts[hover.cell] ?? 0)}</strong> samples · {rangeText(hr.from, hr.to)}
          <div className="muted small">
            second {Math.floor(hr.from / SECOND_NS)}, +{((hr.from % SECOND_NS) / 1e6).toFixed(0)} ms · run {h.run}
            {drag ? ` · range ${rangeText(rangeOfCells(g, drag.start, drag.end).from, rangeOfCells(g, drag.start, drag.end).to)}` : ' · drag to select'}
          </div>
        </div>
      )}
    </div>
  );
}

function drawCells(ctx: CanvasRenderingContext2D, h: FlameHeatmapData, g: HeatmapGrid, l: HeatmapLayout) {
  const last = h.duration_ns;
  for (let col = 0; col < g.cols; col++) {
    for (let row = 0; row < g.rows; row++) {
      const i = col * g.rows + row;
      const start = col * SECOND_NS + row * g.rowNs;
      // time after the run's last sample is not part of the run: hatched grey, not "no samples"
      ctx.fillStyle = start > last ? '#ffffff' : heatColour(h.counts[i] ?? 0, h.max_count);
      ctx.fillRect(l.left + col * l.cellW, l.top + row * l.cellH, l.cellW - (l.cellW > 4 ? 1 : 0), l.cellH - (l.cellH > 4 ? 1 : 0));
    }
  }
}

function outline(ctx: CanvasRenderingContext2D, g: HeatmapGrid, l: HeatmapLayout, [lo, hi]: [number, number], colour: string, fill: boolean) {
  ctx.save();
  ctx.strokeStyle = colour;
  ctx.fillStyle = colour;
  ctx.lineWidth = 2;
  for (let col = Math.floor(lo / g.rows); col <= Math.floor(hi / g.rows); col++) {
    const r0 = col === Math.floor(lo / g.rows) ? lo % g.rows : 0;
    const r1 = col === Math.floor(hi / g.rows) ? hi % g.rows : g.rows - 1;
    const x = l.left + col * l.cellW;
    const y = l.top + r0 * l.cellH;
    const hgt = (r1 - r0 + 1) * l.cellH;
    if (fill) {
      ctx.globalAlpha = 0.35;
      ctx.fillRect(x, y, l.cellW, hgt);
      ctx.globalAlpha = 1;
    }
    ctx.strokeRect(x + 1, y + 1, l.cellW - 2, hgt - 2);
  }
  ctx.restore();
}

function drawAxes(ctx: CanvasRenderingContext2D, g: HeatmapGrid, l: HeatmapLayout, H: number) {
  ctx.fillStyle = '#5b6270';
  ctx.font = '11px Inter Variable, system-ui, sans-serif';
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const ms of [0, 250, 500, 750]) {
    const y = l.top + (ms * 1e6 / g.rowNs) * l.cellH;
    ctx.fillText(`${ms} ms`, l.left - 4, y + 5);
  }
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  const every = Math.max(1, Math.ceil(28 / l.cellW));
  const step = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600].find((s) => s >= every) ?? every;
  for (let col = 0; col < g.cols; col += step) ctx.fillText(`${col}`, l.left + col * l.cellW + l.cellW / 2, l.height + 4);
  ctx.textAlign = 'left';
  if (g.cols * l.cellW > 60) ctx.fillText('s', l.left + g.cols * l.cellW + 2, H - 18);
}

function HeatmapLegend({ h }: { h: FlameHeatmapData }) {
  return (
    <div className="heatmap-legend muted small" data-testid="heatmap-legend">
      <span>samples per {1000 / h.rows} ms cell:</span>
      {legendStops(h.max_count).map((v) => (
        <span key={v} className="heat-stop">
          <i className="sw" style={{ background: heatColour(v, h.max_count) }} /> {fmtInt(v)}
        </span>
      ))}
      <span>
        · {h.filters.event ?? 'no event name'}, samples with a call stack{h.filters.comm ? `, command ${h.filters.comm}` : ''}
        {h.filters.tid !== null ? `, thread ${h.filters.tid}` : ''}
        {h.filters.cpus ? `, CPU ${h.filters.cpus.join(',')}` : ''} · run {h.run}: {fmtInt(h.total_samples)} samples in {(h.duration_ns / 1e9).toFixed(2)} s · columns: seconds since the run's first sample, rows: the offset within the second
      </span>
    </div>
  );
}
