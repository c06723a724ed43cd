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
  starter: (caps) => caps.some((c) => (c.artifact_kinds ?? []).includes('perf-script')),
});
