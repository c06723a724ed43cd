// The flame graph cell: one capture's flame graph (per run, point, CPU, task, time range) or the
// differential flame graph of two captures, with search, zoom, exports and a functions table.
// Everything it shows follows from its state (the URL); the work is in logic/flame*.ts.
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useCaptureList } from '../../api/queries';
import type { QueryResult } from '../../api/useQuery';
import type { Fill } from '../../charts/flameCanvas';
import { copyText } from '../../components/copy';
import { ErrorBox } from '../../components/ErrorBox';
import { useShortcut } from '../../components/shortcuts';
import { flash } from '../../components/Toast';
import { captureColor } from '../../logic/colors';
import { frameFills } from '../../charts/flameCanvas';
import { findPath, GREY, hex, layoutTree, matchedWeight, MATCH, pathOf, searchMatches, topFunctions, type FlameLayout } from '../../logic/flame';
import { diffColours, diffLayout, diffNodeInfo, diffRgb, formatPp, NEUTRAL, NOISE, NOISE_LINE, sortDiffFunctions, type DiffLayout } from '../../logic/flameDiff';
import { exactPattern, parseSeconds, runOptions, runOptionValue, secondsText } from '../../logic/flameSelect';
import { formatValue } from '../../logic/format';
import type { CellProps } from '../types';
import { FlameChart } from './FlameChart';
import { exportUrl, useFlame, useFlameDiff, type FlameDiffData, type FlameDiffFunction, type FlameGraphData } from './queries';
import type { FlameState } from './state';
import './flame.css';

const FIRST_ROWS = 20;
const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const fmtPct = (p: number) => (p >= 10 ? p.toFixed(1) : p >= 0.1 ? p.toFixed(2) : p > 0 ? p.toFixed(3) : '0') + '%';
const pctOf = (x: number, t: number) => (t > 0 ? (100 * x) / t : 0);
const fmtWeight = (w: number, unit: string) => (unit === 'ns' ? formatValue(w, 'ns') : `${fmtInt(w)} events`);

