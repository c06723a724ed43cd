// The timeline cell (Perfetto-like): one run's tracks on one time axis, ns since the run's start:
// which task ran on each CPU (sched), the device's queue depth and IOPS (block), fio's own IOPS log,
// and the perf sample density. Drag across the tracks to brush a range: it becomes the notebook's
// shared time selection (shared.ts), which the flame, block and scheduler cells apply. Each track is
// one API answer with a column per pixel (views/timeline.py); layout in logic/timeline.ts.
import { useEffect, useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type PointerEvent as ReactPointerEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { useCaptureList, useTimelineOverview } from '../../api/queries';
import type { components } from '../../api/schema';
import { useQuery } from '../../api/useQuery';
import { useDebounced, useWidth } from '../../charts/useWidth';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import { hasData, kindsNoun, type DataKey } from '../../logic/dataKinds';
import { fmtInt } from '../../logic/flameFormat';
import { formatValue } from '../../logic/format';
import { AXIS_H, brushed, LABEL_W, layoutRows, taskColour, tOf, TRACK_NAMES, xOf, type RowSpec, type Scale, type TrackKind, type TrackShape } from '../../logic/timeline';
import type { CellProps } from '../types';
import { canvasWidth, drawAxis, drawRow } from './draw';
import { missingCaptureNotice, missingRunNotice, runOptionText, sharedTimeText, shownCapture, shownRun, timelineKey, undrawnTracks } from './shared';
import type { TimelineState } from './state';
import './timeline.css';

type Overview = components['schemas']['TimelineOverview'];
type Track = components['schemas']['TimelineTrack'];
const KINDS: TrackKind[] = ['cpu', 'block', 'fio', 'samples'];


function useTrack(cap: string, run: string, kind: TrackKind, win: [number, number], width: number, on: boolean) {
  const query = { run, from_ns: Math.max(0, Math.floor(win[0])), to_ns: Math.ceil(win[1]), width };
  return useQuery(on ? `timeline:${cap}|${kind}|${JSON.stringify(query)}` : null, () =>
    unwrap(api.GET('/api/captures/{capture_id}/timeline/{track}', { params: { path: { capture_id: cap, track: kind }, query } })),
  );
}

/** What the timeline draws a track of: which task ran on each CPU, the device's queue depth and
 *  IOPS, fio's IOPS log, perf samples. */
const TIMELINE_DATA: readonly DataKey[] = ['sched', 'block', 'fiologs', 'stacks'];

export function TimelineCell({ ctx, state, setState }: CellProps<TimelineState>) {
  const list = useCaptureList();
  const label = (id: string) => list.data?.find((c) => c.id === id)?.label ?? id;
  const capOf = (id: string) => list.data?.find((c) => c.id === id);
  // a cap= the notebook does not have: draw the baseline, and say so (as for a run=, below)
  const cap = shownCapture(state.cap, ctx.captures, ctx.baseline);
  const capMissing = missingCaptureNotice(state.cap, ctx.captures, ctx.baseline, label);
  const ov = useTimelineOverview(cap);
  const set = (p: Partial<TimelineState>) => setState({ ...state, ...p });
  if (ov.error) return <ErrorBox error={ov.error} title="timeline" />;
  const o = ov.data;
  if (!o) return <p className="muted">Reading the runs…</p>;
  // a run= the capture does not have: draw its first run, and say so (the exports say the same)
  const ids = o.runs.map((r) => r.id);
  const shown = shownRun(capMissing ? null : state.run, ids);
  const run = o.runs.find((r) => r.id === shown);
  // under a cap= the notebook lacks, the run= and selection are of that capture: not drawn here
  const missing = capMissing ? null : missingRunNotice(state.run, ids);
  const foreign = capMissing !== null || missing !== null;
  // W S A D (Perfetto), + - ← →, 0 / Esc: once the timeline has the focus (a click on it)
  const onKey = (e: ReactKeyboardEvent<HTMLDivElement>) => {
    if (!run || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.target instanceof HTMLTextAreaElement) return;
    if (e.key === 'Escape' && !state.win) return; // nothing to zoom out of: Esc is the page's
    const next = timelineKey(e.key, state.win, run.duration_ns);
    if (next === undefined) return;
    e.preventDefault();
    e.stopPropagation(); // not the page's keys too (d drops a function in a flame graph)
    set({ win: next });
  };
  return (
    <div
      className="timeline-cell"
      tabIndex={-1}
      onKeyDown={onKey}
      onPointerDown={(e) => {
        // a click on the tracks focuses the cell, for its keys; the controls keep their focus
        if (e.target instanceof HTMLCanvasElement) e.currentTarget.focus({ preventScroll: true });
      }}
    >
      <div className="cell-toolbar timeline-toolbar">
        <label className="select-label">
          Capture
          <select value={cap} aria-label="Timeline capture" onChange={(e) => set({ cap: e.target.value === ctx.baseline ? null : e.target.value, run: null, sel: null, win: null })}>
            {ctx.captures.map((id) => (
              <option key={id} value={id}>
                {label(id)}
              </option>
            ))}
          </select>
        </label>
        {run && (
          <label className="select-label">
            Run
            <select value={run.id} aria-label="Timeline run" onChange={(e) => set({ run: e.target.value, sel: null, win: null })}>
              {o.runs.map((r) => (
                <option key={r.id} value={r.id}>
                  {runOptionText(r)}
                </option>
              ))}
            </select>
          </label>
        )}
        <span className="spacer" />
        {state.win && (
          <button type="button" className="toggle" onClick={() => set({ win: null })}>
            Whole run
          </button>
        )}
        {state.sel && (
          <>
            <button type="button" className="toggle" data-testid="timeline-zoom-sel" onClick={() => set({ win: state.sel })}>
              Zoom to the selection
            </button>
            <button type="button" className="toggle" data-testid="timeline-clear" onClick={() => set({ sel: null })}>
              Clear the selection
            </button>
          </>
        )}
      </div>
      {capMissing && (
        <p className="timeline-missing-run" data-testid="timeline-missing-capture">
          {capMissing}
        </p>
      )}
      {missing && (
        <p className="timeline-missing-run" data-testid="timeline-missing-run">
          {missing}
        </p>
      )}
      {!run ? (
        <p className="muted">This capture has no runs.</p>
      ) : !Object.values(run.tracks).some(Boolean) && undrawnTracks(run, capOf(cap)).length > 0 ? (
        // recorded, but nothing that can go on the run's time axis: say why, not "record with"
        <div className="empty-note" data-testid="timeline-undrawn">
          <h3>
            Run {run.id} of {label(cap)} has nothing the timeline can put on the run's time axis
          </h3>
          <ul className="empty-missing">
            {undrawnTracks(run, capOf(cap)).map((u) => (
              <li key={u.track}>{u.note}</li>
            ))}
          </ul>
          {run.tracks.fio === false && hasData(capOf(cap) ?? {}, 'fiologs') && (
            <p className="empty-next">The fio log over time cell draws fio&apos;s own logs from the job&apos;s start (Add cell · fio log over time).</p>
          )}
        </div>
      ) : !Object.values(run.tracks).some(Boolean) ? (
        // nothing to draw: the shared empty state of the kinds the timeline draws (any one makes a
        // track), not an empty 0.001 µs axis
        <EmptyState
          data={TIMELINE_DATA}
          testId="timeline-nothing"
          captures={ctx.captures}
          baseline={ctx.baseline}
          wanted={[cap]}
          title={`Run ${run.id} of ${label(cap)} has none of the timeline's tracks: no ${kindsNoun(TIMELINE_DATA)}`}
          onPick={(id) => setState({ ...state, cap: id === ctx.baseline ? null : id, run: null, sel: null, win: null })}
          withCapture={ctx.withCapture}
        />
      ) : (
        <>
          <p className="muted small timeline-sel" data-testid="timeline-selection">
            {state.sel ? (
              <>
                Selection <strong>{sharedTimeText({ capture: cap, run: state.run ?? run.id, from: state.sel[0], to: state.sel[1] })}</strong>
                {capMissing
                  ? `: of a capture this notebook does not have, not drawn on ${label(cap)} (the exports say the same); brush here to select a range of its run ${run.id}.`
                  : missing
                  ? `: of a run this capture does not have, not drawn on ${run.id} (the exports say the same); brush here to select a range of ${run.id}.`
                  : ": the notebook's time range, applied by its flame graph, block and scheduler cells."}
              </>
            ) : (
              'Drag across the tracks to select a time range: the flame graph, block and scheduler cells of the notebook then show that range.'
            )}{' '}
            Time: since the run's start{run.aligned ? ' (its clock reading, the block views’ time 0)' : ' — not aligned: this run has no clock reading, each track counts from its own first event'}. Keys, once
            clicked: <kbd>W</kbd> <kbd>S</kbd> zoom, <kbd>A</kbd> <kbd>D</kbd> pan (or <kbd>+</kbd> <kbd>-</kbd> <kbd>←</kbd> <kbd>→</kbd>), <kbd>0</kbd> the whole run.
          </p>
          <Tracks key={`${cap}|${run.id}`} cap={cap} run={run} state={foreign ? { ...state, sel: null } : state} onSelect={(sel) => set({ cap, run: run.id, sel })} onZoom={(win) => set({ win })} />
          {o.notes.map((n) => (
            <p key={n} className="flame-note">
              {n}
            </p>
          ))}
        </>
      )}
    </div>
  );
}

type Run = Overview['runs'][number];

function Tracks({ cap, run, state, onSelect, onZoom }: { cap: string; run: Run; state: TimelineState; onSelect: (s: [number, number] | null) => void; onZoom: (w: [number, number] | null) => void }) {
  const [box, width] = useWidth<HTMLDivElement>();
  const plotW = Math.max(200, width - LABEL_W - 12);
  const px = useDebounced(plotW, 200);
  const win: [number, number] = state.win ?? [0, Math.max(run.duration_ns, 1)];
  const q = {
    cpu: useTrack(cap, run.id, 'cpu', win, px, run.tracks.cpu === true),
    block: useTrack(cap, run.id, 'block', win, px, run.tracks.block === true),
    fio: useTrack(cap, run.id, 'fio', win, px, run.tracks.fio === true),
    samples: useTrack(cap, run.id, 'samples', win, px, run.tracks.samples === true),
  };
  // the last answer of each track stays drawn while the next one loads
  const last = useRef<Partial<Record<TrackKind, Track>>>({});
  for (const k of KINDS) if (q[k].data) last.current[k] = q[k].data;
  const data = KINDS.map((k) => (run.tracks[k] ? (q[k].data ?? last.current[k]) : undefined));
  const shapes: TrackShape[] = KINDS.map((k, i) => ({
    track: k,
    available: run.tracks[k] === true,
    note: run.notes[k] ?? null,
    cpus: k === 'cpu' ? (data[i]?.cpus?.map((c) => c.cpu) ?? run.cpus) : undefined,
  }));
  const { rows, height } = useMemo(() => layoutRows(shapes), [JSON.stringify(shapes)]); // eslint-disable-line react-hooks/exhaustive-deps
  const scale: Scale = { from: win[0], to: win[1], left: LABEL_W, width: plotW };
  const canvas = useRef<HTMLCanvasElement>(null);
  const [drag, setDrag] = useState<{ x0: number; x1: number } | null>(null);
  const [hover, setHover] = useState<{ x: number; y: number } | null>(null);
  const [drawMs, setDrawMs] = useState<number | null>(null);
  const loading = KINDS.some((k) => q[k].loading);
  const errors = KINDS.map((k) => q[k].error).filter(Boolean);

  useEffect(() => {
    const c = canvas.current;
    const g = c?.getContext('2d');
    if (!c || !g) return;
    const t0 = performance.now();
    const dpr = window.devicePixelRatio || 1;
    const W = canvasWidth(plotW);
    c.width = Math.ceil(W * dpr);
    c.height = Math.ceil(height * dpr);
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, W, height);
    drawAxis(g, scale, height);
    for (const r of rows) drawRow(g, r, scale, data[KINDS.indexOf(r.track)]);
    const sel = drag ? brushed(scale, drag.x0, drag.x1) : state.sel;
    if (sel) {
      const x0 = Math.max(scale.left, xOf(scale, sel[0]));
      const x1 = Math.min(scale.left + scale.width, xOf(scale, sel[1]));
      g.fillStyle = 'rgba(31, 95, 191, 0.16)';
      g.fillRect(x0, AXIS_H, x1 - x0, height - AXIS_H);
      g.strokeStyle = '#1f5fbf';
      g.lineWidth = 1.5;
      g.strokeRect(x0, AXIS_H, x1 - x0, height - AXIS_H);
    }
    setDrawMs(performance.now() - t0);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- data and scale are derived from these
  }, [rows, height, plotW, win[0], win[1], drag, state.sel, ...data]);

  const local = (e: ReactPointerEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  };
  const row = hover ? rows.find((r) => hover.y >= r.y && hover.y < r.y + r.h) : undefined;
  const hoverT = hover && hover.x >= LABEL_W ? tOf(scale, hover.x) : null;

  return (
    <div className="timeline-box" ref={box}>
      {errors.length > 0 && <ErrorBox error={errors[0]!} title="timeline track" />}
      <canvas
        ref={canvas}
        data-testid="timeline-canvas"
        data-draw-ms={drawMs?.toFixed(2) ?? ''}
        data-loading={loading ? '1' : '0'}
        data-left={LABEL_W}
        data-width={plotW}
        data-from={win[0]}
        data-to={win[1]}
        style={{ width: canvasWidth(plotW), height, cursor: 'crosshair', touchAction: 'none' }}
        role="img"
        aria-label={`Timeline of run ${run.id}: ${rows.map((r) => r.label).join(', ')}`}
        onPointerDown={(e) => {
          if (e.button !== 0) return;
          const p = local(e);
          if (p.x < LABEL_W) return;
          e.currentTarget.setPointerCapture?.(e.pointerId);
          setDrag({ x0: p.x, x1: p.x });
        }}
        onPointerMove={(e) => {
          const p = local(e);
          setHover(p);
          if (drag) setDrag({ ...drag, x1: p.x });
        }}
        onPointerUp={() => {
          if (!drag) return;
          const r = brushed(scale, drag.x0, drag.x1);
          setDrag(null);
          if (r) onSelect(r);
        }}
        onPointerLeave={() => setHover(null)}
        onDoubleClick={() => (state.win ? onZoom(null) : onSelect(null))}
      />
      {hover && row && hoverT !== null && !drag && (
        <div className="chart-tooltip timeline-tip" style={{ left: Math.min(hover.x + 14, LABEL_W + plotW - 200), top: hover.y + 14 }}>
          <Hover row={row} t={hoverT} track={data[KINDS.indexOf(row.track)]} />
        </div>
      )}
      <Legend cpu={data[0]} block={data[1]} fio={data[2]} samples={data[3]} loading={loading} />
      {shapes.some((t) => !t.available) && (
        <ul className="timeline-missing muted small" data-testid="timeline-missing">
          {shapes
            .filter((t) => !t.available)
            .map((t) => (
              <li key={t.track}>
                {TRACK_NAMES[t.track]}: {t.note}
              </li>
            ))}
        </ul>
      )}
    </div>
  );
}

