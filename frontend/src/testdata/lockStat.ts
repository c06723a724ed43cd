// Hand-written lock_stat API answers for unit tests and screenshots. Shapes follow
// backend/iolens/models/lockstat.py (LockStat*); the values are made up but consistent.
import type { LockStacks } from '../logic/lockStacks';
import type { LockClassStat, LockStatAvailability, LockStatComparison, LockStatPoints, LockStatTop } from '../logic/lockStat';
import { A, B, C } from './fixtures';

export function lockStat(contentions: number, waitTotalNs: number, ops: number | null, runs: string[] = ['r000', 'r001']): LockClassStat {
  const per = runs.map((run, i) => ({ run, contentions: Math.round(contentions / runs.length) + (i === 0 ? contentions % runs.length : 0), wait_total_ns: waitTotalNs / runs.length }));
  return {
    contentions,
    con_bounces: Math.round(contentions * 0.9),
    acquisitions: contentions * 20 + 1000,
    acq_bounces: contentions * 5,
    wait_total_ns: waitTotalNs,
    wait_min_ns: contentions ? 50 : null,
    wait_max_ns: contentions ? waitTotalNs / 10 : null,
    wait_avg_ns: contentions ? waitTotalNs / contentions : null,
    hold_total_ns: 5e6,
    hold_min_ns: 20,
    hold_max_ns: 90_000,
    hold_avg_ns: 5e6 / (contentions * 20 + 1000),
    contentions_per_op: ops ? contentions / ops : null,
    wait_per_op_ns: ops ? waitTotalNs / ops : null,
    cut: false,
    per_run: per,
  };
}

export function available(id: string, ops: number | null, runs = ['r000', 'r001']): LockStatAvailability {
  return { capture: id, available: true, scope: 'runs', runs, paths: runs.map((r) => `runs/${r}/lock_stat.txt`), ops, reason: null, notes: [], warnings: [], debug_locks_off: false };
}

export const NOTE = 'lock_stat: /proc/lock_stat does not exist: this kernel (6.18.44) was built without CONFIG_LOCK_STAT, so no lock_stat in this capture';

export const unavailable = (id: string): LockStatAvailability => ({
  capture: id, available: false, scope: 'none', runs: [], paths: [], ops: null, reason: NOTE, notes: [NOTE], warnings: [], debug_locks_off: false,
});

const ALT = 'lock_stat needs a kernel built with CONFIG_LOCK_STAT=y. On other kernels, `perf lock contention -a -b -- COMMAND` (perf 6.x, BPF; root) measures lock contention by caller.';

