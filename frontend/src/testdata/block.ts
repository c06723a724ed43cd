// Block view answers for tests, shaped as GET /api/block/... returns them (backend/iolens/views/
// block.py), small and written by hand: two captures, the second with two runs, one of which lost
// events.
import type { BlockIops, BlockLatency, BlockLatencyHistogram, BlockQueueDepth, BlockRun, BlockSizes } from '../logic/blockSeries';

export const CAPS = ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb'];

const info = (capture_id: string, run_id: string, label: string, lost = false) => ({
  capture_id,
  run_id,
  label,
  device: '7,1',
  events_lost: lost,
  warnings: lost ? ['perf stat counted 2077 block_rq_complete, the recording has 1200 (42% lost)', 'unmatched block events: complete without issue 3'] : ['unmatched block events: issue without complete 1'],
  source: 'tiles 1000000 ns',
});

const grid = { from_ns: 0, to_ns: 5_000_000, interval_ns: 1_000_000, buckets: 5 };
const t_ns = [0, 1_000_000, 2_000_000, 3_000_000, 4_000_000];

export const depth: BlockQueueDepth = {
  grid,
  t_ns,
  series: [
    { ...info(CAPS[0]!, 'r000', 'qd1'), depth: [0, 0.5, 0.9, 0.8, 0] },
    { ...info(CAPS[1]!, 'r000', 'qd32 / r000'), depth: [2, 31.5, 30, 12, 1] },
    { ...info(CAPS[1]!, 'r001', 'qd32 / r001', true), depth: [1, 20, 25, 18, 0] },
  ],
};

export const iops: BlockIops = {
  grid,
  t_ns,
  series: [
    {
      ...info(CAPS[0]!, 'r000', 'qd1'),
      // fio's iops log on the run's clock: it covers [1 ms, 4 ms), reads only
      fio_iops: {
        aligned: true,
        note: null,
        logs: [{ path: 'runs/r000/logs/0-randread_iops.1.log', job: 'randread', job_index: 0, clone: 1, avg_msec: 100, from_ns: 1_000_000, to_ns: 4_000_000 }],
        ddirs: [{ ddir: 'read', iops: [null, 49_000, 91_000, 79_000, null], mean_iops: 73_000 }],
      },
      ops: [{ op: 'read', iops: [0, 50_000, 90_000, 80_000, 0], bytes_per_s: [0, 50_000 * 4096, 90_000 * 4096, 80_000 * 4096, 0] }],
    },
    {
      ...info(CAPS[1]!, 'r000', 'qd32 / r000'),
      fio_iops: null,
      ops: [
        { op: 'read', iops: [1000, 200_000, 250_000, 240_000, 3000], bytes_per_s: [1000 * 4096, 200_000 * 4096, 250_000 * 4096, 240_000 * 4096, 3000 * 4096] },
        { op: 'flush', iops: [0, 0, 1000, 0, 0], bytes_per_s: [0, 0, 0, 0, 0] },
      ],
    },
    {
      ...info(CAPS[1]!, 'r001', 'qd32 / r001', true),
      // an old capture's log, zero-based: not aligned, never drawn
      fio_iops: {
        aligned: false,
        note: "fio's IOPS log of this run has no clock (its times count from each job's start, which fio does not record): not aligned with the block events, so not drawn",
        logs: [{ path: 'runs/r001/logs/0-w_iops.1.log', job: 'w', job_index: 0, clone: 1, avg_msec: 500, from_ns: null, to_ns: null }],
        ddirs: [],
      },
      ops: [{ op: 'write', iops: [0, 100_000, 120_000, 110_000, 0], bytes_per_s: [0, 1e8, 1.2e8, 1.1e8, 0] }],
    },
  ],
};