export function FlameCell({ ctx, state, setState }: CellProps<FlameState>) {
  const list = useCaptureList();
  const byId = new Map((list.data ?? []).map((c) => [c.id, c]));
  const hasStacks = (id: string) => (byId.get(id)?.artifact_kinds ?? ['perf-script']).includes('perf-script');
  const label = (id: string) => byId.get(id)?.label ?? id;
  const colorOf = (id: string) => captureColor(ctx.captures.indexOf(id));
  const set = (patch: Partial<FlameState>) => setState({ ...state, ...patch });

  // Which captures: the state's, else the baseline (or the first with stacks), else the next one.
  const withStacks = ctx.captures.filter(hasStacks);
  const first = withStacks.includes(ctx.baseline) ? ctx.baseline : (withStacks[0] ?? ctx.baseline);
  const cap = state.cap && ctx.captures.includes(state.cap) ? state.cap : first;
  const a = state.a && ctx.captures.includes(state.a) ? state.a : first;
  const b = state.b && ctx.captures.includes(state.b) && state.b !== a ? state.b : (withStacks.find((c) => c !== a) ?? ctx.captures.find((c) => c !== a) ?? null);
  const diff = state.view === 'diff';

  const root = useRef<HTMLDivElement>(null);
  const copyLink = () => {
    const id = root.current?.closest('section.cell')?.id;
    const url = window.location.href.replace(/#.*$/, '') + (id ? `#${id}` : '');
    void copyText(url).then((ok) => flash(ok ? 'Link to this view copied (zoom and search included)' : 'Could not copy: use the address bar'));
  };

  return (
    <div className="flame-cell" ref={root}>
      <div className="cell-toolbar flame-toolbar">
        <div className="segmented" role="group" aria-label="Flame graph view">
          <button type="button" className={`toggle${!diff ? ' on' : ''}`} aria-pressed={!diff} onClick={() => set({ view: 'flame', zoom: [] })}>
            Flame graph
          </button>
          <button
            type="button"
            className={`toggle${diff ? ' on' : ''}`}
            aria-pressed={diff}
            disabled={ctx.captures.length < 2}
            title={ctx.captures.length < 2 ? 'Add a second capture to the notebook to compare' : 'Differential flame graph of two captures'}
            onClick={() => set({ view: 'diff', zoom: [] })}
          >
            Difference
          </button>
        </div>
        {!diff ? (
          <div className="segmented" role="group" aria-label="Capture">
            {ctx.captures.map((id) => (
              <button
                key={id}
                type="button"
                className={`toggle${id === cap ? ' on' : ''}`}
                aria-pressed={id === cap}
                disabled={!hasStacks(id)}
                title={hasStacks(id) ? `${label(id)} (${id})` : `${label(id)}: no call stacks in this capture`}
                onClick={() => set({ cap: id === first ? null : id, zoom: [], runs: null, tid: null })}
              >
                <span className="swatch" style={{ background: colorOf(id) }} />
                <span className="cap-name">{label(id)}</span>
              </button>
            ))}
          </div>
        ) : (
          <div className="diff-sides" role="group" aria-label="Captures compared">
            <CaptureSelect label="Before" value={a} ids={ctx.captures} labelOf={label} colorOf={colorOf} disabledOf={(id) => !hasStacks(id)} onChange={(id) => set({ a: id, zoom: [] })} />
            <button type="button" className="icon-button swap" title="Swap before and after (widths come from after)" aria-label="Swap sides" onClick={() => set({ a: b, b: a, zoom: [] })}>
              ⇄
            </button>
            <CaptureSelect label="After" value={b ?? ''} ids={ctx.captures.filter((c) => c !== a)} labelOf={label} colorOf={colorOf} disabledOf={(id) => !hasStacks(id)} onChange={(id) => set({ b: id, zoom: [] })} />
          </div>
        )}
        <div className="spacer" />
        <ExportMenu
          items={
            diff && b
              ? [
                  ['SVG image (for a mailing list)', exportUrl('svg', state, { a, b })],
                  ['Folded difference (difffolded.pl format)', exportUrl('folded', state, { a, b })],
                ]
              : [
                  ['SVG image (for a mailing list)', exportUrl('svg', state, { cap })],
                  ['Folded stacks (inferno / flamegraph.pl)', exportUrl('folded', state, { cap })],
                ]
          }
          onCopyLink={copyLink}
        />
      </div>
      {withStacks.length === 0 && list.data ? (
        <div className="flame-empty" data-testid="flame-empty">
          <h3>No call stacks in these captures</h3>
          <p className="muted">
            Record them with <code>iolens-collect run --stacks …</code> (perf record -g during each repeat), or attach <code>perf script</code> text as an artifact of kind{' '}
            <code>perf-script</code>.
          </p>
        </div>
      ) : diff ? (
        b ? <DiffView a={a} b={b} state={state} set={set} /> : <p className="muted">Pick a second capture.</p>
      ) : (
        <SingleView id={cap} state={state} set={set} />
      )}
    </div>
  );
}

function CaptureSelect({ label, value, ids, labelOf, colorOf, disabledOf, onChange }: { label: string; value: string; ids: string[]; labelOf: (id: string) => string; colorOf: (id: string) => string; disabledOf: (id: string) => boolean; onChange: (id: string) => void }) {
  return (
    <label className="select-label">
      <span className="swatch" style={{ background: colorOf(value) }} />
      {label}
      <select value={value} aria-label={`${label} capture`} onChange={(e) => onChange(e.target.value)}>
        {ids.map((id) => (
          <option key={id} value={id} disabled={disabledOf(id)}>
            {labelOf(id)}
          </option>
        ))}
      </select>
    </label>
  );
}

function ExportMenu({ items, onCopyLink }: { items: [string, string][]; onCopyLink: () => void }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => !ref.current?.contains(e.target as Node) && setOpen(false);
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);
  return (
    <div className="menu flame-export" ref={ref}>
      <button type="button" className="button small" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)}>
        Export ▾
      </button>
      {open && (
        <div className="menu-list" role="menu">
          {items.map(([text, href]) => (
            <a key={text} role="menuitem" className="menu-link" href={href} download onClick={() => setOpen(false)}>
              {text}
            </a>
          ))}
          <button
            type="button"
            role="menuitem"
            onClick={() => {
              setOpen(false);
              onCopyLink();
            }}
          >
            Copy link to this view
          </button>
        </div>
      )}
    </div>
  );
}

// --- the search box, shared by both views --------------------------------------------------------

// The notebook remounts a cell when its state changes: a search committed while typing gives the
// focus (and the caret) back to the new cell's box.
let refocus: { cell: string | undefined; at: number } | null = null;