const key = (lock_class: string, rw: 'W' | 'R' = 'W', occurrence = 0) => ({ lock_class, occurrence, rw, base_name: lock_class.replace(/(#\d+)?(\/\d+)?$/, ''), subclass: 0 });

// Labels as in fixtures.ts. A: baseline, 20,000 I/Os. B: 40,000 I/Os, the grant head lock doubled per
// I/O, the ilock new, tasklist_lock gone. C: no lock_stat.
export const lockComparison: LockStatComparison = {
  captures: [
    { id: A, label: '6.18-xfs', kernel: '6.18.44', runs: 2, repeats: 2, tags: { fs: 'xfs' } },
    { id: B, label: '6.18-ext4', kernel: '6.18.44', runs: 2, repeats: 2, tags: { fs: 'ext4' } },
    { id: C, label: '6.1-xfs-emulated', kernel: '6.1.0-28-amd64', runs: 2, repeats: 2, tags: { fs: 'xfs' } },
  ],
  baseline: A,
  availability: { [A]: available(A, 20_000), [B]: available(B, 40_000), [C]: unavailable(C) },
  per_op: true,
  sort: 'by the largest change in wait per I/O against the baseline, most first',
  total: 4,
  alternative: ALT,
  rows: [
    {
      ...key('&head->lock'),
      change: 200,
      cells: {
        [A]: { stat: lockStat(400, 4e6, 20_000), status: 'baseline', delta_wait: null, ratio_wait: null, delta_contentions: null, ratio_contentions: null },
        [B]: { stat: lockStat(1600, 16e6, 40_000), status: 'changed', delta_wait: 200, ratio_wait: 2, delta_contentions: 0.02, ratio_contentions: 2 },
      },
    },
    {
      ...key('&xfs_nondir_ilock_class'),
      change: 10,
      cells: {
        [A]: { stat: null, status: 'baseline', delta_wait: null, ratio_wait: null, delta_contentions: null, ratio_contentions: null },
        [B]: { stat: lockStat(50, 4e5, 40_000), status: 'appeared', delta_wait: 10, ratio_wait: null, delta_contentions: 0.00125, ratio_contentions: null },
      },
    },
    {
      ...key('&xfs_nondir_ilock_class', 'R'),
      change: 0.5,
      cells: {
        [A]: { stat: lockStat(3, 1e4, 20_000), status: 'baseline', delta_wait: null, ratio_wait: null, delta_contentions: null, ratio_contentions: null },
        [B]: { stat: lockStat(6, 1e4, 40_000), status: 'changed', delta_wait: 0, ratio_wait: 1, delta_contentions: 0, ratio_contentions: 1 },
      },
    },
    {
      ...key('tasklist_lock', 'R'),
      change: 0.5,
      cells: {
        [A]: { stat: lockStat(10, 1e4, 20_000), status: 'baseline', delta_wait: null, ratio_wait: null, delta_contentions: null, ratio_contentions: null },
        [B]: { stat: null, status: 'vanished', delta_wait: -0.5, ratio_wait: 0, delta_contentions: -0.0005, ratio_contentions: 0 },
      },
    },
  ],
};

export const lockTop: LockStatTop = {
  capture: lockComparison.captures[0]!,
  availability: available(A, 20_000),
  by: 'wait_total',
  total: 3,
  contended: 2,
  alternative: ALT,
  rows: [
    { ...key('&head->lock'), stat: lockStat(400, 4e6, 20_000), points: 3 },
    { ...key('tasklist_lock', 'R'), stat: lockStat(10, 1e4, 20_000), points: 1 },
    { ...key('(work_completion)(&(&sbi->s_err_repor', 'W', 1), stat: lockStat(0, 0, 20_000), points: 0 },
  ],
};

export const lockPoints: LockStatPoints = {
  capture: A,
  lock_class: '&head->lock',
  occurrence: 0,
  points: [
    { kind: 'contention', symbol: 'xlog_grant_head_check+0x7e/0x2c0 [xfs]', function: 'xlog_grant_head_check', module: 'xfs', count: 360, runs: ['r000', 'r001'], addresses: ['000000004f3e2d1c'] },
    { kind: 'contention', symbol: '0xffffffffc0a1b2c3', function: null, module: null, count: 40, runs: ['r000'], addresses: ['ffffffffc0a1b2c3'] },
    { kind: 'contending', symbol: 'xfs_log_ticket_ungrant+0x4d/0x110 [xfs]', function: 'xfs_log_ticket_ungrant', module: 'xfs', count: 400, runs: ['r000', 'r001'], addresses: ['000000005a6b7c8d', '00000000aa11bb22'] },
  ],
};

// &head->lock of A found in the stacks of B and C (A has lock_stat and no stacks; B and C stacks
// only). Weights are ns of cpu-clock: B 10 s, 2,000 samples; C 5 s, 1,000 samples.
const GRANT_B = 'fio;entry_SYSCALL_64_after_hwframe;do_syscall_64;xfs_file_write_iter;xfs_log_reserve;xlog_grant_head_check;_raw_spin_lock;native_queued_spin_lock_slowpath';
export const lockStacks: LockStacks = {
  capture: A,
  lock_class: '&head->lock',
  occurrence: 0,
  captures: [
    { id: A, label: '6.18-xfs', kernel: '6.18.44', lock_stat: true, stacks: false, event: null, weight_unit: 'count', total_weight: 0, total_samples: 0, runs: [], reason: 'no perf call stacks: recorded without `iolens-collect run --stacks`' },
    { id: B, label: '6.18-ext4', kernel: '6.18.44', lock_stat: false, stacks: true, event: 'cpu-clock', weight_unit: 'ns', total_weight: 10e9, total_samples: 2000, runs: ['r000', 'r001'], reason: null },
    { id: C, label: '6.1-xfs-emulated', kernel: '6.1.0-28-amd64', lock_stat: false, stacks: true, event: 'cpu-clock', weight_unit: 'ns', total_weight: 5e9, total_samples: 1000, runs: ['r000'], reason: null },
  ],
  symbols: [
    {
      name: 'xlog_grant_head_check',
      found: true,
      sources: [{ capture: A, kind: 'contention', symbol: 'xlog_grant_head_check+0x7e/0x2c0 [xfs]', count: 360 }],
      stacks: [
        {
          capture: B, samples: 120, weight: 600e6, share_pct: 6, slow_samples: 90, slow_weight: 450e6, slow_pct: 75, frames: ['xlog_grant_head_check'],
          top: [
            { folded: GRANT_B, weight: 450e6, samples: 90, slowpath: true },
            { folded: 'fio;entry_SYSCALL_64_after_hwframe;do_syscall_64;xfs_file_write_iter;xfs_log_reserve;xlog_grant_head_check', weight: 150e6, samples: 30, slowpath: false },
          ],
        },
        { capture: C, samples: 4, weight: 20e6, share_pct: 0.4, slow_samples: 0, slow_weight: 0, slow_pct: 0, frames: ['xlog_grant_head_check.isra.0'], top: [{ folded: 'fio;xfs_log_reserve;xlog_grant_head_check.isra.0', weight: 20e6, samples: 4, slowpath: false }] },
      ],
    },
    {
      name: 'xfs_log_ticket_ungrant',
      found: false,
      sources: [{ capture: A, kind: 'contending', symbol: 'xfs_log_ticket_ungrant+0x4d/0x110 [xfs]', count: 400 }],
      stacks: [
        { capture: B, samples: 0, weight: 0, share_pct: 0, slow_samples: 0, slow_weight: 0, slow_pct: null, frames: [], top: [] },
        { capture: C, samples: 0, weight: 0, share_pct: 0, slow_samples: 0, slow_weight: 0, slow_pct: null, frames: [], top: [] },
      ],
    },
  ],
  absent: ['xfs_log_ticket_ungrant'],
  slowpath: ['native_queued_spin_lock_slowpath', '__mutex_lock*', 'rwsem_down_*_slowpath', 'osq_lock'],
  notes: [
    "Not in any capture's stacks: xfs_log_ticket_ungrant. A call site appears only when a sample hit it or a function it called (inlined functions have no frame of their own).",
    '1 call site printed without a symbol (an address only) cannot be matched.',
  ],
  elapsed_ms: 12.5,
};
