import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { decodeFioTable, defaultFioTableState, encodeFioTable, type FioTableState } from './state';

export const fioTableCell = defineCell<FioTableState>({
  kind: 'fio',
  title: 'fio comparison',
  description: 'IOPS, bandwidth, latency and CPU per job and direction, relative to the baseline',
  defaultState: defaultFioTableState,
  encode: encodeFioTable,
  decode: decodeFioTable,
  ...lazyCell(() => import('./FioTableCell').then((m) => m.FioTableCell)),
  // Not for sweeps (several parameter points: runs beyond one point's repeats), whose runs this
  // table would average together: the sweep matrix shows them point by point.
  starter: (caps) => caps.some((c) => (c.workload_kind === 'fio' || (c.artifact_kinds ?? []).includes('fio-json')) && c.runs <= c.repeats),
});