function SearchBox({ value, onChange, status, error }: { value: string; onChange: (v: string) => void; status: ReactNode; error: string | null }) {
  const [draft, setDraft] = useState(value);
  const input = useRef<HTMLInputElement>(null);
  const cellId = () => input.current?.closest('section.cell')?.id;
  const commit = (v: string) => {
    if (document.activeElement === input.current) refocus = { cell: cellId(), at: input.current?.selectionStart ?? v.length };
    onChange(v);
  };
  useEffect(() => setDraft(value), [value]);
  useEffect(() => {
    if (refocus && refocus.cell === cellId() && input.current) {
      input.current.focus();
      input.current.setSelectionRange(refocus.at, refocus.at);
      refocus = null;
    }
  }, []);
  useEffect(() => {
    if (draft === value) return;
    const t = setTimeout(() => commit(draft), 300);
    return () => clearTimeout(t);
  });
  useShortcut('/', (e) => {
    e.preventDefault();
    input.current?.focus();
    input.current?.select();
  });
  return (
    <div className="flame-search">
      <div className="filter">
        <input
          ref={input}
          type="search"
          placeholder="Search frames (regex)"
          aria-label="Search frames (regular expression)"
          value={draft}
          spellCheck={false}
          className={error ? 'bad' : ''}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commit(draft);
            if (e.key === 'Escape') {
              e.stopPropagation();
              if (draft) setDraft('');
              else input.current?.blur();
            }
          }}
        />
        {!draft && <kbd className="filter-kbd">/</kbd>}
      </div>
      <span className={`search-status${error ? ' bad' : ''}`} data-testid="flame-search-status">
        {error ? `not a regular expression: ${error}` : status}
      </span>
    </div>
  );
}

function Breadcrumb({ lay, zoom, onZoom }: { lay: FlameLayout; zoom: number; onZoom: (n: number) => void }) {
  const chain: number[] = [];
  for (let i = zoom; i >= 0; i = lay.parent[i]!) chain.push(i);
  chain.reverse();
  const total = lay.total[0]!;
  return (
    <nav className="flame-crumbs" aria-label="Zoom path" data-testid="flame-breadcrumb">
      {chain.map((n, k) => (
        <span key={n} className="crumb">
          {k > 0 && <span className="sep">›</span>}
          {n === zoom ? (
            <strong title={lay.names[lay.name[n]!]}>{lay.names[lay.name[n]!]}</strong>
          ) : (
            <button type="button" className="link-button" onClick={() => onZoom(n)} title={lay.names[lay.name[n]!]}>
              {lay.names[lay.name[n]!]}
            </button>
          )}
        </span>
      ))}
      {zoom > 0 && (
        <span className="muted crumb-info">
          {fmtPct(pctOf(lay.total[zoom]!, total))} of all · <kbd>Esc</kbd> zoom out
        </span>
      )}
      {zoom === 0 && <span className="muted crumb-info">click a frame to zoom</span>}
    </nav>
  );
}

function useZoom(lay: FlameLayout | null, state: FlameState, set: (p: Partial<FlameState>) => void) {
  const found = useMemo(() => (lay ? findPath(lay, state.zoom) : { node: 0, missing: [] }), [lay, state.zoom]);
  const zoomTo = (n: number) => lay && set({ zoom: n === 0 ? [] : pathOf(lay, n) });
  useShortcut(
    'Escape',
    () => {
      if (lay && found.node > 0) zoomTo(lay.parent[found.node]!);
    },
    !!lay && found.node > 0,
  );
  return { zoom: found.node, missing: found.missing, zoomTo };
}

// --- one capture ---------------------------------------------------------------------------------

