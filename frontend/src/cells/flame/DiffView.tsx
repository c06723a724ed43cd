// The differential flame graph of two captures: widths from the second, colour by the change of
// each frame's share, noise hatched; its legend and the table of the largest changes. With fewer
// than MIN_REPEATS runs on a side nothing is red or blue: grey frames and grey '?' changes, the
// compared-metric tables' rule (logic/ratio.ts tooFewRepeats).
import { useMemo, useState, type ReactNode } from 'react';
import { noisePattern, type Fill } from '../../charts/flameCanvas';
import { ErrorBox } from '../../components/ErrorBox';
import { useDismiss } from '../../components/dismiss';
import { useShortcut } from '../../components/shortcuts';
import { commsOf, hex, matchedWeight, searchMatches } from '../../logic/flame';
import { colouredChange, diffColours, diffFill, diffNodeInfo, diffRgb, fewRgb, formatPp, NEUTRAL, NOISE, sortDiffFunctions } from '../../logic/flameDiff';
import { MIN_REPEATS } from '../../logic/ratio';
import { changeTone, fmtInt, fmtPct, pctOf, shortLabel } from '../../logic/flameFormat';
import { exactPattern, secondsText } from '../../logic/flameSelect';
import { FlameChart } from './FlameChart';
import { cachedDiffLayout } from './layouts';
import { Breadcrumb, FIRST_ROWS, FunctionName, ModeToggle, useStale, useZoom } from './parts';
import { useFlameDiff, type FlameDiffData, type FlameDiffFunction } from './queries';
import { SearchBox } from './SearchBox';
import { ALL_TASKS, type FlameState } from './state';

/** Which side of a difference a sandwich opens in: 'a' before, 'b' after (the side the widths come from). */
export type DiffSide = 'a' | 'b';

/** Frames below this depth are the root ('all') and the command names: no sandwich for them. */
const FN_DEPTH = 2;

