import { decodeSweepLine, defaultSweepLineState, encodeSweepLine, type SweepLineState } from '../sweep/state';
import { lazyCell } from '../lazy';
import { defineCell } from '../types';

/** A metric against a swept parameter: a line per capture with its 95% confidence band. */
export const sweepLineCell = defineCell<SweepLineState>({
  kind: 'sweepline',
  title: 'Sweep chart',
  description: 'a metric against a swept parameter (IOPS vs iodepth), a line per capture, 95% CI bands',
  defaultState: defaultSweepLineState,
  encode: encodeSweepLine,
  decode: decodeSweepLine,
  ...lazyCell(() => import('./SweepLineCell').then((m) => m.SweepLineCell)),
  // Captures with more than one parameter point (runs beyond the repeats of one point).
  starter: (caps) => caps.some((c) => c.runs > c.repeats),
});
