import { decodeFioLog, defaultFioLogState, encodeFioLog, type FioLogState } from '../sweep/state';
import { lazyCell } from '../lazy';
import { defineCell } from '../types';

/** fio's bw / IOPS / latency logs over time, a line per capture (iolens-collect --fio-logs). */
export const fioLogCell = defineCell<FioLogState>({
  kind: 'fiolog',
  title: 'fio log over time',
  description: "fio's IOPS, bandwidth or latency over the run (--fio-logs), a line per capture",
  defaultState: defaultFioLogState,
  encode: encodeFioLog,
  decode: decodeFioLog,
  ...lazyCell(() => import('./FioLogCell').then((m) => m.FioLogCell)),
  starter: (caps) => caps.some((c) => (c.artifact_kinds ?? []).includes('fio-log')),
});
