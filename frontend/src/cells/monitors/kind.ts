import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { decodeMonitors, defaultMonitorsState, encodeMonitors, type MonitorsState } from './state';

/** The kernel's counters during the runs (iolens-collect --monitors): what moved against the baseline, and over time. */
export const monitorsCell = defineCell<MonitorsState>({
  kind: 'monitors',
  title: 'Monitors',
  description: 'vmstat, meminfo, per-CPU time, XFS/ext4 counters and slab caches during the runs (--monitors), compared',
  defaultState: defaultMonitorsState,
  encode: encodeMonitors,
  decode: decodeMonitors,
  ...lazyCell(() => import('./MonitorsCell').then((m) => m.MonitorsCell)),
  starter: (caps) => caps.some((c) => (c.artifact_kinds ?? []).some((k) => k === 'monitor' || k === 'iostat' || k === 'vmstat')),
});
