// Time order of one capture's stacks (key 5): one thread (default: the workload's busiest) or one
// CPU of one run against time, consecutive samples with the same frames merged into boxes
// (logic/flameTime.ts), after the cell's transforms; search colours as in the flame graph.
// The window shown is the state's `tw` (ns since the run's first sample), written to the URL a
// moment after the last zoom or pan. Keys: + / - zoom, arrows pan, 0 the whole run, Esc zoom out.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useCaptureList } from '../../api/queries';
import { NoneSelected } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import { useShortcut } from '../../components/shortcuts';
import { dim, frameRgb, GREY, hex, MATCH, searchMatches } from '../../logic/flame';
import { fmtInt, fmtWeight } from '../../logic/flameFormat';
import { secondsLabel, tickStep, TimeChart } from './TimeChart';
import { useStale } from './parts';
import { cachedBoxes, useFlameTime, type FlameTimeData } from './timeQueries';
import { selectionNarrowing, workloadComm, type FlameState } from './state';

/** Time to wait after the last zoom or pan before the window goes to the URL, ms. */
const COMMIT_MS = 350;

export function TimeOrderView({ id, state, set, onMenu }: { id: string; state: FlameState; set: (p: Partial<FlameState>) => void; onMenu: (name: string, x: number, y: number) => void }) {
  const list = useCaptureList();
  const workload = workloadComm(list.data?.find((c) => c.id === id));
  // the default track depends on the workload: ask once the capture list is known
  const q = useStale(useFlameTime(list.data || list.error ? id : null, state, workload));
  const data = q.data;
  const boxes = useMemo(() => (data ? cachedBoxes(data, state.transforms) : null), [data, state.transforms]);
  const until = boxes ? Math.max(boxes.until, data?.duration_ns ?? 0) : 0;

  // the window: the state's, followed live while zooming and panning, written back after a pause
  const [win, setWin] = useState<[number, number] | null>(state.window);
  useEffect(() => setWin(state.window), [state.window]);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const from = win ? win[0] : 0;
  const to = win ? win[1] : until;
  const minSpan = Math.max(1000, (data?.interval_ns ?? 0) / 4);
  const clamp = useCallback(
    (f: number, t: number): [number, number] | null => {
      const span = Math.min(Math.max(t - f, minSpan), until);
      const a = Math.max(0, Math.min(f, until - span));
      return t - f >= until || span >= until ? null : [Math.round(a), Math.round(a + span)];
    },
    [until, minSpan],
  );
  const onWindow = useCallback(
    (f: number, t: number) => {
      if (!until) return;
      const next = clamp(f, t);
      setWin(next);
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => set({ window: next }), COMMIT_MS);
    },
    [until, clamp, set],
  );
  const zoomBy = (k: number) => onWindow((from + to) / 2 - ((to - from) * k) / 2, (from + to) / 2 + ((to - from) * k) / 2);
  const panBy = (k: number) => onWindow(from + (to - from) * k, to + (to - from) * k);
  const ready = !!boxes && until > 0;
  useShortcut('+', () => zoomBy(0.5), ready);
  useShortcut('=', () => zoomBy(0.5), ready);
  useShortcut('-', () => zoomBy(2), ready);
  useShortcut('ArrowLeft', () => panBy(-0.25), ready);
  useShortcut('ArrowRight', () => panBy(0.25), ready);
  useShortcut('0', () => onWindow(0, until), ready);
  useShortcut('Escape', () => zoomBy(2), ready && win !== null);

  const search = useMemo(() => (boxes ? searchMatches(boxes.names, state.search) : null), [boxes, state.search]);
  const match = search && search.ok ? search.match : null;
  const colours = useMemo(() => (boxes ? boxes.names.map((n) => hex(match ? dim(frameRgb(n)) : frameRgb(n))) : []), [boxes, match]);
  const fill = useCallback(
    (k: number) => {
      if (!boxes) return GREY;
      const n = boxes.name[k]!;
      if (match && match[n]) return MATCH;
      return boxes.depth[k] === 0 && !boxes.focused ? GREY : colours[n]!;
    },
    [boxes, colours, match],
  );

  if (q.error) return <ErrorBox error={q.error} title="time order" />;
  if (!data || !boxes) return <p className="muted flame-loading">Loading the samples in time…</p>;
  const unit = data.weight_unit;
  const iv = data.interval_ns;

  const tooltip = (k: number) => {
    const n = boxes.samples[k]!;
    return (
      <>
        <div className="tt-name">{boxes.names[boxes.name[k]!]}</div>
        <table className="tt-table">
          <tbody>
            <tr>
              <th>Duration</th>
              <td className="num">{fmtWeight(n * iv, 'ns')}</td>
              <td className="muted">
                {fmtInt(n)} sample{n === 1 ? '' : 's'} × {fmtWeight(iv, 'ns')}
              </td>
            </tr>
            <tr>
              <th>From</th>
              <td className="num">{secondsLabel(boxes.start[k]!, 1e3)}</td>
              <td className="muted">to {secondsLabel(boxes.end[k]!, 1e3)}</td>
            </tr>
            <tr>
              <th>Depth</th>
              <td className="num">{boxes.depth[k]}</td>
              <td className="muted">{boxes.depth[k] === 0 && !boxes.focused ? 'the command name' : ''}</td>
            </tr>
          </tbody>
        </table>
        <div className="tt-hint muted">click: zoom to it, f m d r act on it · right click: transforms</div>
      </>
    );
  };

  const isFunction = (k: number) => boxes.depth[k]! > 0 || boxes.focused;
  const step = tickStep(to - from);
  return (
    <div className="time-order" data-testid="time-order">
      <TrackBar data={data} state={state} set={set} />
      <p className="flame-summary muted" data-testid="time-summary">
        <strong>{fmtInt(boxes.drawn)}</strong> samples of {data.track.kind === 'cpu' ? `CPU ${data.track.cpu}` : `thread ${data.track.comm ?? ''} ${data.track.tid}`} ({data.track.picked}) · run {data.run} · {data.filters.event} · one
        sample = {fmtWeight(iv, 'ns')}
        {unit === 'ns' ? ' of CPU' : ''} ({data.interval_from}) · {fmtInt(boxes.depth.length)} boxes
        {data.stackless_samples > 0 && <> · {fmtInt(data.stackless_samples)} without a usable stack (gaps)</>}
        {state.transforms.length > 0 && boxes.drawn < data.samples - data.stackless_samples && <> · {fmtInt(data.samples - data.stackless_samples - boxes.drawn)} removed by the transforms</>}
      </p>
      {data.notes.map((n) => (
        <p key={n} className="flame-note">
          {n}
        </p>
      ))}
      <div className="time-window" data-testid="time-window">
        <span>
          Window <strong>{secondsLabel(from, step / 10)}</strong> – <strong>{secondsLabel(to, step / 10)}</strong> of {secondsLabel(until, 1e6)} since the run's first sample
        </span>
        <button type="button" className="icon-button" title="Zoom in (+)" aria-label="Zoom in" onClick={() => zoomBy(0.5)}>
          +
        </button>
        <button type="button" className="icon-button" title="Zoom out (-)" aria-label="Zoom out" onClick={() => zoomBy(2)}>
          −
        </button>
        {win && (
          <button type="button" className="link-button" onClick={() => onWindow(0, until)}>
            Whole run <kbd>0</kbd>
          </button>
        )}
        {state.fn && (
          <span data-testid="time-current">
            current: <code>{state.fn}</code> <span className="muted small">(f m d r: transforms, 3: sandwich)</span>
          </span>
        )}
        <span className="muted small">click a box to zoom to it · drag to pan · Ctrl+wheel zoom · ← → pan · Esc zoom out</span>
      </div>
      {boxes.drawn > 0 ? (
        <TimeChart
          boxes={boxes}
          from={from}
          to={to}
          onWindow={onWindow}
          fill={fill}
          tooltip={tooltip}
          onMenu={(k, x, y) => isFunction(k) && onMenu(boxes.names[boxes.name[k]!]!, x, y)}
          onPick={(k, f, t) => {
            // a click zooms to the box and makes its function the current one (f m d r, 3)
            window.clearTimeout(timer.current);
            const next = clamp(f, t);
            setWin(next);
            set({ window: next, ...(isFunction(k) ? { fn: boxes.names[boxes.name[k]!]! } : {}) });
          }}
        />
      ) : (
        <NoneSelected data="stacks" testId="flame-none" where="this track" steps={selectionNarrowing(state, true)} />
      )}
      <p className="flame-legend muted">
        Boxes: consecutive samples with the same frames from the top row down; a gap of more than 1.5 samples' time (the task was off CPU) ends them. Width: time; a box of n samples lasts n × {fmtWeight(iv, 'ns')}.
      </p>
    </div>
  );
}

