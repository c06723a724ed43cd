import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { preloadViews } from './lazyViews';
import { prefetchFlame } from './queries';
import { decodeFlame, defaultFlameState, encodeFlame, type FlameState } from './state';

/** perf call stacks: one capture's flame graph, or the differential flame graph of two. */
export const flameCell = defineCell<FlameState>({
  kind: 'flame',
  title: 'Flame graph',
  description: 'perf call stacks: flame graph per capture, run, CPU, task or time range; differential graph of two captures',
  defaultState: defaultFlameState,
  encode: encodeFlame,
  decode: decodeFlame,
  ...lazyCell(() => import('./FlameCell').then((m) => m.FlameCell)),
  prefetch: (ctx, s) => {
    preloadViews(s);
    prefetchFlame(ctx, s);
  },
  // sampled stacks (--stacks) or off-CPU stacks (--offcpu: the graph then weighs time off the CPU)
  starter: (caps) => caps.some((c) => (c.artifact_kinds ?? []).some((k) => k === 'perf-script' || k === 'perf-offcpu')),
  // A baseline without stacks: the starter names the capture the cell would show once the capture
  // list is known (FlameCell), so that the flame answer asked for from the URL before that list
  // (boot.ts, prefetchFlame) is of a capture with stacks, not a 404 in the console.
  starterState: (caps, baseline) => {
    const stacks = (c: (typeof caps)[number]) => (c.artifact_kinds ?? []).some((k) => k === 'perf-script' || k === 'perf-offcpu');
    const base = caps.find((c) => c.id === baseline);
    const shown = caps.find(stacks);
    return base && !stacks(base) && shown ? { ...defaultFlameState, cap: shown.id } : defaultFlameState;
  },
});
