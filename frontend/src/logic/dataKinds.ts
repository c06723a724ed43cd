// What kind of data a view needs, which artifacts of a capture hold it and the collector flag that
// records it (collectors/iolens_collect: `iolens-collect run --help`), and, for a view that has
// none, the facts its empty state says (components/EmptyState.tsx): what is missing, in which
// captures, and which captures have it. Pure; tests in dataKinds.test.ts.
import type { CapturePublic } from '../api/client';

export type DataKey = 'stacks' | 'offcpu' | 'sched' | 'block' | 'lockstat' | 'fiologs' | 'events' | 'monitors' | 'sweep';

export interface DataKind {
  /** What the data is called in a sentence: 'No {noun} in …', 'a capture with {noun}'. */
  noun: string;
  /** Artifact kinds of a capture (CapturePublic.artifact_kinds) that hold it: any one is enough. */
  artifacts: readonly string[];
  /** The collector's flag that records it, as `iolens-collect run --help` spells it. */
  flag: string;
  /** The command line to show (the flag in place). */
  command: string;
  /** What the flag makes the collector do, in a few words. */
  what: string;
}

export const DATA_KINDS: Readonly<Record<DataKey, DataKind>> = {
  // off-CPU stacks are stacks too: the flame cell draws them (events offcpu and wakeup)
  stacks: { noun: 'call stacks', artifacts: ['perf-script', 'perf-offcpu'], flag: '--stacks', command: 'iolens-collect run --stacks …', what: 'perf record -a -g around each repeat' },
  offcpu: { noun: 'off-CPU stacks', artifacts: ['perf-offcpu'], flag: '--offcpu', command: 'iolens-collect run --offcpu …', what: 'perf record -a -g of sched_switch and sched_waking: where each thread blocked, for how long, and what woke it' },
  sched: { noun: 'scheduler traces', artifacts: ['perf-sched'], flag: '--sched', command: 'iolens-collect run --sched …', what: 'perf record of the sched tracepoints on all CPUs and perf stat -A -I 1000 of the same' },
  block: { noun: 'block layer events', artifacts: ['blkparse', 'perf-block'], flag: '--block DEV', command: 'iolens-collect run --block DEV …', what: 'blktrace, or perf of block:block_rq_*, for the device DEV' },
  lockstat: { noun: 'lock_stat', artifacts: ['lock-stat'], flag: '--lock-stat', command: 'iolens-collect run --lock-stat …', what: 'the kernel’s /proc/lock_stat around each repeat; needs root and CONFIG_LOCK_STAT' },
  fiologs: { noun: 'fio logs over time', artifacts: ['fio-log'], flag: '--fio-logs MSEC', command: 'iolens-collect run --fio-logs 500 …', what: 'fio’s bandwidth, IOPS and latency logs, averaged over MSEC ms' },
  events: { noun: 'traced events', artifacts: ['perf-trace'], flag: '--trace SYS:EVENT', command: "iolens-collect run --trace xfs:xfs_ail_insert --trace 'writeback:*' …", what: 'perf record of any tracepoint, every field typed' },
  monitors: { noun: 'monitors', artifacts: ['monitor'], flag: '--monitors', command: 'iolens-collect run --monitors …', what: 'samples of /proc/vmstat, meminfo, per-CPU time, XFS/ext4 counters and slab caches during each repeat' },
  sweep: { noun: 'swept parameters', artifacts: ['sweep-plan'], flag: 'sweep PLAN', command: 'iolens-collect sweep PLAN -o NAME.iolens.tar.gz', what: 'the fio job over a matrix of parameters from a plan file' },
};

type Caps = Pick<CapturePublic, 'id' | 'artifact_kinds'>;

/** Whether a capture holds the data (any of its artifact kinds). */
export function hasData(c: Pick<CapturePublic, 'artifact_kinds'>, key: DataKey): boolean {
  const kinds = DATA_KINDS[key].artifacts;
  return (c.artifact_kinds ?? []).some((k) => kinds.includes(k));
}

export interface EmptyFacts {
  /** 'No call stacks in these 2 captures' / 'No call stacks in 6.12-plain'. */
  title: string;
  /** The notebook's captures the view wanted and that lack the data, in the notebook's order. */
  missing: string[];
  /** The notebook's captures that have it (the view can show one of them instead). */
  inNotebook: string[];
  /** Captures of the library, not in the notebook, that have it: newest first, at most `max`. */
  elsewhere: CapturePublic[];
  /** How many more of the library's have it than `elsewhere` lists. */
  more: number;
}

/**
 * The facts of a view's empty state. `wanted`: the captures the view would show (the notebook's
 * captures, or the one it was asked for); `notebook`: all of the notebook's; `library`: the server's
 * captures (undefined while they load: nothing is named then). A capture the library does not
 * know counts as missing (it has nothing).
 */
/** The data keys of a view that can draw any of several kinds (the timeline: scheduler, block, fio
 *  logs or stacks), as a list. */
export function dataKeys(key: DataKey | readonly DataKey[]): readonly DataKey[] {
  return typeof key === 'string' ? [key] : key;
}

/** Several kinds' nouns in a sentence: 'scheduler traces, block layer events or call stacks'. */
export function kindsNoun(key: DataKey | readonly DataKey[], join = 'or'): string {
  const nouns = dataKeys(key).map((k) => DATA_KINDS[k].noun);
  return nouns.length < 2 ? (nouns[0] ?? '') : `${nouns.slice(0, -1).join(', ')} ${join} ${nouns[nouns.length - 1]}`;
}

export function emptyFacts(key: DataKey | readonly DataKey[], wanted: readonly string[], notebook: readonly string[], library: readonly CapturePublic[] | undefined, labelOf: (id: string) => string, max = 6): EmptyFacts {
  const keys = dataKeys(key);
  const byId = new Map<string, Caps>((library ?? []).map((c) => [c.id, c]));
  const hasAny = (c: Caps) => keys.some((k) => hasData(c, k));
  const has = (id: string) => {
    const c = byId.get(id);
    return c ? hasAny(c) : false;
  };
  const missing = wanted.filter((id) => !has(id));
  const inNotebook = notebook.filter(has);
  const others = (library ?? [])
    .filter((c) => !notebook.includes(c.id) && hasAny(c))
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.label.localeCompare(b.label));
  const where = missing.length === 1 ? labelOf(missing[0]!) : missing.length === 2 ? 'these 2 captures' : missing.length ? `these ${missing.length} captures` : 'these captures';
  return { title: `No ${kindsNoun(keys)} in ${where}`, missing, inNotebook, elsewhere: others.slice(0, max), more: Math.max(0, others.length - max) };
}