function SingleView({ id, state, set }: { id: string; state: FlameState; set: (p: Partial<FlameState>) => void }) {
  const q = useStale(useFlame(id, state));
  const data = q.data;
  const lay = useMemo(() => (data ? cachedLayout(data) : null), [data]);
  const samples = useMemo(() => (data ? subtreeSums(data.tree.depth, data.tree.self_samples) : null), [data]);
  const search = useMemo(() => (lay ? searchMatches(lay.names, state.search) : null), [lay, state.search]);
  const match = search && search.ok ? search.match : null;
  const fill = useMemo(() => (lay ? frameFills(lay, match) : null), [lay, match]);
  const { zoom, missing, zoomTo } = useZoom(lay, state, set);
  const onSearch = useMemo(() => (v: string) => set({ search: v }), [set]);

  if (q.error) return <ErrorBox error={q.error} title="flame graph" />;
  if (!data || !lay || !fill || !samples) return <p className="muted flame-loading">Loading call stacks…</p>;
  const unit = data.weight_unit;
  const total = data.total_weight;
  const matched = match ? matchedWeight(lay, match, 0) : 0;
  const matchedZoom = match && zoom > 0 ? matchedWeight(lay, match, zoom) : 0;

  const tooltip = (n: number) => (
    <>
      <div className="tt-name">{lay.names[lay.name[n]!]}</div>
      <table className="tt-table">
        <tbody>
          <tr>
            <th>Total</th>
            <td className="num">{fmtPct(pctOf(lay.total[n]!, total))}</td>
            <td className="num">{fmtInt(samples[n]!)} samples</td>
            <td className="num">{fmtWeight(lay.total[n]!, unit)}</td>
          </tr>
          <tr>
            <th>Self</th>
            <td className="num">{fmtPct(pctOf(lay.self[n]!, total))}</td>
            <td className="num">{fmtInt(data.tree.self_samples[n]!)} samples</td>
            <td className="num">{fmtWeight(lay.self[n]!, unit)}</td>
          </tr>
          {zoom > 0 && n !== zoom && (
            <tr>
              <th>Of zoom</th>
              <td className="num">{fmtPct(pctOf(lay.total[n]!, lay.total[zoom]!))}</td>
              <td colSpan={2} className="muted">
                of {lay.names[lay.name[zoom]!]}
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <div className="tt-hint muted">{n === zoom ? 'the zoomed frame' : 'click to zoom'}</div>
    </>
  );

  return (
    <>
      <SelectionBar data={data} state={state} set={set} />
      <div className="flame-bar">
        <SearchBox
          value={state.search}
          onChange={onSearch}
          error={search && !search.ok ? search.error : null}
          status={
            match ? (
              <>
                <strong>{fmtPct(pctOf(matched, total))}</strong> of samples matched{zoom > 0 ? <> · {fmtPct(pctOf(matchedZoom, lay.total[zoom]!))} of the zoomed frame</> : null}
              </>
            ) : null
          }
        />
        <ModeToggle state={state} set={set} />
      </div>
      <Summary data={data} nodes={lay.n} loading={q.loading} />
      {missing.length > 0 && <p className="flame-note">The zoomed frame of this link is not in this selection ({missing[0]} not found); showing its deepest ancestor.</p>}
      <Breadcrumb lay={lay} zoom={zoom} onZoom={zoomTo} />
      {total > 0 ? (
        <FlameChart lay={lay} zoom={zoom} icicle={state.mode === 'icicle'} fill={fill} tooltip={tooltip} onZoom={zoomTo} />
      ) : (
        <p className="muted flame-none">No sample with a call stack in this selection.</p>
      )}
      <Legend search={!!match} />
      <TopTable lay={lay} zoom={zoom} total={total} unit={unit} by={state.by} onBy={(by) => set({ by })} onPick={(name) => set({ search: exactPattern(name) })} />
    </>
  );
}

// Layouts by answer: the notebook remounts a cell when its state (the URL) changes, and the
// answers stay in the query cache, so a zoom or a search never lays a tree out again.
const layouts = new WeakMap<object, FlameLayout>();
const diffLayouts = new WeakMap<object, DiffLayout>();

function cachedLayout(data: FlameGraphData): FlameLayout {
  let l = layouts.get(data);
  if (!l) {
    const t0 = performance.now();
    l = layoutTree({ names: data.tree.names, name: data.tree.name, depth: data.tree.depth, self: data.tree.self_weight });
    (window.__iolensFlameLayouts ??= []).push(performance.now() - t0);
    layouts.set(data, l);
  }
  return l;
}

function cachedDiffLayout(data: FlameDiffData): DiffLayout {
  let d = diffLayouts.get(data);
  if (!d) diffLayouts.set(data, (d = diffLayout(data.tree)));
  return d;
}

/** Keep showing the last answer while the next selection loads (no flicker, inputs keep focus). */
function useStale<T>(q: QueryResult<T>): QueryResult<T> {
  const last = useRef<T | undefined>(undefined);
  if (q.data !== undefined) last.current = q.data;
  if (q.error) last.current = undefined;
  return { data: q.data ?? (q.loading ? last.current : undefined), error: q.error, loading: q.loading };
}

function subtreeSums(depth: readonly number[], self: readonly number[]): Float64Array {
  const out = Float64Array.from(self);
  const stack: number[] = [];
  const parent = new Int32Array(depth.length).fill(-1);
  for (let i = 0; i < depth.length; i++) {
    while (stack.length > 0 && depth[stack[stack.length - 1]!]! >= depth[i]!) stack.pop();
    if (stack.length) parent[i] = stack[stack.length - 1]!;
    stack.push(i);
  }
  for (let i = depth.length - 1; i > 0; i--) out[parent[i]!]! += out[i]!;
  return out;
}

function ModeToggle({ state, set }: { state: FlameState; set: (p: Partial<FlameState>) => void }) {
  return (
    <div className="segmented" role="group" aria-label="Orientation">
      <button type="button" className={`toggle${state.mode === 'flame' ? ' on' : ''}`} aria-pressed={state.mode === 'flame'} title="Root at the bottom" onClick={() => set({ mode: 'flame' })}>
        Flame
      </button>
      <button type="button" className={`toggle${state.mode === 'icicle' ? ' on' : ''}`} aria-pressed={state.mode === 'icicle'} title="Root at the top" onClick={() => set({ mode: 'icicle' })}>
        Icicle
      </button>
    </div>
  );
}

function Summary({ data, nodes, loading }: { data: FlameGraphData; nodes: number; loading: boolean }) {
  const runs = data.filters.runs ?? data.runs.map((r) => r.id);
  return (
    <p className="flame-summary muted" data-testid="flame-summary">
      <strong>{fmtInt(data.total_samples)}</strong> samples · {fmtWeight(data.total_weight, data.weight_unit)}
      {data.weight_unit === 'ns' ? ' CPU' : ''} · {data.filters.event ?? 'no event name'} · {runs.length === 1 ? `run ${runs[0]}` : `${runs.length} runs merged`} ·{' '}
      {fmtInt(nodes)} frames
      {data.stackless_samples > 0 && <> · {fmtInt(data.stackless_samples)} samples without a usable stack not drawn</>}
      {loading && <span className="flame-busy"> · loading the new selection…</span>}
    </p>
  );
}

function SelectionBar({ data, state, set }: { data: FlameGraphData; state: FlameState; set: (p: Partial<FlameState>) => void }) {
  const runs = runOptions(data.runs.map((r) => ({ id: r.id, repeat: r.repeat, params: r.params as Record<string, unknown> })));
  const runValue = runOptionValue(runs, state.runs);
  const task = state.tid !== null ? `tid:${state.tid}` : state.comm !== null ? `comm:${state.comm}` : 'all';
  const longest = Math.max(0, ...data.runs.map((r) => r.duration_ns ?? 0));
  return (
    <div className="flame-selection">
      {data.events.length > 1 && (
        <label className="select-label">
          Event
          <select value={data.filters.event ?? ''} onChange={(e) => set({ event: e.target.value === data.events[0]?.event ? null : e.target.value, zoom: [] })}>
            {data.events.map((ev) => (
              <option key={ev.event ?? ''} value={ev.event ?? ''}>
                {ev.event ?? '(none)'} · {fmtInt(ev.samples)} samples
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
            if (v === 'all') set({ tid: null, comm: null });
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
          {state.comm !== null && !data.comms.some((c) => c.comm === state.comm) && <option value={`comm:${state.comm}`}>{state.comm}</option>}
          {state.tid !== null && !data.tasks.some((t) => t.tid === state.tid) && <option value={`tid:${state.tid}`}>thread {state.tid}</option>}
        </select>
      </label>
      <TimeRange state={state} set={set} longest={longest} />
    </div>
  );
}

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

function Legend({ search }: { search: boolean }) {
  return (
    <div className="flame-legend muted">
      <span>
        <i className="sw warm" /> function (hue by name)
      </span>
      <span>
        <i className="sw" style={{ background: GREY }} /> command / all
      </span>
      {search && (
        <span>
          <i className="sw" style={{ background: MATCH }} /> search match
        </span>
      )}
      <span>
        <i className="sw merged" /> frames narrower than a pixel, merged
      </span>
      <span>width: share of samples · x order: by name, not time</span>
    </div>
  );
}

function TopTable({ lay, zoom, total, unit, by, onBy, onPick }: { lay: FlameLayout; zoom: number; total: number; unit: string; by: 'self' | 'total'; onBy: (b: 'self' | 'total') => void; onPick: (name: string) => void }) {
  const [all, setAll] = useState(false);
  const rows = useMemo(() => topFunctions(lay, zoom, by, 500), [lay, zoom, by]);
  const shown = all ? rows : rows.slice(0, FIRST_ROWS);
  const max = Math.max(...rows.map((r) => r[by]), 1);
  return (
    <section className="flame-table-box">
      <div className="flame-table-head">
        <h3>
          Top functions{zoom > 0 && <span className="muted"> under {lay.names[lay.name[zoom]!]}</span>}
        </h3>
        <div className="segmented" role="group" aria-label="Order functions by">
          <button type="button" className={`toggle${by === 'self' ? ' on' : ''}`} aria-pressed={by === 'self'} onClick={() => onBy('self')} title="Samples whose stack ends in the function">
            By self
          </button>
          <button type="button" className={`toggle${by === 'total' ? ' on' : ''}`} aria-pressed={by === 'total'} onClick={() => onBy('total')} title="Samples with the function anywhere in the stack (once each)">
            By total
          </button>
        </div>
        <span className="muted small">% of all samples · click a name to highlight it</span>
      </div>
      <table className="data-table flame-table" data-testid="flame-top-table">
        <thead>
          <tr>
            <th className="rank">#</th>
            <th>Function</th>
            <th className="num">Self</th>
            <th className="bar-col" />
            <th className="num">Self time</th>
            <th className="num">Total</th>
            <th className="bar-col" />
            <th className="num">Total time</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r, i) => (
            <tr key={r.name}>
              <td className="rank muted num">{i + 1}</td>
              <td className="fn">
                <button type="button" className="fn-name" onClick={() => onPick(r.name)} title={`Highlight ${r.name}`}>
                  {r.name}
                </button>
              </td>
              <td className="num">{fmtPct(pctOf(r.self, total))}</td>
              <td className="bar-col">
                <Bar v={r.self / max} on={by === 'self'} />
              </td>
              <td className="num muted">{fmtWeight(r.self, unit)}</td>
              <td className="num">{fmtPct(pctOf(r.total, total))}</td>
              <td className="bar-col">
                <Bar v={r.total / max} on={by === 'total'} />
              </td>
              <td className="num muted">{fmtWeight(r.total, unit)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > FIRST_ROWS && (
        <button type="button" className="link-button show-more" onClick={() => setAll(!all)}>
          {all ? 'Show fewer' : `Show all ${rows.length}${rows.length === 500 ? '+' : ''}`}
        </button>
      )}
    </section>
  );
}

const Bar = ({ v, on }: { v: number; on: boolean }) => (
  <span className={`bar${on ? ' on' : ''}`}>
    <span style={{ width: `${Math.max(0, Math.min(1, v)) * 100}%` }} />
  </span>
);

// --- two captures ----------------------------------------------------------------------------------

function DiffView({ a, b, state, set }: { a: string; b: string; state: FlameState; set: (p: Partial<FlameState>) => void }) {
  const q = useStale(useFlameDiff(a, b, state));
  const data = q.data;
  const d = useMemo(() => (data ? cachedDiffLayout(data) : null), [data]);
  const lay = d?.lay ?? null;
  const colours = useMemo(() => (d ? diffColours(d, state.colour) : null), [d, state.colour]);
  const search = useMemo(() => (lay ? searchMatches(lay.names, state.search) : null), [lay, state.search]);
  const match = search && search.ok ? search.match : null;
  const pattern = useMemo(() => noisePattern(), []);
  const fill = useMemo(() => {
    if (!d || !colours) return null;
    const cache = new Map<number, string>();
    return (n: number): Fill => {
      if (d.lay.depth[n] === 0) return GREY;
      if (match && !match[d.lay.name[n]!]) return '#f1f1f1';
      if (colours.noise && colours.noise[n] && Math.abs(colours.delta[n]!) > 0) return pattern ?? NOISE;
      const key = Math.round(colours.delta[n]! * 1e4);
      let c = cache.get(key);
      if (!c) cache.set(key, (c = hex(diffRgb(colours.delta[n]!, colours.maxAbs))));
      return c;
    };
  }, [d, colours, match, pattern]);
  const { zoom, missing, zoomTo } = useZoom(lay, state, set);
  const onSearch = useMemo(() => (v: string) => set({ search: v }), [set]);

  if (q.error) return <ErrorBox error={q.error} title="differential flame graph" />;
  if (!data || !d || !lay || !fill || !colours) return <p className="muted flame-loading">Comparing call stacks…</p>;
  const la = data.a.capture.label;
  const lb = data.b.capture.label;
  const matched = match ? matchedWeight(lay, match, 0) : 0;

  const tooltip = (n: number) => {
    const x = diffNodeInfo(d, n);
    const noise = state.colour === 'self' ? x.noiseSelf : x.noiseTotal;
    return (
      <>
        <div className="tt-name">{lay.names[lay.name[n]!]}</div>
        <table className="tt-table">
          <thead>
            <tr>
              <th />
              <th className="num">{shorten(la)}</th>
              <th className="num">{shorten(lb)}</th>
              <th className="num">change</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th>Self</th>
              <td className="num">{fmtPct(x.selfA)}</td>
              <td className="num">{fmtPct(x.selfB)}</td>
              <td className={`num ${tone(x.selfB - x.selfA)}`}>{formatPp(x.selfB - x.selfA)}</td>
            </tr>
            <tr>
              <th>Total</th>
              <td className="num">{fmtPct(x.totalA)}</td>
              <td className="num">{fmtPct(x.totalB)}</td>
              <td className={`num ${tone(x.totalB - x.totalA)}`}>{formatPp(x.totalB - x.totalA)}</td>
            </tr>
            <tr>
              <th>Samples</th>
              <td className="num">{fmtInt(x.samplesA)}</td>
              <td className="num">{fmtInt(x.samplesB)}</td>
              <td />
            </tr>
          </tbody>
        </table>
        {noise && <div className="tt-noise">~ within the spread between repeats: likely noise</div>}
        <div className="tt-hint muted">click to zoom</div>
      </>
    );
  };

  return (
    <>
      <div className="flame-selection">
        {data.a.events.length > 1 && (
          <label className="select-label">
            Event
            <select value={data.filters.event ?? ''} onChange={(e) => set({ event: e.target.value, zoom: [] })}>
              {data.a.events.map((ev) => (
                <option key={ev.event ?? ''} value={ev.event ?? ''}>
                  {ev.event ?? '(none)'}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="select-label">
          Command
          <select value={state.comm ?? ''} aria-label="Command, both sides" onChange={(e) => set({ comm: e.target.value || null, zoom: [] })}>
            <option value="">All tasks</option>
            {commsOf(lay, state.comm).map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <div className="segmented" role="group" aria-label="Colour by">
          <span className="select-label">Colour by change of</span>
          <button type="button" className={`toggle${state.colour === 'self' ? ' on' : ''}`} aria-pressed={state.colour === 'self'} onClick={() => set({ colour: 'self' })} title="Where the samples are (as flamegraph.pl)">
            self share
          </button>
          <button type="button" className={`toggle${state.colour === 'total' ? ' on' : ''}`} aria-pressed={state.colour === 'total'} onClick={() => set({ colour: 'total' })} title="The frame and everything it called">
            total share
          </button>
        </div>
        {(state.cpus || state.from !== null || state.to !== null) && (
          <span className="muted small">
            Both sides: {state.cpus ? `CPU ${state.cpus.join(',')} ` : ''}
            {state.from !== null || state.to !== null ? `time ${secondsText(state.from) || 0}–${secondsText(state.to) || 'end'} s` : ''}{' '}
            <button type="button" className="link-button" onClick={() => set({ cpus: null, comm: null, from: null, to: null })}>
              clear
            </button>
          </span>
        )}
      </div>
      <div className="flame-bar">
        <SearchBox
          value={state.search}
          onChange={onSearch}
          error={search && !search.ok ? search.error : null}
          status={match ? <><strong>{fmtPct(pctOf(matched, d.sumB))}</strong> of {shorten(lb)} samples matched</> : null}
        />
        <ModeToggle state={state} set={set} />
      </div>
      <p className="flame-summary muted" data-testid="flame-diff-summary">
        Widths: <strong>{lb}</strong> ({fmtInt(data.b.total_samples)} samples, {data.b.runs.length} run{data.b.runs.length === 1 ? '' : 's'}) · colour: change of each frame's {state.colour} share
        vs <strong>{la}</strong> ({fmtInt(data.a.total_samples)} samples, {data.a.runs.length} run{data.a.runs.length === 1 ? '' : 's'}), each side normalised by its own total · {data.filters.event}
      </p>
      {missing.length > 0 && <p className="flame-note">The zoomed frame of this link is not in this difference ({missing[0]} not found).</p>}
      {data.notes.map((n) => (
        <p key={n} className="flame-note">
          {n}
        </p>
      ))}
      <Breadcrumb lay={lay} zoom={zoom} onZoom={zoomTo} />
      <FlameChart lay={lay} zoom={zoom} icicle={state.mode === 'icicle'} fill={fill} tooltip={tooltip} onZoom={zoomTo} />
      <DiffLegend maxAbs={colours.maxAbs} data={data} by={state.colour} />
      <DiffTable rows={data.functions} count={data.functions_count} by={state.by} onBy={(by) => set({ by })} la={la} lb={lb} noise={data.noise_available} onPick={(name) => set({ search: exactPattern(name) })} />
    </>
  );
}

/** The command names of a tree (its depth-1 frames), most samples first. */
function commsOf(lay: FlameLayout, current: string | null): string[] {
  const out: [string, number][] = [];
  for (let i = 1; i < lay.n; i = lay.end[i]!) out.push([lay.names[lay.name[i]!]!, lay.total[i]!]);
  const names = out.sort((p, q) => q[1] - p[1]).map((x) => x[0]);
  return current !== null && !names.includes(current) ? [current, ...names] : names;
}

const tone = (v: number) => (v > 0.005 ? 'grew' : v < -0.005 ? 'shrank' : '');
const shorten = (s: string) => (s.length > 18 ? s.slice(0, 17) + '…' : s);

function noisePattern(): CanvasPattern | null {
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

function DiffLegend({ maxAbs, data, by }: { maxAbs: number; data: FlameDiffData; by: 'self' | 'total' }) {
  const stops = [-1, -0.5, 0, 0.5, 1].map((t) => hex(diffRgb(t * maxAbs, maxAbs)));
  return (
    <div className="flame-legend muted" data-testid="flame-diff-legend">
      <span className="ramp-box">
        <span className="ramp-label">{formatPp(-maxAbs)}</span>
        <span className="ramp" style={{ background: `linear-gradient(to right, ${stops.join(', ')})` }} />
        <span className="ramp-label">{formatPp(maxAbs)}</span>
        <span>
          change of {by} share: <span className="shrank">blue shrank</span>, <span className="grew">red grew</span>
        </span>
      </span>
      {data.noise_available ? (
        <span>
          <i className="sw hatch" /> within the spread between repeats ({data.a.runs.length} and {data.b.runs.length} runs)
        </span>
      ) : (
        <span title={data.noise_reason ?? ''}>no noise marks: {data.noise_reason}</span>
      )}
      <span>
        <i className="sw" style={{ background: hex(NEUTRAL) }} /> unchanged
      </span>
      <span>frames only in the first capture have no width: swap ⇄ to see them</span>
    </div>
  );
}

function DiffTable({ rows, count, by, onBy, la, lb, noise, onPick }: { rows: FlameDiffFunction[]; count: number; by: 'self' | 'total'; onBy: (b: 'self' | 'total') => void; la: string; lb: string; noise: boolean; onPick: (n: string) => void }) {
  const [all, setAll] = useState(false);
  const sorted = useMemo(() => sortDiffFunctions(rows, by), [rows, by]);
  const shown = all ? sorted : sorted.slice(0, FIRST_ROWS);
  const isNoise = (r: FlameDiffFunction) => (by === 'self' ? r.noise_self : r.noise_total) === true;
  return (
    <section className="flame-table-box">
      <div className="flame-table-head">
        <h3>
          Largest changes <span className="muted count">{fmtInt(count)} functions</span>
        </h3>
        <div className="segmented" role="group" aria-label="Order changes by">
          <button type="button" className={`toggle${by === 'self' ? ' on' : ''}`} aria-pressed={by === 'self'} onClick={() => onBy('self')}>
            Self
          </button>
          <button type="button" className={`toggle${by === 'total' ? ' on' : ''}`} aria-pressed={by === 'total'} onClick={() => onBy('total')}>
            Total
          </button>
        </div>
        <span className="muted small">share of each capture's samples; change in percentage points{noise ? ' · ~ within the spread between repeats' : ''}</span>
      </div>
      <table className="data-table flame-table diff-fn-table" data-testid="flame-diff-table">
        <thead>
          <tr>
            <th className="rank">#</th>
            <th>Function</th>
            <th className="num" title={`Self share in ${la}`}>
              Self before
            </th>
            <th className="num" title={`Self share in ${lb}`}>
              Self after
            </th>
            <th className="num">Δ self</th>
            <th className="num" title={`Total share in ${la}`}>
              Total before
            </th>
            <th className="num" title={`Total share in ${lb}`}>
              Total after
            </th>
            <th className="num">Δ total</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((r, i) => (
            <tr key={r.name} className={isNoise(r) ? 'noise' : ''}>
              <td className="rank muted num">{i + 1}</td>
              <td className="fn">
                <button type="button" className="fn-name" onClick={() => onPick(r.name)} title={`Highlight ${r.name}`}>
                  {r.name}
                </button>
                {isNoise(r) && (
                  <span className="noise-mark" title="The change lies within the spread between the repeats of the same capture">
                    ~ noise
                  </span>
                )}
              </td>
              <td className="num">{fmtPct(r.self_a)}</td>
              <td className="num">{fmtPct(r.self_b)}</td>
              <td className={`num delta ${by === 'self' ? 'key' : ''} ${r.noise_self ? '' : tone(r.delta_self)}`}>{formatPp(r.delta_self)}</td>
              <td className="num">{fmtPct(r.total_a)}</td>
              <td className="num">{fmtPct(r.total_b)}</td>
              <td className={`num delta ${by === 'total' ? 'key' : ''} ${r.noise_total ? '' : tone(r.delta_total)}`}>{formatPp(r.delta_total)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {sorted.length > FIRST_ROWS && (
        <button type="button" className="link-button show-more" onClick={() => setAll(!all)}>
          {all ? 'Show fewer' : `Show all ${sorted.length}`}
        </button>
      )}
    </section>
  );
}