/** The run and the track (a thread, or one CPU) of the time order. */
function TrackBar({ data, state, set }: { data: FlameTimeData; state: FlameState; set: (p: Partial<FlameState>) => void }) {
  const track = data.track.kind === 'cpu' ? `cpu:${data.track.cpu}` : `tid:${data.track.tid}`;
  const def = state.tid === null && !(state.cpus && state.cpus.length === 1);
  return (
    <div className="flame-selection" data-testid="time-track-bar">
      <label className="select-label">
        Run
        <select value={data.run} aria-label="Run" onChange={(e) => set({ runs: e.target.value === data.runs[0]?.id ? null : [e.target.value], window: null })}>
          {data.runs.map((r) => (
            <option key={r.id} value={r.id}>
              {r.id} · repeat {r.repeat + 1} · {fmtInt(r.samples)} samples
            </option>
          ))}
        </select>
      </label>
      <label className="select-label">
        Track
        <select
          value={def ? 'default' : track}
          aria-label="Track"
          data-testid="time-track"
          onChange={(e) => {
            const v = e.target.value;
            if (v === 'default') set({ tid: null, cpus: null, window: null });
            else if (v.startsWith('tid:')) set({ tid: Number(v.slice(4)), cpus: null, window: null });
            else set({ cpus: [Number(v.slice(4))], tid: null, window: null });
          }}
        >
          <option value="default">{def ? `${data.track.comm ?? ''} ${data.track.tid}: ` : ''}the workload's busiest thread</option>
          <optgroup label="Thread">
            {data.threads.slice(0, 60).map((t) => (
              <option key={t.tid} value={`tid:${t.tid}`}>
                {t.comm} {t.tid} · {fmtInt(t.samples)} samples
              </option>
            ))}
            {state.tid !== null && !data.threads.some((t) => t.tid === state.tid) && <option value={`tid:${state.tid}`}>thread {state.tid}</option>}
          </optgroup>
          <optgroup label="CPU">
            {data.cpus.map((c) => (
              <option key={c.cpu} value={`cpu:${c.cpu}`}>
                CPU {c.cpu} · {fmtInt(c.samples)} samples
              </option>
            ))}
          </optgroup>
        </select>
      </label>
    </div>
  );
}
