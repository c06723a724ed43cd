// One capture's flame graph: its selection, search, the graph, and the top functions.
import { memo, useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../../api/client';
import { frameFills } from '../../charts/flameCanvas';
import { NoneSelected } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import { GREY, matchedWeight, MATCH, searchMatches, type FlameLayout, type FunctionRow } from '../../logic/flame';
import { fmtInt, fmtPct, fmtWeight, pctOf, sampleWord } from '../../logic/flameFormat';
import { exactPattern } from '../../logic/flameSelect';
import { FlameChart } from './FlameChart';
import { InvertedView } from './InvertedView';
import { cachedUnknownRun, cachedView, spanText } from './layouts';
import { Bar, Breadcrumb, FIRST_ROWS, FunctionName, ModeToggle, useStale, useZoom } from './parts';
import { useFlame, type FlameGraphData } from './queries';
import { SearchBox } from './SearchBox';
import { SandwichView } from './SandwichView';
import { TimeOrderView } from './TimeOrderView';
import { SelectionBar } from './Selection';
import { FunctionMenu, StacksBar } from './StacksBar';
import { TimePanel } from './TimePanel';
import { showMoreText, topInSlices } from './topSlices';
import { ALL_TASKS, selectionNarrowing, type FlameState } from './state';

/** `noStacks`: shown instead of an error when the server says the capture has no stacks (a 404: a
 *  link naming a capture without them, answered before the capture list said so). */
export function SingleView({
  id,
  state,
  set,
  noStacks,
  workComm = null,
}: {
  id: string;
  state: FlameState;
  set: (p: Partial<FlameState>) => void;
  noStacks?: ReactNode;
  /** The default task filter (off-CPU stacks: the workload's own tasks, singleComm), or null. */
  workComm?: string | null;
}) {
  const q = useStale(useFlame(id, state));
  const data = q.data;
  const view = useMemo(() => (data ? cachedView(data, state.order, state.transforms) : null), [data, state.order, state.transforms]);
  const lay = view?.lay ?? null;
  const [menu, setMenu] = useState<{ name: string; x: number; y: number } | null>(null);
  const closeMenu = useCallback(() => setMenu(null), []);
  // the search as typed (SearchBox's draft, every keystroke) until it is committed to the state
  const [typed, setTyped] = useState<string | null>(null);
  const pattern = typed ?? state.search;
  const search = useMemo(() => (lay ? searchMatches(lay.names, pattern) : null), [lay, pattern]);
  const match = search && search.ok ? search.match : null;
  const fill = useMemo(() => (lay ? frameFills(lay, match) : null), [lay, match]);
  const { zoom, missing, zoomTo } = useZoom(lay, state, set);
  const onSearch = useMemo(() => (v: string) => set({ search: v }), [set]);

  const fnDepth = view?.focused ? 1 : 2;
  // the function the transform keys act on: the sandwich's (or the time order's last clicked box), else the zoomed frame
  const current = state.show === 'sandwich' || state.show === 'time' ? state.fn : lay && zoom > 0 && lay.depth[zoom]! >= fnDepth ? lay.names.get(lay.name[zoom]!)! : null;

  if (q.error) return q.error instanceof ApiError && q.error.status === 404 && noStacks ? noStacks : <ErrorBox error={q.error} title="flame graph" />;
  if (!data || !view || !lay || !fill) return <p className="muted flame-loading">Loading call stacks…</p>;
  const unit = data.weight_unit;
  const total = lay.total[0]!;
  const onMenu = (name: string, x: number, y: number) => setMenu({ name, x, y });
  const matched = match ? matchedWeight(lay, match, 0) : 0;
  const matchedZoom = match && zoom > 0 ? matchedWeight(lay, match, zoom) : 0;

  const tooltip = (n: number) => (
    <>
      <div className="tt-name">{lay.names.get(lay.name[n]!)}</div>
      <table className="tt-table">
        <tbody>
          <tr>
            <th>Total</th>
            <td className="num">{fmtPct(pctOf(lay.total[n]!, total))}</td>
            <td className="num">
              {fmtInt(view.samples()[n]!)} {sampleWord(data.filters.event, view.samples()[n]!)}
            </td>
            <td className="num">{fmtWeight(lay.total[n]!, unit)}</td>
          </tr>
          <tr>
            <th>Self</th>
            <td className="num">{fmtPct(pctOf(lay.self[n]!, total))}</td>
            <td className="num">
              {fmtInt(view.selfSamples[n]!)} {sampleWord(data.filters.event, view.selfSamples[n]!)}
            </td>
            <td className="num">{fmtWeight(lay.self[n]!, unit)}</td>
          </tr>
          {view.span && view.span.max[n]! > 1 && (
            <tr data-testid="tt-span">
              <th>Collapsed</th>
              <td colSpan={3}>{spanText(view.span.min[n]!, view.span.max[n]!)}</td>
            </tr>
          )}
          {zoom > 0 && n !== zoom && (
            <tr>
              <th>Of zoom</th>
              <td className="num">{fmtPct(pctOf(lay.total[n]!, lay.total[zoom]!))}</td>
              <td colSpan={2} className="muted">
                of {lay.names.get(lay.name[zoom]!)}
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
      {state.show !== 'time' && <SelectionBar data={data} state={state} set={set} workComm={workComm} />}
      <TimePanel id={id} state={state} set={set} />
      <div className="flame-bar">
        <SearchBox
          value={state.search}
          onChange={onSearch}
          onDraft={setTyped}
          error={search && !search.ok ? search.error : null}
          status={
            match ? (
              <>
                <strong>{fmtPct(pctOf(matched, total))}</strong> of samples matched{zoom > 0 ? <> · {fmtPct(pctOf(matchedZoom, lay.total[zoom]!))} of the zoomed frame</> : null}
              </>
            ) : null
          }
        />
        {state.show !== 'time' && <ModeToggle state={state} set={set} />}
      </div>
      {state.show !== 'time' && (
        <Summary
          data={data}
          nodes={lay.n}
          loading={q.loading}
          shown={state.transforms.length > 0 ? total : null}
          work={workComm !== null && state.comm === workComm ? workComm : null}
          onEveryTask={() => set({ comm: ALL_TASKS, tid: null, zoom: [] })}
        />
      )}
      <StacksBar state={state} set={set} missing={view.missing} current={current} unknownRun={cachedUnknownRun(data)} />
      {menu && <FunctionMenu name={menu.name} x={menu.x} y={menu.y} state={state} set={set} onClose={closeMenu} />}
      {state.show === 'time' ? (
        <TimeOrderView id={id} state={state} set={set} onMenu={onMenu} />
      ) : state.show === 'inverted' ? (
        <InvertedView stacks={view.stacks()} unit={unit} by={state.by} onBy={(by) => set({ by })} onMenu={onMenu} onSandwich={(fn) => set({ show: 'sandwich', fn })} />
      ) : state.show === 'sandwich' ? (
        <SandwichView stacks={view.stacks()} fn={state.fn} order={state.order} unit={unit} match={match} state={state} set={set} onMenu={onMenu} />
      ) : (
        <>
          {missing.length > 0 && <p className="flame-note">The zoomed frame of this link is not in this selection ({missing[0]} not found); showing its deepest ancestor.</p>}
          <Breadcrumb lay={lay} zoom={zoom} onZoom={zoomTo} />
          {total > 0 ? (
            <FlameChart lay={lay} zoom={zoom} icicle={state.mode === 'icicle'} fill={fill} tooltip={tooltip} onZoom={zoomTo} onMenu={(n, x, y) => lay.depth[n]! >= fnDepth && onMenu(lay.names.get(lay.name[n]!)!, x, y)} />
          ) : (
            <NoneSelected data="stacks" testId="flame-none" where="this selection" steps={selectionNarrowing(state)} />
          )}
          <Legend search={!!match} heavy={state.order === 'heavy'} />
          <TopTable lay={lay} zoom={zoom} total={total} unit={unit} by={state.by} fnDepth={fnDepth} onBy={(by) => set({ by })} onPick={(name) => set({ search: exactPattern(name) })} onSandwich={(fn) => set({ show: 'sandwich', fn })} onMenu={onMenu} />
        </>
      )}
    </>
  );
}

// Summary and Legend do not change with a zoom: memo keeps them out of the zoom's render
const Summary = memo(function Summary({
  data,
  nodes,
  loading,
  shown,
  work = null,
  onEveryTask,
}: {
  data: FlameGraphData;
  nodes: number;
  loading: boolean;
  shown: number | null;
  work?: string | null;
  onEveryTask?: () => void;
}) {
  const runs = data.filters.runs ?? data.runs.map((r) => r.id);
  return (
    <p className="flame-summary muted" data-testid="flame-summary">
      <strong>{fmtInt(data.total_samples)}</strong> {sampleWord(data.filters.event, data.total_samples)} · {fmtWeight(data.total_weight, data.weight_unit)}
      {data.weight_unit === 'ns' ? (data.filters.event === 'offcpu' ? ' off the CPU' : ' CPU') : ''} · {data.filters.event ?? 'no event name'} · {runs.length === 1 ? `run ${runs[0]}` : `${runs.length} runs merged`} ·{' '}
      {fmtInt(nodes)} frames
      {data.stackless_samples > 0 && <> · {fmtInt(data.stackless_samples)} samples without a usable stack not drawn</>}
      {shown !== null && (
        <>
          {' '}
          · after the transforms: <strong>{fmtPct(pctOf(shown, data.total_weight))}</strong> ({fmtWeight(shown, data.weight_unit)}), percentages of that
        </>
      )}
      {work !== null && (
        <span data-testid="flame-default-tasks">
          {' '}
          · tasks: <strong>{work}</strong>, the workload&apos;s own (the default for off-CPU stacks: other processes&apos; waits would fill the graph),{' '}
          <button type="button" className="link-button" onClick={onEveryTask}>
            every task
          </button>
        </span>
      )}
      {loading && <span className="flame-busy"> · loading the new selection…</span>}
    </p>
  );
});

const Legend = memo(function Legend({ search, heavy }: { search: boolean; heavy: boolean }) {
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
      <span>width: share of samples · x order: {heavy ? 'heaviest first (left heavy)' : 'by name'}, not time · right click a frame: sandwich, transforms</span>
    </div>
  );
});

// The table of each zoom, kept per layout: the notebook remounts the cell on every zoom, and
// zooming back out finds its table here.
const tops = new WeakMap<FlameLayout, Map<string, FunctionRow[]>>();
const topKey = (zoom: number, by: string, fnDepth: number) => `${zoom}|${by}|${fnDepth}`;
function keepTop(lay: FlameLayout, zoom: number, by: 'self' | 'total', fnDepth: number, rows: FunctionRow[]): void {
  let byKey = tops.get(lay);
  if (!byKey) tops.set(lay, (byKey = new Map()));
  if (byKey.size >= 64) byKey.delete(byKey.keys().next().value!);
  byKey.set(topKey(zoom, by, fnDepth), rows);
}

function TopTable({
  lay,
  zoom,
  total,
  unit,
  by: key,
  fnDepth,
  onBy,
  onPick,
  onSandwich,
  onMenu,
}: {
  lay: FlameLayout;
  zoom: number;
  total: number;
  unit: string;
  by: 'self' | 'total' | 'name';
  fnDepth: number;
  onBy: (b: 'self' | 'total') => void;
  onPick: (name: string) => void;
  onSandwich: (name: string) => void;
  onMenu: (name: string, x: number, y: number) => void;
}) {
  const by = key === 'total' ? 'total' : 'self';
  const [all, setAll] = useState(false);
  // The table of this zoom is shown from the task after the frame that paints the graph, never in
  // that frame: one not made yet (a pass over the zoomed subtree and its functions: ~50 ms at 51k
  // nodes) is made from the next frame on, in slices of a few ms (topInSlices); one made before (a
  // zoom back into a frame) is put in after that frame too, as its rows are most of the zoom's DOM
  // work (20 rows made again: ~10 ms of the zoom's style and layout at 51k nodes). Until then the
  // last table shown for this layout stays, marked as being updated.
  const want = topKey(zoom, by, fnDepth);
  const have = tops.get(lay)?.get(want);
  const [, made] = useState(0);
  const due = useRef<string | null>(null);
  const last = useRef<{ lay: FlameLayout; zoom: number; key: string; rows: FunctionRow[] } | null>(null);
  if (have && (due.current === want || !last.current || last.current.lay !== lay)) last.current = { lay, zoom, key: want, rows: have };
  const shownTable = last.current && last.current.lay === lay ? last.current : null;
  const updating = shownTable?.key !== want;
  useEffect(() => {
    if (!updating) return;
    let stop = () => {};
    const show = () => {
      due.current = want;
      made((n) => n + 1);
    };
    const frame = requestAnimationFrame(() => {
      if (have) {
        const t = setTimeout(show, 0);
        stop = () => clearTimeout(t);
      } else
        stop = topInSlices(lay, zoom, by, fnDepth, (rows) => {
          keepTop(lay, zoom, by, fnDepth, rows);
          show();
        });
    });
    return () => {
      cancelAnimationFrame(frame);
      stop();
    };
  }, [updating, have, want, lay, zoom, by, fnDepth]);
  const rows = shownTable?.rows ?? [];
  const tableZoom = shownTable?.zoom ?? zoom;
  const shown = all ? rows : rows.slice(0, FIRST_ROWS);
  const max = Math.max(...rows.map((r) => r[by]), 1);
  return (
    <section className="flame-table-box">
      <div className="flame-table-head">
        <h3>
          Top functions{tableZoom > 0 && <span className="muted"> under {lay.names.get(lay.name[tableZoom]!)}</span>}
          {updating && <span className="muted small"> · updating…</span>}
        </h3>
        <div className="segmented" role="group" aria-label="Order functions by">
          <button type="button" className={`toggle${by === 'self' ? ' on' : ''}`} aria-pressed={by === 'self'} onClick={() => onBy('self')} title="Samples whose stack ends in the function">
            By self
          </button>
          <button type="button" className={`toggle${by === 'total' ? ' on' : ''}`} aria-pressed={by === 'total'} onClick={() => onBy('total')} title="Samples with the function anywhere in the stack (once each)">
            By total
          </button>
        </div>
        <span className="muted small">% of all samples · click a name to highlight it · ⇅ its callers and callees (sandwich) · right click for transforms</span>
      </div>
      <table className="data-table flame-table" data-testid="flame-top-table" aria-busy={updating}>
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
                <FunctionName name={r.name} onSandwich={onSandwich} onPick={onPick} onMenu={onMenu} />
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
          {all ? 'Show fewer' : showMoreText(rows.length)}
        </button>
      )}
    </section>
  );
}
