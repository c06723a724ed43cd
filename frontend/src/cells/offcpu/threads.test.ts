import { describe, expect, it } from 'vitest';
import type { OffcpuRunInfo } from './queries';
import { threadTable, type ThreadRow } from './threads';

const row = (tid: number, comm: string, intervals: number, blocked_ns: number, run_id = 'r000'): ThreadRow => ({
  run_id, tid, pid: tid, comm, group: comm.startsWith('kworker') ? 'kworker/*' : comm, workload: comm === 'fio',
  intervals, blocked_ns, states: { S: blocked_ns }, max_ns: blocked_ns, top_waker: null,
});
// a busy host: fio's 2 threads, 3 others listed, and 2 more threads the summary's limit left out
const tasks = [row(10, 'fio', 100, 5000), row(11, 'fio', 50, 1000), row(20, 'node', 30, 9000), row(21, 'kworker/0:1', 20, 8000), row(22, 'python3', 10, 700), row(30, 'fio', 1, 1, 'r001')];
const run = { run_id: 'r000', threads: 7, intervals: 100 + 50 + 30 + 20 + 10 + 7, blocked_ns: 5000 + 1000 + 9000 + 8000 + 700 + 600 } as OffcpuRunInfo;

describe('off-CPU threads table', () => {
  it("splits one run's threads into the workload's and the others; the sums add up to the run's, unlisted threads included", () => {
    const t = threadTable(tasks, run);
    expect(t.workload.map((r) => r.tid)).toEqual([10, 11]);
    expect(t.others.map((r) => r.tid)).toEqual([20, 21, 22]);
    expect(t.workloadSum).toEqual({ threads: 2, intervals: 150, blocked_ns: 6000 });
    expect(t.othersSum).toEqual({ threads: 5, intervals: 67, blocked_ns: 18300 });
    expect(t.unlisted).toBe(2);
    for (const k of ['threads', 'intervals', 'blocked_ns'] as const) expect(t.workloadSum[k] + t.othersSum[k]).toBe(t.total[k]);
    expect(t.matched).toBeNull();
  });
  it('a filter keeps the matching rows of both groups (command, group or thread id), the totals stay the run\'s', () => {
    const t = threadTable(tasks, run, ' KWORKER ');
    expect([...t.workload, ...t.others].map((r) => r.tid)).toEqual([21]);
    expect(t.matched).toEqual({ threads: 1, intervals: 20, blocked_ns: 8000 });
    expect(t.total.threads).toBe(7);
    expect(threadTable(tasks, run, '1').workload.map((r) => r.tid)).toEqual([10, 11]);
    expect(threadTable(tasks, run, 'fio').others).toEqual([]);
  });
  it("another run's rows stay out", () => {
    const t = threadTable(tasks, { ...run, run_id: 'r001', threads: 1, intervals: 1, blocked_ns: 1 });
    expect(t.workload.map((r) => r.tid)).toEqual([30]);
    expect(t.othersSum).toEqual({ threads: 0, intervals: 0, blocked_ns: 0 });
  });
});