export const latency: BlockLatency = {
  grid,
  t_ns,
  op: null,
  series: [
    { ...info(CAPS[0]!, 'r000', 'qd1'), count: [0, 50, 90, 80, 0], mean_ns: [null, 5000, 5200, 5100, null], max_ns: [null, 40_000, 90_000, 30_000, null], p50_ns: [null, 4300, 4300, 4700, null], p90_ns: [null, 6000, 6000, 6000, null], p99_ns: [null, 18_000, 19_000, 17_000, null], p99_9_ns: [null, 30_000, 40_000, 25_000, null] },
    { ...info(CAPS[1]!, 'r000', 'qd32 / r000'), count: [1, 200, 250, 240, 3], mean_ns: [60_000, 62_000, 61_000, 64_000, 70_000], max_ns: [60_000, 900_000, 2e6, 1e6, 80_000], p50_ns: [60_000, 62_000, 62_000, 62_000, 70_000], p90_ns: [60_000, 90_000, 90_000, 95_000, 70_000], p99_ns: [60_000, 140_000, 150_000, 145_000, 70_000], p99_9_ns: [60_000, 500_000, 900_000, 600_000, 70_000] },
  ],
};

const bin = (b: number, count: number) => ({ bin: b, low_ns: 2 ** (b / 8), high_ns: 2 ** ((b + 1) / 8), count });

export const histogram: BlockLatencyHistogram = {
  grid: { from_ns: 0, to_ns: 5_000_000, interval_ns: 50_000, buckets: 100 },
  bins_per_octave: 8,
  series: [
    { ...info(CAPS[0]!, 'r000', 'qd1'), ops: [{ op: 'read', bins: [bin(96, 100), bin(97, 60), bin(98, 30), bin(110, 10)] }] },
    {
      ...info(CAPS[1]!, 'r000', 'qd32 / r000'),
      ops: [
        { op: 'read', bins: [bin(126, 50), bin(127, 200), bin(128, 120)] },
        { op: 'flush', bins: [bin(127, 10), bin(150, 1)] },
      ],
    },
  ],
};

export const sizes: BlockSizes = {
  grid: { from_ns: 0, to_ns: 5_000_000, interval_ns: 50_000, buckets: 100 },
  series: [
    { ...info(CAPS[0]!, 'r000', 'qd1'), ops: [{ op: 'read', sizes: [{ bytes: 4096, count: 220 }, { bytes: 8192, count: 1 }] }] },
    {
      ...info(CAPS[1]!, 'r000', 'qd32 / r000'),
      ops: [
        { op: 'read', sizes: [{ bytes: 4096, count: 690 }] },
        { op: 'write', sizes: [{ bytes: 524288, count: 89 }, { bytes: 528384, count: 3 }, { bytes: 0, count: 2 }] },
        { op: 'flush', sizes: [{ bytes: 0, count: 3 }] },
      ],
    },
  ],
};

export const runs: BlockRun[] = [
  { capture_id: CAPS[0]!, run_id: 'r000', label: 'qd1', kind: 'perf-block', path: 'runs/r000/block.script.gz', first_ns: 0, last_ns: 3_500_000, events: 440, ios: 220, matched: 219, issue_without_complete: 1, complete_without_issue: 0, issue_duplicate: 0, insert_without_issue: 0, partial_complete: 0, requeues: 0, tool_lost: 0, counted: null, actions: { issue: 220, complete: 219 }, main_device: '7,1', devices: [{ dev: '7,1', ios: 220 }], events_lost: false, warnings: [] },
  { capture_id: CAPS[1]!, run_id: 'r000', label: 'qd32', kind: 'perf-block', path: 'runs/r000/block.script.gz', first_ns: 0, last_ns: 4_999_999, events: 1400, ios: 700, matched: 700, issue_without_complete: 0, complete_without_issue: 0, issue_duplicate: 0, insert_without_issue: 0, partial_complete: 0, requeues: 0, tool_lost: 0, counted: null, actions: {}, main_device: '7,1', devices: [{ dev: '7,1', ios: 700 }], events_lost: false, warnings: [] },
  { capture_id: CAPS[1]!, run_id: 'r001', label: 'qd32', kind: 'perf-block', path: 'runs/r001/block.script.gz', first_ns: 0, last_ns: 4_999_999, events: 1400, ios: 700, matched: 700, issue_without_complete: 0, complete_without_issue: 0, issue_duplicate: 0, insert_without_issue: 0, partial_complete: 0, requeues: 0, tool_lost: 0, counted: null, actions: {}, main_device: '7,1', devices: [{ dev: '7,1', ios: 700 }, { dev: '8,0', ios: 3 }], events_lost: true, warnings: [] },
];
