import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { decodeTimeline, defaultTimelineState, encodeTimeline, type TimelineState } from './state';

/** One run's tracks on one time axis (sched, block, fio's log, perf samples); its brush is the
 *  notebook's shared time range. */
export const timelineCell = defineCell<TimelineState>({
  kind: 'timeline',
  title: 'Timeline',
  description: "One run on one time axis: per-CPU tasks, device queue depth and IOPS, fio's IOPS, perf samples; brush a range for the other cells",
  defaultState: defaultTimelineState,
  encode: encodeTimeline,
  decode: decodeTimeline,
  ...lazyCell(() => import('./TimelineCell').then((m) => m.TimelineCell)),
});
