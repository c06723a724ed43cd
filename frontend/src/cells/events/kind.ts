import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { decodeEvents, defaultEventsState, encodeEvents, type EventsState } from './state';

/** Any tracepoint (iolens-collect --trace): counts per event and per value of a field, over time, per capture. */
export const eventsCell = defineCell<EventsState>({
  kind: 'events',
  title: 'Traced events',
  description: 'tracepoints recorded with --trace: counts per field value (top N), first/last time, rate over time',
  defaultState: defaultEventsState,
  encode: encodeEvents,
  decode: decodeEvents,
  ...lazyCell(() => import('./EventsCell').then((m) => m.EventsCell)),
  starter: (caps) => caps.some((c) => (c.artifact_kinds ?? []).includes('perf-trace-fields')),
});
