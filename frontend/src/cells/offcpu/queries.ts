// Typed requests of the off-CPU cell (types generated from the backend's OpenAPI schema).
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { useQuery } from '../../api/useQuery';

export type OffcpuSummary = components['schemas']['OffcpuSummary'];
export type OffcpuPair = components['schemas']['OffcpuPair'];
export type OffcpuSide = components['schemas']['OffcpuSide'];
export type OffcpuRunInfo = components['schemas']['OffcpuRun'];

export function useOffcpuSummary(cap: string | null) {
  return useQuery(cap === null ? null : `offcpu:${cap}`, () =>
    unwrap(api.GET('/api/captures/{capture_id}/offcpu', { params: { path: { capture_id: cap! }, query: { limit: 200 } } })),
  );
}

export function useOffcpuPair(cap: string | null, run: string | null, a: string | null, b: string | null) {
  const ready = cap !== null && run !== null && a !== null && b !== null;
  return useQuery(ready ? `offcpu-pair:${cap}|${run}|${a}|${b}` : null, () =>
    unwrap(api.GET('/api/captures/{capture_id}/offcpu/pair', { params: { path: { capture_id: cap! }, query: { run: run!, a: a!, b: b! } } })),
  );
}
