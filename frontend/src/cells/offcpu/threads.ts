// The off-CPU cell's threads table: one run's threads split into the workload's and the others
// (other processes of a busy host, folded behind one row), a filter, and totals that add up to the
// run's (its row counts every thread, listed or not). Pure; tests in threads.test.ts.
import type { OffcpuRunInfo, OffcpuSummary } from './queries';

export type ThreadRow = OffcpuSummary['tasks'][number];

export interface Sum {
  threads: number;
  intervals: number;
  blocked_ns: number;
}

export interface ThreadTable {
  /** the workload's threads (fio's), most time off the CPU first */
  workload: ThreadRow[];
  /** the other threads listed, most time off the CPU first */
  others: ThreadRow[];
  /** their sums: workload + others = total */
  workloadSum: Sum;
  /** every thread not the workload's: the listed others and those the summary did not list */
  othersSum: Sum;
  /** the run's totals over all its threads (OffcpuRun) */
  total: Sum;
  /** threads of the run the summary did not list (its per-run limit) */
  unlisted: number;
  /** with a filter: the threads listed that match, and their sum */
  matched: Sum | null;
}

const sumOf = (rows: ThreadRow[]): Sum => ({
  threads: rows.length,
  intervals: rows.reduce((a, t) => a + t.intervals, 0),
  blocked_ns: rows.reduce((a, t) => a + t.blocked_ns, 0),
});

/** A thread matches a filter when its command, group or thread id contains it (case ignored). */
export function matches(t: ThreadRow, filter: string): boolean {
  const f = filter.trim().toLowerCase();
  return !f || t.comm.toLowerCase().includes(f) || t.group.toLowerCase().includes(f) || String(t.tid).includes(f);
}

export function threadTable(tasks: ThreadRow[], run: OffcpuRunInfo, filter = ''): ThreadTable {
  const mine = tasks.filter((t) => t.run_id === run.run_id);
  const workloadAll = mine.filter((t) => t.workload);
  const total: Sum = { threads: run.threads, intervals: run.intervals, blocked_ns: run.blocked_ns };
  const workloadSum = sumOf(workloadAll);
  const othersSum: Sum = {
    threads: total.threads - workloadSum.threads,
    intervals: total.intervals - workloadSum.intervals,
    blocked_ns: total.blocked_ns - workloadSum.blocked_ns,
  };
  const shown = filter.trim() ? mine.filter((t) => matches(t, filter)) : mine;
  return {
    workload: shown.filter((t) => t.workload),
    others: shown.filter((t) => !t.workload),
    workloadSum,
    othersSum,
    total,
    unlisted: Math.max(0, total.threads - mine.length),
    matched: filter.trim() ? sumOf(shown) : null,
  };
}