export function DiffView({
  a,
  b,
  state,
  workComm = null,
  set,
  rangeB = null,
  sideLabels,
  onSandwich,
  fewNote,
}: {
  a: string;
  b: string;
  state: FlameState;
  workComm?: string | null;
  set: (p: Partial<FlameState>) => void;
  rangeB?: FlameState['rangeB'];
  sideLabels?: [string, string];
  onSandwich?: (fn: string, side: DiffSide) => void;
  /** The legend's why, when too few repeats grey the changes (two ranges of one capture: RangeDiffView). */
  fewNote?: (data: FlameDiffData) => ReactNode;
}) {
  const q = useStale(useFlameDiff(a, b, state, rangeB));
  const data = q.data;
  const d = useMemo(() => (data ? cachedDiffLayout(data) : null), [data]);
  const lay = d?.lay ?? null;
  // too few repeats on a side: the changes grey with a '?', as the compared-metric tables
  const few = data ? !colouredChange(data.a.runs.length, data.b.runs.length) : false;
  const colours = useMemo(() => (d ? diffColours(d, state.colour, few) : null), [d, state.colour, few]);
  // the search as typed, every keystroke, until it is committed (SearchBox)
  const [typed, setTyped] = useState<string | null>(null);
  const shown = typed ?? state.search;
  const search = useMemo(() => (lay ? searchMatches(lay.names, shown) : null), [lay, shown]);
  const match = search && search.ok ? search.match : null;
  const pattern = useMemo(() => noisePattern(), []);
  const fill = useMemo(() => (d && colours ? diffFill<Fill>(d, colours, match, pattern ?? NOISE) : null), [d, colours, match, pattern]);
  const { zoom, missing, zoomTo } = useZoom(lay, state, set);
  const onSearch = useMemo(() => (v: string) => set({ search: v }), [set]);
  const [menu, setMenu] = useState<{ name: string; x: number; y: number } | null>(null);
  // 3, as in the flame graph of one capture: the zoomed function's callers and callees, in the after side
  const zoomedFn = lay && zoom > 0 && lay.depth[zoom]! >= FN_DEPTH ? lay.names.get(lay.name[zoom]!)! : null;
  useShortcut('3', () => zoomedFn && onSandwich?.(zoomedFn, 'b'), onSandwich !== undefined);

  if (q.error) return <ErrorBox error={q.error} title="differential flame graph" />;
  if (!data || !d || !lay || !fill || !colours) return <p className="muted flame-loading">Comparing call stacks…</p>;
  const la = sideLabels?.[0] ?? data.a.capture.label;
  const lb = sideLabels?.[1] ?? data.b.capture.label;
  const matched = match ? matchedWeight(lay, match, 0) : 0;

  const tooltip = (n: number) => {
    const x = diffNodeInfo(d, n);
    const noise = state.colour === 'self' ? x.noiseSelf : x.noiseTotal;
    return (
      <>
        <div className="tt-name">{lay.names.get(lay.name[n]!)}</div>
        <table className="tt-table">
          <thead>
            <tr>
              <th />
              <th className="num">{shortLabel(la)}</th>
              <th className="num">{shortLabel(lb)}</th>
              <th className="num">change</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th>Self</th>
              <td className="num">{fmtPct(x.selfA)}</td>
              <td className="num">{fmtPct(x.selfB)}</td>
              <td className={`num ${few ? 'tone-few' : changeTone(x.selfB - x.selfA)}`}>
                {formatPp(x.selfB - x.selfA)}
                {few && <span className="few-mark">?</span>}
              </td>
            </tr>
            <tr>
              <th>Total</th>
              <td className="num">{fmtPct(x.totalA)}</td>
              <td className="num">{fmtPct(x.totalB)}</td>
              <td className={`num ${few ? 'tone-few' : changeTone(x.totalB - x.totalA)}`}>
                {formatPp(x.totalB - x.totalA)}
                {few && <span className="few-mark">?</span>}
              </td>
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
        <div className="tt-hint muted">click to zoom{onSandwich && lay.depth[n]! >= FN_DEPTH ? ' · right click for its callers and callees (sandwich)' : ''}</div>
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
          <select value={state.comm ?? ''} aria-label="Command, both sides" onChange={(e) => set({ comm: e.target.value || ALL_TASKS, zoom: [] })}>
            <option value="">All tasks</option>
            {[...new Set([...(workComm ? [workComm] : []), ...commsOf(lay, state.comm)])].map((c) => (
              <option key={c} value={c}>
                {c === workComm ? `${c} (the workload)` : c}
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
        {!rangeB && (state.cpus || state.from !== null || state.to !== null) && (
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
          onDraft={setTyped}
          error={search && !search.ok ? search.error : null}
          status={match ? <><strong>{fmtPct(pctOf(matched, d.sumB))}</strong> of {shortLabel(lb)} samples matched</> : null}
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
      {menu && onSandwich && <DiffMenu {...menu} la={la} lb={lb} onSandwich={onSandwich} onClose={() => setMenu(null)} />}
      <FlameChart
        lay={lay}
        zoom={zoom}
        icicle={state.mode === 'icicle'}
        fill={fill}
        tooltip={tooltip}
        onZoom={zoomTo}
        onMenu={onSandwich ? (n, x, y) => lay.depth[n]! >= FN_DEPTH && setMenu({ name: lay.names.get(lay.name[n]!)!, x, y }) : undefined}
      />
      <DiffLegend maxAbs={colours.maxAbs} data={data} by={state.colour} few={few} la={la} lb={lb} fewNote={fewNote} />
      <DiffTable
        rows={data.functions}
        count={data.functions_count}
        by={state.by === 'total' ? 'total' : 'self'}
        onBy={(by) => set({ by })}
        la={la}
        lb={lb}
        noise={data.noise_available}
        few={few}
        onPick={(name) => set({ search: exactPattern(name) })}
        onSandwich={onSandwich}
        onMenu={onSandwich ? (name, x, y) => setMenu({ name, x, y }) : undefined}
      />
    </>
  );
}

export function DiffLegend({ maxAbs, data, by, few, la, lb, fewNote }: { maxAbs: number; data: FlameDiffData; by: 'self' | 'total'; few: boolean; la: string; lb: string; fewNote?: (data: FlameDiffData) => ReactNode }) {
  const stops = [-1, -0.5, 0, 0.5, 1].map((t) => hex((few ? fewRgb : diffRgb)(t * maxAbs, maxAbs)));
  const runs = (n: number) => (n === 1 ? 'one run' : n === 2 ? 'two runs' : `${n} runs`);
  if (few)
    return (
      <div className="flame-legend muted" data-testid="flame-diff-legend" data-few="true">
        <span className="ramp-box">
          <span className="ramp-label">{formatPp(-maxAbs)}</span>
          <span className="ramp" style={{ background: `linear-gradient(to right, ${stops.join(', ')})` }} />
          <span className="ramp-label">{formatPp(maxAbs)}</span>
          <span>
            change of {by} share, <span className="tone-few">grey ?</span>: not coloured red or blue
          </span>
        </span>
        <span className="flame-few" data-testid="flame-diff-few">
          {fewNote ? (
            fewNote(data)
          ) : (
            <>
              <strong>{shortLabel(la)}</strong> has {runs(data.a.runs.length)}, <strong>{shortLabel(lb)}</strong> {runs(data.b.runs.length)} in this selection: fewer than {MIN_REPEATS} repeats on a side are too few to
              tell a change from noise (the compared-metric tables' grey ?). The tooltips and the table give each change; record {MIN_REPEATS} or more repeats of each (<code>iolens-collect run --repeat {MIN_REPEATS}</code>) to
              see which changes stand out.
            </>
          )}
        </span>
        <span>
          <i className="sw" style={{ background: hex(NEUTRAL) }} /> unchanged
        </span>
        <span>frames only in the first capture have no width: swap ⇄ to see them</span>
      </div>
    );
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

/** Why the largest changes list fewer rows than the functions counted. */
export function listedText(listed: number, count: number): string {
  return `${fmtInt(listed)} of the ${fmtInt(count)} functions listed: the largest changes of self share and of total share; the other ${fmtInt(count - listed)} changed less.`;
}

/** A function's sandwich in either side of the difference (a right click on a frame or a name). */
function DiffMenu({ name, x, y, la, lb, onSandwich, onClose }: { name: string; x: number; y: number; la: string; lb: string; onSandwich: (fn: string, side: DiffSide) => void; onClose: () => void }) {
  useDismiss(onClose);
  const act = (side: DiffSide) => {
    onSandwich(name, side);
    onClose();
  };
  const style: React.CSSProperties = { left: Math.min(x, window.innerWidth - 320), top: Math.min(y, window.innerHeight - 120) };
  return (
    <div className="fn-menu" role="menu" style={style} data-testid="diff-function-menu" onClick={(e) => e.stopPropagation()}>
      <div className="fn-menu-name" title={name}>
        {name}
      </div>
      <button type="button" role="menuitem" onClick={() => act('b')} title={`Its callers and callees in ${lb}, the side the widths come from`}>
        Callers and callees in {shortLabel(lb)} (after) <kbd>3</kbd>
      </button>
      <button type="button" role="menuitem" onClick={() => act('a')} title={`Its callers and callees in ${la}`}>
        Callers and callees in {shortLabel(la)} (before)
      </button>
    </div>
  );
}

export function DiffTable({ rows, count, by, onBy, la, lb, noise, few, onPick, onSandwich, onMenu }: { rows: FlameDiffFunction[]; count: number; by: 'self' | 'total'; onBy: (b: 'self' | 'total') => void; la: string; lb: string; noise: boolean; few: boolean; onPick: (n: string) => void; onSandwich?: (fn: string, side: DiffSide) => void; onMenu?: (name: string, x: number, y: number) => void }) {
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
        <span className="muted small">share of each capture's samples; change in percentage points{onSandwich ? ' · ⇅ callers and callees in the after side (sandwich), right click for either side' : ''}{noise ? ' · ~ within the spread between repeats' : ''}{few ? ` · grey ?: too few repeats to judge a change (fewer than ${MIN_REPEATS} on a side)` : ''}</span>
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
                <FunctionName name={r.name} where={lb} onSandwich={onSandwich && ((fn) => onSandwich(fn, 'b'))} onPick={onPick} onMenu={onMenu} />
                {isNoise(r) && (
                  <span className="noise-mark" title="The change lies within the spread between the repeats of the same capture">
                    ~ noise
                  </span>
                )}
              </td>
              <td className="num">{fmtPct(r.self_a)}</td>
              <td className="num">{fmtPct(r.self_b)}</td>
              <td className={`num delta ${by === 'self' ? 'key' : ''} ${few ? 'tone-few' : r.noise_self ? '' : changeTone(r.delta_self)}`}>
                {formatPp(r.delta_self)}
                {few && <span className="few-mark">?</span>}
              </td>
              <td className="num">{fmtPct(r.total_a)}</td>
              <td className="num">{fmtPct(r.total_b)}</td>
              <td className={`num delta ${by === 'total' ? 'key' : ''} ${few ? 'tone-few' : r.noise_total ? '' : changeTone(r.delta_total)}`}>
                {formatPp(r.delta_total)}
                {few && <span className="few-mark">?</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {sorted.length > FIRST_ROWS && (
        <button type="button" className="link-button show-more" onClick={() => setAll(!all)} title={sorted.length < count ? listedText(sorted.length, count) : undefined}>
          {all ? 'Show fewer' : sorted.length < count ? `Show ${fmtInt(sorted.length)} of ${fmtInt(count)}` : `Show all ${fmtInt(sorted.length)}`}
        </button>
      )}
      {(all || sorted.length <= FIRST_ROWS) && sorted.length < count && (
        <p className="muted small" data-testid="flame-diff-unlisted">
          {listedText(sorted.length, count)}
        </p>
      )}
    </section>
  );
}
