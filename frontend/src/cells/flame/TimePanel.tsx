// The subsecond heatmap's toggle above one capture's flame graph, and the heatmap when shown
// (Heatmap.tsx, loaded when first shown: lazyViews.ts).
import { Suspense } from 'react';
import { heatmapView } from './lazyViews';
import type { FlameState } from './state';

const Heatmap = heatmapView.Component;

/** The heatmap toggle, and the heatmap with its ranges when shown. */
export function TimePanel({ id, state, set }: { id: string; state: FlameState; set: (p: Partial<FlameState>) => void }) {
  const shown = state.heatmap !== null || state.rangeB !== null;
  return (
    <div className="flame-time">
      <button
        type="button"
        className={`toggle${shown ? ' on' : ''}`}
        aria-pressed={shown}
        data-testid="heatmap-toggle"
        title="Samples per second and fraction of a second of one run (FlameScope): select time ranges on it"
        onClick={() => set(shown ? { heatmap: null, rangeB: null } : { heatmap: 50 })}
      >
        Subsecond heatmap
      </button>
      {shown && (
        <Suspense fallback={<p className="muted">Counting samples per second…</p>}>
          <Heatmap id={id} state={state} set={set} />
        </Suspense>
      )}
    </div>
  );
}