function Hover({ row, t, track }: { row: RowSpec; t: number; track: Track | undefined }) {
  const head = <div className="tt-name">{row.label} · {(t / 1e9).toFixed(4)} s</div>;
  if (row.empty !== null || !track || !track.available) return <>{head}<div className="muted small">{row.empty ?? 'loading'}</div></>;
  const i = Math.floor((t - track.grid_lo_ns) / track.bucket_ns);
  const col = `column ${((track.grid_lo_ns + i * track.bucket_ns) / 1e9).toFixed(4)}–${((track.grid_lo_ns + (i + 1) * track.bucket_ns) / 1e9).toFixed(4)} s`;
  let body: string;
  if (row.track === 'cpu') {
    const c = track.cpus?.find((v) => v.cpu === row.cpu);
    const k = c?.task[i] ?? -1;
    body = c ? `${(100 * (c.busy[i] ?? 0)).toFixed(0)} % busy · ${k < 0 ? 'idle' : `mostly ${track.names?.[k]}`} (sched_switch slices, tiles of ${track.level_ns! / 1e6} ms)` : '';
  } else if (row.series === 'depth') body = `${formatValue(track.depth?.[i] ?? 0, 'I/Os')} in flight on ${track.device} (mean over the column)`;
  else if (row.series === 'iops') body = `${fmtInt(track.iops?.[i] ?? 0)} IOPS completed on ${track.device}`;
  else if (row.track === 'fio') body = (track.ddirs ?? []).map((d) => `${d.ddir} ${d.iops[i] === null || d.iops[i] === undefined ? '–' : fmtInt(d.iops[i]!)} IO/s`).join(' · ') + " (fio's log)";
  else body = `${fmtInt(track.counts?.[i] ?? 0)} ${track.event ?? ''} samples`;
  return (
    <>
      {head}
      <div>{body}</div>
      <div className="muted small">{col}</div>
    </>
  );
}

