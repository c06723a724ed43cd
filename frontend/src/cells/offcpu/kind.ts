import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { decodeOffcpu, defaultOffcpuState, encodeOffcpu, type OffcpuState } from './state';

/** Off-CPU and wakeup stacks (iolens-collect --offcpu): threads by time off the CPU, and a ping-pong pair's both sides. */
export const offcpuCell = defineCell<OffcpuState>({
  kind: 'offcpu',
  title: 'Off-CPU',
  description: 'off-CPU stacks (--offcpu): threads by time blocked, and for a ping-pong pair where each side blocked and what woke it',
  defaultState: defaultOffcpuState,
  encode: encodeOffcpu,
  decode: decodeOffcpu,
  ...lazyCell(() => import('./OffcpuCell').then((m) => m.OffcpuCell)),
  starter: (caps) => caps.some((c) => (c.artifact_kinds ?? []).includes('perf-offcpu')),
});
