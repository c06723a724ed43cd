// What part of one capture's samples the graph shows: the event, runs, CPU, task, time range.
import { memo, useEffect, useState } from 'react';
import { parseSeconds, runOptions, runOptionValue, secondsText } from '../../logic/flameSelect';
import { fmtInt, sampleWord } from '../../logic/flameFormat';
import type { FlameGraphData } from './queries';
import { ALL_TASKS, type FlameState } from './state';

// memo: a zoom renders the view again with the same data, state and setter (drawn before the URL
// follows), and this bar's ~70 options need not be compared again in the zoom's frame
export const SelectionBar = memo(function SelectionBar({ data, state, set, workComm = null }: { data: FlameGraphData; state: FlameState; set: (p: Partial<FlameState>) => void; workComm?: string | null }) {
  const runs = runOptions(data.runs.map((r) => ({ id: r.id, repeat: r.repeat, params: r.params as Record<string, unknown> })));
  const runValue = runOptionValue(runs, state.runs);
  const task = state.tid !== null ? `tid:${state.tid}` : state.comm !== null && state.comm !== ALL_TASKS ? `comm:${state.comm}` : 'all';
  const longest = Math.max(0, ...data.runs.map((r) => r.duration_ns ?? 0));
  return (
    <div className="flame-selection">
      {data.events.length > 1 && (
        <label className="select-label">
          Event
          <select value={data.filters.event ?? ''} onChange={(e) => set({ event: e.target.value === data.events[0]?.event ? null : e.target.value, zoom: [] })}>
            {data.events.map((ev) => (
              <option key={ev.event ?? ''} value={ev.event ?? ''}>
                {ev.event ?? '(none)'} · {fmtInt(ev.samples)} {sampleWord(ev.event, ev.samples)}
              </option>
            ))}
          </select>
        </label>
      )}
      <label className="select-label">
        Runs
        <select value={runValue} aria-label="Runs" onChange={(e) => set({ runs: runs.find((o) => o.value === e.target.value)?.runs ?? null })}>
          {runs.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
          {runValue === 'custom' && <option value="custom">runs {state.runs?.join(', ')}</option>}
        </select>
      </label>
      <label className="select-label">
        CPU
        <select value={state.cpus?.length === 1 ? String(state.cpus[0]) : state.cpus ? 'custom' : 'all'} aria-label="CPU" onChange={(e) => set({ cpus: e.target.value === 'all' ? null : [Number(e.target.value)] })}>
          <option value="all">All CPUs</option>
          {data.cpus
            .filter((c) => c.cpu !== null)
            .map((c) => (
              <option key={c.cpu} value={String(c.cpu)}>
                CPU {c.cpu} · {fmtInt(c.samples)}
              </option>
            ))}
          {state.cpus && state.cpus.length > 1 && <option value="custom">CPUs {state.cpus.join(',')}</option>}
        </select>
      </label>
      <label className="select-label">
        Task
        <select
          value={task}
          aria-label="Task"
          onChange={(e) => {
            const v = e.target.value;
            // with a default task filter (workComm), "All tasks" is a choice kept in the URL (comm=*)
            if (v === 'all') set({ tid: null, comm: workComm ? ALL_TASKS : null });
            else if (v.startsWith('tid:')) set({ tid: Number(v.slice(4)), comm: null });
            else set({ comm: v.slice(5), tid: null });
          }}
        >
          <option value="all">All tasks</option>
          <optgroup label="Command">
            {data.comms.slice(0, 25).map((c) => (
              <option key={c.comm} value={`comm:${c.comm}`}>
                {c.comm} · {fmtInt(c.samples)}
              </option>
            ))}
          </optgroup>
          <optgroup label="Thread">
            {data.tasks.slice(0, 40).map((t) => (
              <option key={t.tid} value={`tid:${t.tid}`}>
                {t.comm} {t.tid} · {fmtInt(t.samples)}
              </option>
            ))}
          </optgroup>
          {state.comm !== null && state.comm !== ALL_TASKS && !data.comms.some((c) => c.comm === state.comm) && <option value={`comm:${state.comm}`}>{state.comm}</option>}
          {state.tid !== null && !data.tasks.some((t) => t.tid === state.tid) && <option value={`tid:${state.tid}`}>thread {state.tid}</option>}
        </select>
      </label>
      <TimeRange state={state} set={set} longest={longest} />
    </div>
  );
});

function TimeRange({ state, set, longest }: { state: FlameState; set: (p: Partial<FlameState>) => void; longest: number }) {
  const [from, setFrom] = useState(secondsText(state.from));
  const [to, setTo] = useState(secondsText(state.to));
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    setFrom(secondsText(state.from));
    setTo(secondsText(state.to));
  }, [state.from, state.to]);
  const apply = () => {
    const f = parseSeconds(from);
    const t = parseSeconds(to);
    if (f instanceof Error || t instanceof Error) return setErr((f instanceof Error ? f : (t as Error)).message);
    if (f !== null && t !== null && t <= f) return setErr('the end must be after the start');
    setErr(null);
    if ((f || null) !== state.from || t !== state.to) set({ from: f || null, to: t });
  };
  const keys = (e: React.KeyboardEvent) => e.key === 'Enter' && apply();
  return (
    <span className="select-label time-range" title={`Seconds since each run's first sample (runs last up to ${(longest / 1e9).toFixed(2)} s)`}>
      Time
      <input aria-label="From, seconds" className={err ? 'bad' : ''} value={from} placeholder="0" onChange={(e) => setFrom(e.target.value)} onBlur={apply} onKeyDown={keys} />–
      <input aria-label="To, seconds" className={err ? 'bad' : ''} value={to} placeholder={(longest / 1e9).toFixed(2)} onChange={(e) => setTo(e.target.value)} onBlur={apply} onKeyDown={keys} />s
      {(state.from !== null || state.to !== null) && (
        <button type="button" className="icon-button" aria-label="Whole run" title="Whole run" onClick={() => set({ from: null, to: null })}>
          ×
        </button>
      )}
      {err && <span className="bad small">{err}</span>}
    </span>
  );
}

