// Pieces shared by the single and differential views: the zoom path and its Esc key, the
// orientation toggle, the last answer kept while the next loads, and the bars of the tables.
import { useMemo, useRef, useState } from 'react';
import type { QueryResult } from '../../api/useQuery';
import { useShortcut } from '../../components/shortcuts';
import { findPath, pathOf, type FlameLayout } from '../../logic/flame';
import { fmtPct, pctOf } from '../../logic/flameFormat';
import type { FlameState } from './state';

/** Rows of the functions tables before "Show all". */
export const FIRST_ROWS = 20;

export function Breadcrumb({ lay, zoom, onZoom }: { lay: FlameLayout; zoom: number; onZoom: (n: number) => void }) {
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
            <strong title={lay.names.get(lay.name[n]!)}>{lay.names.get(lay.name[n]!)}</strong>
          ) : (
            <button type="button" className="link-button" onClick={() => onZoom(n)} title={lay.names.get(lay.name[n]!)}>
              {lay.names.get(lay.name[n]!)}
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

/**
 * The zoomed frame: the URL's path (state.zoom) found in the layout. A zoom is drawn at once from
 * this cell's own state, and written to the URL (which renders the whole notebook again) only after
 * the frame that shows it has been painted; the URL's path takes over when it names the same frame.
 */
export function useZoom(lay: FlameLayout | null, state: FlameState, set: (p: Partial<FlameState>) => void) {
  const found = useMemo(() => (lay ? findPath(lay, state.zoom) : { node: 0, missing: [] }), [lay, state.zoom]);
  const [pending, setPending] = useState<{ lay: FlameLayout; node: number; from: string } | null>(null);
  const urlKey = state.zoom.join('\n');
  // pending until the URL moves (to this zoom, or elsewhere: Back, a link) or the layout changes
  const live = pending && pending.lay === lay && pending.from === urlKey ? pending : null;
  const node = live ? live.node : found.node;
  const zoomTo = (n: number) => {
    if (!lay) return;
    setPending({ lay, node: n, from: urlKey });
    const path = n === 0 ? [] : pathOf(lay, n);
    // after the paint: a task posted from the next animation frame runs once that frame is shown
    requestAnimationFrame(() => setTimeout(() => set({ zoom: path }), 0));
  };
  useShortcut(
    'Escape',
    () => {
      if (lay && node > 0) zoomTo(lay.parent[node]!);
    },
    !!lay && node > 0,
  );
  return { zoom: node, missing: live ? [] : found.missing, zoomTo };
}

export function ModeToggle({ state, set }: { state: FlameState; set: (p: Partial<FlameState>) => void }) {
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

/** Keep showing the last answer while the next selection loads (no flicker, inputs keep focus). */
export function useStale<T>(q: QueryResult<T>): QueryResult<T> {
  const last = useRef<T | undefined>(undefined);
  if (q.data !== undefined) last.current = q.data;
  if (q.error) last.current = undefined;
  return { data: q.data ?? (q.loading ? last.current : undefined), error: q.error, loading: q.loading };
}

export const Bar = ({ v, on }: { v: number; on: boolean }) => (
  <span className={`bar${on ? ' on' : ''}`}>
    <span style={{ width: `${Math.max(0, Math.min(1, v)) * 100}%` }} />
  </span>
);

/**
 * A function's name in a table of functions (top functions, the difference's largest changes): ⇅ opens
 * its sandwich (when given; `where` names the capture it opens in), a click highlights it, a right click
 * opens its menu (when given).
 */
export function FunctionName({ name, where, onSandwich, onPick, onMenu }: { name: string; where?: string; onSandwich?: (fn: string) => void; onPick: (fn: string) => void; onMenu?: (fn: string, x: number, y: number) => void }) {
  return (
    <>
      {onSandwich && (
        <button type="button" className="icon-button sandwich-link" onClick={() => onSandwich(name)} title={`Callers and callees of ${name}${where ? ` in ${where}` : ''} (sandwich)`} aria-label={`Sandwich of ${name}`}>
          ⇅
        </button>
      )}
      <button
        type="button"
        className="fn-name"
        onClick={() => onPick(name)}
        title={`Highlight ${name}`}
        onContextMenu={
          onMenu &&
          ((e) => {
            e.preventDefault();
            onMenu(name, e.clientX, e.clientY);
          })
        }
      >
        {name}
      </button>
    </>
  );
}