function Legend({ cpu, block, fio, samples, loading }: { cpu?: Track; block?: Track; fio?: Track; samples?: Track; loading: boolean }) {
  const names = cpu?.names ?? [];
  // the server's time to answer each track drawn: 'CPUs 616 ms, block 581 ms' (was '616.1 ms / 581 ms', unnamed)
  const served = (['cpu', 'block', 'fio', 'samples'] as const).flatMap((k) => {
    const t = { cpu, block, fio, samples }[k];
    return t ? [`${k === 'cpu' ? 'CPUs' : k} ${Math.round(t.elapsed_ms)} ms`] : [];
  });
  return (
    <div className="timeline-legend muted small" data-testid="timeline-legend">
      {names.map((n, i) => (
        <span key={n}>
          <i className="sw" style={{ background: taskColour(i, names) }} /> {n}
        </span>
      ))}
      {cpu && <span>CPU rows: height = share of the column busy, colour = the task group that ran longest</span>}
      {block && <span>· device {block.device}: queue depth, IOPS</span>}
      {fio?.note && <span>· {TRACK_NAMES.fio}: {fio.note}</span>}
      {samples && <span>· {samples.event} samples per column</span>}
      <span>
        · server time per track: {served.join(', ')}
        {loading ? ' · loading…' : ''}
      </span>
    </div>
  );
}
