// The flame cell's views that a notebook's first paint of one capture's flame graph does not show:
// the difference of two captures or of two time ranges, and the subsecond heatmap. They are loaded
// when first shown, not with the cell's code (issue 17: less script to compile before the first
// paint); each asks the server for its own answer then, which takes longer than its code. A link
// that opens on one of them starts its code with the cell's (kind.ts, from the URL's state).
import { lazyComponent } from '../lazy';
import type { FlameState } from './state';

export const diffView = lazyComponent(() => import('./DiffView').then((m) => m.DiffView));
export const rangeDiffView = lazyComponent(() => import('./RangeDiffView').then((m) => m.RangeDiffView));
export const heatmapView = lazyComponent(() => import('./Heatmap').then((m) => m.Heatmap));

/** Starts the code of the views this state shows. */
export function preloadViews(s: FlameState): void {
  if (s.view === 'diff') void diffView.preload().catch(() => {});
  else if (s.rangeB) void rangeDiffView.preload().catch(() => {});
  if (s.view !== 'diff' && (s.heatmap !== null || s.rangeB !== null)) void heatmapView.preload().catch(() => {});
}
