import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { decodeSched, defaultSchedState, encodeSched, type SchedState } from './state';

/** Scheduler traces (perf sched): context switches per CPU, ping-pong pairs, wakeup delays, run time; captures compared. */
export const schedCell = defineCell<SchedState>({
  kind: 'sched',
  title: 'Scheduler',
  description: 'context switches per CPU over time, ping-pong pairs, wakeup delays and run time, compared with ratios',
  defaultState: defaultSchedState,
  encode: encodeSched,
  decode: decodeSched,
  ...lazyCell(() => import('./SchedCell').then((m) => m.SchedCell)),
  starter: (caps) => caps.some((c) => (c.artifact_kinds ?? []).includes('perf-sched')),
});
