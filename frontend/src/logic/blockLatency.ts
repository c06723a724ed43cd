// The block cell's latency measures: their ids are in the cell's URL state (cells/block/state.ts),
// which the page's first script reads, so they are kept apart from blockSeries.ts and its d3 imports.
export const LATENCY_MEASURES = [
  { id: 'mean', field: 'mean_ns', label: 'mean', dash: '8 2 2 2' },
  { id: 'p50', field: 'p50_ns', label: 'p50', dash: '' },
  { id: 'p90', field: 'p90_ns', label: 'p90', dash: '6 3' },
  { id: 'p99', field: 'p99_ns', label: 'p99', dash: '3 2' },
  { id: 'p999', field: 'p99_9_ns', label: 'p99.9', dash: '1 2' },
  { id: 'max', field: 'max_ns', label: 'max', dash: '1 4' },
] as const;
export type LatencyMeasure = (typeof LATENCY_MEASURES)[number]['id'];
export const LATENCY_IDS: readonly LatencyMeasure[] = LATENCY_MEASURES.map((m) => m.id);
