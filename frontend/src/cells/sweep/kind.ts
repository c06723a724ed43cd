import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { decodeSweep, defaultSweepState, encodeSweep, type SweepState } from './state';

/** Captures x sweep points, any metric, with repeat statistics and Welch's t-test against the baseline. */
export const sweepCell = defineCell<SweepState>({
  kind: 'sweep',
  title: 'Sweep matrix',
  description: 'captures as rows, sweep points as columns, any metric, absolute or relative, significance marked',
  defaultState: defaultSweepState,
  encode: encodeSweep,
  decode: decodeSweep,
  ...lazyCell(() => import('./SweepMatrixCell').then((m) => m.SweepMatrixCell)),
  // Sweeps (more than one parameter point) and commands (`iolens-collect cmd`).
  starter: (caps) => caps.some((c) => c.runs > c.repeats || c.workload_kind === 'cmd'),
});
