import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { decodeBlock, defaultBlockState, encodeBlock, type BlockState } from './state';

/** Artifact kinds that carry block layer events (docs/block.md "Inputs"). */
export const BLOCK_ARTIFACTS = ['blkparse', 'perf-block'];

/** Block layer over time: device queue depth, IOPS, throughput, latency, sizes, sectors; zoomable. */
export const blockCell = defineCell<BlockState>({
  kind: 'block',
  title: 'Block layer',
  description: 'device queue depth, IOPS, throughput and latency over time, overlaid per capture; zoom by brushing',
  defaultState: defaultBlockState,
  encode: encodeBlock,
  decode: decodeBlock,
  ...lazyCell(() => import('./BlockCell').then((m) => m.BlockCell)),
  starter: (caps) => caps.some((c) => (c.artifact_kinds ?? []).some((k) => BLOCK_ARTIFACTS.includes(k))),
});
