// Small pieces shared by the scheduler cell's views: capture headings, task names, the loss
// warning, the empty state, inline bars.
import type { ReactNode } from 'react';
import { EmptyState, MissingLine } from '../../components/EmptyState';
import type { NotebookContext } from '../types';
import { SCHED_ROWS } from './queries';
import { CAPTURE_COMMANDS, fmtShare, type LossNote, type SchedColumn, type SchedTask } from '../../logic/sched';

export function CapName({ c }: { c: Pick<SchedColumn, 'label' | 'color' | 'isBaseline' | 'id'> }) {
  return (
    <span className="cap-name" title={`${c.label} (${c.id})`}>
      <span className="swatch" style={{ background: c.color }} />
      {c.label}
      {c.isBaseline && <span className="base-badge">baseline</span>}
    </span>
  );
}

/** A task: its name, its pid muted, 'workload' marked; a group (kworker/*) in italics. */
export function TaskName({ t }: { t: SchedTask }) {
  return (
    <span className={`task${t.workload ? ' task-workload' : ''}${t.pid === null ? ' task-group' : ''}`} title={t.pid === null ? `task group ${t.group}` : `${t.comm}, thread ${t.pid}${t.group !== t.comm ? `, group ${t.group}` : ''}${t.workload ? ' (the workload)' : ''}`}>
      <span className="task-comm">{t.comm}</span>
      {t.pid !== null && t.pid !== 0 && <span className="task-pid">{t.pid}</span>}
    </span>
  );
}

/** The run a row comes from, marked when that run lost events. */
export function RunCell({ run, lost }: { run: string; lost: boolean }) {
  return (
    <td className="run-col mono" title={lost ? `run ${run} lost scheduler events: its figures undercount (see the warning above)` : `run ${run}`}>
      {run}
      {lost && <span className="warn-mark">⚠</span>}
    </td>
  );
}

export function CpuCell({ cpu, workload }: { cpu: number; workload: boolean }) {
  return (
    <td className={`num cpu-col${workload ? ' cpu-workload' : ''}`} title={workload ? `CPU ${cpu}: a CPU the workload was pinned to` : `CPU ${cpu}`}>
      {cpu}
    </td>
  );
}

/** Above a view built from runs that lost events: which, and what the checks found. */
export function LossBanner({ notes }: { notes: readonly LossNote[] }) {
  if (!notes.length) return null;
  return (
    <div className="sched-lost" role="alert" data-testid="sched-lost">
      <strong>⚠ Events lost</strong>: perf record dropped scheduler events in{' '}
      {notes.map((n, i) => (
        <span key={n.captureId}>
          {i > 0 && '; '}
          <span className="swatch" style={{ background: n.color }} />
          {n.label}
          {n.runs.length > 0 && <span className="muted"> (run{n.runs.length > 1 ? 's' : ''} {n.runs.join(', ')})</span>}
        </span>
      ))}
      . Counts and rates from those runs are too low, and delays may be missing; perf stat's counted figures are not affected.
      <ul>
        {notes.flatMap((n) =>
          n.warnings.map((w, i) => (
            <li key={`${n.captureId}${i}`}>
              <span className="swatch" style={{ background: n.color }} />
              {w}
            </li>
          )),
        )}
      </ul>
    </div>
  );
}

/** Captures without a scheduler trace, and how to record one. */
/** `ctx`: the notebook, for the empty state of `all` (the captures' colours, links to add one). */
export function NoTrace({ columns, all, ctx }: { columns: readonly SchedColumn[]; all: boolean; ctx?: NotebookContext }) {
  const missing = columns.filter((c) => !c.hasTrace);
  if (!missing.length) return null;
  if (!all) {
    return <MissingLine data="sched" testId="sched-missing" missing={missing.map((c) => ({ label: c.label, color: c.color }))} consequence="compared all the same, without their cells" />;
  }
  // a warning of the server's other than 'no perf-sched artifact' (which the default says: recorded without --sched)
  const why = (c: SchedColumn) => c.status?.warnings[0]?.replace(/^capture \S+ \([^)]*\) /, '');
  const reasons = Object.fromEntries(
    missing.flatMap((c) => {
      const w = why(c);
      return w && !w.includes('no perf-sched artifact') ? [[c.id, w]] : [];
    }),
  );
  return (
    <EmptyState
      data="sched"
      testId="sched-empty"
      captures={ctx?.captures ?? columns.map((c) => c.id)}
      baseline={ctx?.baseline ?? columns.find((c) => c.isBaseline)?.id ?? ''}
      wanted={missing.map((c) => c.id)}
      reasons={reasons}
      withCapture={ctx?.withCapture}
    >
      <p>
        The collector runs <code>perf record</code> of the sched tracepoints on all CPUs and <code>perf stat -A -I 1000</code> of the same events during each repeat, and keeps
        both in the bundle. Pin the workload with <code>--cpus LIST</code> so that these views know its CPUs, and add <code>--cgroup NAME --cpu-weight N</code> to run it in a
        cgroup of that weight (as root). Two captures of issue 4's case, outside and inside a cgroup of weight 1000:
      </p>
      <pre>{CAPTURE_COMMANDS}</pre>
      <p>
        Then upload both bundles and compare them: this cell shows context switches per CPU over time, the task pairs that ping-pong, wakeup-to-run delays and run time per task. See
        docs/sched.md.
      </p>
    </EmptyState>
  );
}

/** Involuntary (preempted) vs voluntary switches as a two-part bar on a shared scale. */
export function InvVolBar({ inv, vol, max, title }: { inv: number; vol: number; max: number; title: string }) {
  const w = 90;
  const f = max > 0 ? w / max : 0;
  return (
    <span className="iv-bar" style={{ width: w }} title={title}>
      <span className="iv-inv" style={{ width: Math.max(inv > 0 ? 1 : 0, inv * f) }} />
      <span className="iv-vol" style={{ width: Math.max(vol > 0 ? 1 : 0, vol * f) }} />
    </span>
  );
}

/** A share (0..1) as a bar behind its number. */
export function ShareBar({ share, children, title, strong = false }: { share: number; children: ReactNode; title: string; strong?: boolean }) {
  return (
    <span className={`share-bar${strong ? ' strong' : ''}`} title={title}>
      <span className="share-fill" style={{ width: `${Math.max(0, Math.min(1, share)) * 100}%` }} />
      <span className="share-text">{children}</span>
    </span>
  );
}

export function ShowMore({ shown, total, onMore }: { shown: number; total: number; onMore: () => void }) {
  if (shown >= total) return null;
  return (
    <button type="button" className="link-button show-more" onClick={onMore}>
      Show {Math.min(total - shown, 50)} more of {total === SCHED_ROWS ? `the first ${total}` : total}
    </button>
  );
}

export const pct = fmtShare;
