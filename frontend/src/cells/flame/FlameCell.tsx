// The flame graph cell: one capture's flame graph (per run, point, CPU, task, time range) or the
// differential flame graph of two captures, with search, zoom, exports and a functions table.
// Everything it shows follows from its state (the URL); the work is in logic/flame*.ts.
//
//   FlameCell.tsx   the toolbar (view, captures, exports) and the view below it
//   SingleView.tsx  one capture: selection, search, flame graph, top functions
//   DiffView.tsx    two captures: the differential graph, its legend and the largest changes
//   Selection.tsx   runs, CPU, task, time range of one capture
//   SearchBox.tsx, parts.tsx   shared by both views (search, zoom path, orientation, stale answers)
//   layouts.ts      layouts cached by answer;  FlameChart.tsx  the canvas
//   lazyViews.ts    the views loaded when first shown (the differences, the heatmap)
import { Suspense, useRef } from 'react';
import { useCaptureList } from '../../api/queries';
import { copyText } from '../../components/copy';
import { EmptyState } from '../../components/EmptyState';
import { ExportMenu } from '../../components/ExportMenu';
import { flash } from '../../components/Toast';
import { captureColor } from '../../logic/colors';
import type { CellProps } from '../types';
import { exportUrl } from './queries';
import { diffView, rangeDiffView } from './lazyViews';
import { SingleView } from './SingleView';
import { useSharedTime } from './sharedTime';
import { pairComm, sandwichOfPair, singleComm, withDefaultTasks, type FlameState } from './state';
import './flame.css';

const DiffView = diffView.Component;
const RangeDiffView = rangeDiffView.Component;
const viewLoading = <p className="muted">Loading the difference view…</p>;

export function FlameCell({ ctx, state, setState }: CellProps<FlameState>) {
  const list = useCaptureList();
  const byId = new Map((list.data ?? []).map((c) => [c.id, c]));
  // sampled stacks (--stacks), or off-CPU stacks (--offcpu: events offcpu and wakeup); before the
  // capture list, what the server said in index.html (no stacks: no flame answer to ask for, a 404)
  const said = ctx.withoutStacks ?? [];
  const hasStacks = (id: string) => (byId.get(id)?.artifact_kinds ?? (said.includes(id) ? [] : ['perf-script'])).some((k) => k === 'perf-script' || k === 'perf-offcpu');
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
  // The pair shows the workload's own tasks unless the user chose a command or "All tasks".
  const work = b ? pairComm(byId.get(a), byId.get(b)) : null;
  const pairState = withDefaultTasks(state, work);

  // A capture named by the link (cap=, a=, b=) that has no stacks: the empty state names it and the
  // captures that have them, which it shows with a click (a link by hand, or a reload of one).
  const sidesWithout = diff ? [a, ...(b ? [b] : [])].filter((id) => !hasStacks(id)) : [];
  const pick = (id: string) => {
    if (!diff) set({ cap: id === first ? null : id, zoom: [], runs: null, tid: null, window: null });
    else if (sidesWithout.includes(a)) set({ a: id, b: b === id ? null : b, zoom: [] });
    else set({ b: id, zoom: [] });
  };
  const noStacks = (wanted: string[]) => (
    <EmptyState data="stacks" testId="flame-empty" captures={ctx.captures} baseline={ctx.baseline} wanted={wanted} onPick={pick} exclude={diff ? [a, ...(b ? [b] : [])] : []} withCapture={ctx.withCapture}>
      Or attach <code>perf script</code> text to a capture as an artifact of kind <code>perf-script</code>.
    </EmptyState>
  );

  // the notebook's shared time selection (a timeline cell's brush), applied to one capture's graph
  const shared = useSharedTime(ctx, cap, diff, state);
  // one capture's graph of off-CPU stacks shows the workload's own tasks too, unless chosen otherwise
  const single = diff ? null : singleComm(byId.get(cap), state.event);
  const singleState = withDefaultTasks(shared.state, single);
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
                onClick={() => set({ cap: id === first ? null : id, zoom: [], runs: null, tid: null, window: null })}
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
          className="flame-export"
          small
          items={[
            ...(diff && b
              ? [
                  // the pair's scope as drawn (the workload's own tasks by default), not the bare state
                  { label: 'SVG image (for a mailing list)', href: exportUrl('svg', pairState, { a, b }) },
                  { label: 'Folded difference (difffolded.pl format)', href: exportUrl('folded', pairState, { a, b }) },
                ]
              : [
                  { label: `SVG image (for a mailing list)${state.transforms.length ? ', with the transforms' : ''}`, href: exportUrl('svg', withDefaultTasks(state, single), { cap }) },
                  { label: `Folded stacks (inferno / flamegraph.pl)${state.transforms.length ? ', with the transforms' : ''}`, href: exportUrl('folded', withDefaultTasks(state, single), { cap }) },
                ]),
            { label: 'Copy link to this view', onSelect: copyLink },
          ]}
        />
      </div>
      {shared.notice}
      {/* before the capture list, what the server said: a capture without stacks shows the empty
          state at once, rather than asking for its flame answer (a 404 in the console) */}
      {(list.data || said.length > 0) && (withStacks.length === 0 || (!diff && !hasStacks(cap)) || (diff && sidesWithout.length > 0)) ? (
        noStacks(withStacks.length === 0 ? ctx.captures : diff ? sidesWithout : [cap])
      ) : diff ? (
        b ? (
          list.data === undefined && !list.error ? (
            <p className="muted">Reading the captures…</p>
          ) : (
            <Suspense fallback={viewLoading}>
              <DiffView
                a={a}
                b={b}
                state={pairState}
                workComm={work}
                set={set}
                onSandwich={(fn, side) => set(sandwichOfPair(fn, side === 'a' ? a : b, first, pairState.comm))}
              />
            </Suspense>
          )
        ) : (
          <p className="muted">Pick a second capture.</p>
        )
      ) : (
        singleState.rangeB ? (
          <Suspense fallback={viewLoading}>
            <RangeDiffView id={cap} state={singleState} set={set} />
          </Suspense>
        ) : (
          <SingleView id={cap} state={singleState} set={set} noStacks={noStacks([cap])} workComm={single} />
        )
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
