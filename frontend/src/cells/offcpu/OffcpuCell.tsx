// The off-CPU cell: for one capture and run with --offcpu, what was recorded and weighted (the ends,
// lost events), the threads by time off the CPU, and a pair of tasks side by side: where each
// blocked (weighted by time off the CPU) and the stacks of the wakeups aimed at it.
import { useMemo, useState } from 'react';
import { useCaptureList } from '../../api/queries';
import { frameFills } from '../../charts/flameCanvas';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import { layoutTree, type FlameLayout } from '../../logic/flame';
import { fmtInt, fmtPct, pctOf } from '../../logic/flameFormat';
import { formatValue } from '../../logic/format';
import { FlameChart } from '../flame/FlameChart';
import { defaultFlameState } from '../flame/state';
import type { CellProps } from '../types';
import { useOffcpuPair, useOffcpuSummary, type OffcpuRunInfo, type OffcpuSide, type OffcpuSummary } from './queries';
import type { OffcpuState } from './state';
import { threadTable, type ThreadRow } from './threads';
import './offcpu.css';

const ms = (ns: number) => formatValue(ns, 'ns');
const STATE_WORDS: Record<string, string> = { S: 'sleeping', D: 'uninterruptible', R: 'preempted', 'R+': 'preempted', I: 'idle kthread' };

export function OffcpuCell({ ctx, state, setState, openCell }: CellProps<OffcpuState>) {
  const list = useCaptureList();
  const byId = useMemo(() => new Map((list.data ?? []).map((c) => [c.id, c])), [list.data]);
  const has = (id: string) => (byId.get(id)?.artifact_kinds ?? []).includes('perf-offcpu');
  const withStacks = ctx.captures.filter(has);
  const cap = state.cap ?? withStacks[0] ?? (list.data ? null : ctx.captures[0] ?? null);
  const q = useOffcpuSummary(cap);
  const set = (p: Partial<OffcpuState>) => setState({ ...state, ...p });
  if (list.data && (cap === null || !has(cap))) {
    // none has them, or the link names one that has not (cap=)
    return (
      <EmptyState
        data="offcpu"
        testId="offcpu-empty"
        captures={ctx.captures}
        baseline={ctx.baseline}
        wanted={cap === null ? ctx.captures : [cap]}
        onPick={(id) => setState({ ...state, cap: id, run: null, a: null, b: null })}
        withCapture={ctx.withCapture}
      />
    );
  }
  if (q.error) return <ErrorBox error={q.error} title="off-CPU stacks" />;
  if (!q.data || cap === null) return <p className="muted">Loading off-CPU stacks…</p>;
  const data = q.data;
  // an r= the capture does not have: its first run is shown, and the cell says so (as the exports do)
  const runMissing = state.run !== null && !data.runs.some((r) => r.run_id === state.run);
  const info = data.runs.find((r) => r.run_id === state.run) ?? data.runs[0] ?? null;
  const run = info?.run_id ?? null;
  return (
    <div className="offcpu-cell" data-testid="offcpu-cell">
      <div className="cell-toolbar">
        {ctx.captures.length > 1 && (
          <label className="check-label opt">
            Capture
            <select value={cap} onChange={(e) => setState({ ...state, cap: e.target.value, run: null })} aria-label="Capture">
              {ctx.captures.map((id) => (
                <option key={id} value={id} disabled={list.data !== undefined && !has(id)}>
                  {byId.get(id)?.label ?? id}
                  {list.data !== undefined && !has(id) ? ' (no --offcpu)' : ''}
                </option>
              ))}
            </select>
          </label>
        )}
        {data.runs.length > 1 && (
          <label className="check-label opt">
            Run
            <select value={run ?? ''} onChange={(e) => set({ run: e.target.value })} aria-label="Run">
              {data.runs.map((r) => (
                <option key={r.run_id} value={r.run_id}>
                  {r.run_id}
                </option>
              ))}
            </select>
          </label>
        )}
        {state.a !== null && (
          <>
            <button type="button" className="toggle" onClick={() => set({ a: null, b: null })}>
              ← threads
            </button>
            <button type="button" className="toggle" title="swap the two sides" onClick={() => set({ a: state.b, b: state.a })}>
              ⇄ swap
            </button>
            <button type="button" className={`toggle${state.mode === 'icicle' ? ' on' : ''}`} aria-pressed={state.mode === 'icicle'} onClick={() => set({ mode: state.mode === 'icicle' ? 'flame' : 'icicle' })}>
              icicle
            </button>
          </>
        )}
      </div>
      {runMissing && (
        <p className="offcpu-missing-run" data-testid="offcpu-missing-run">
          r={state.run}: {data.capture.label} has no off-CPU stacks in run {state.run} (runs with them: {data.runs.map((r) => r.run_id).join(', ') || 'none'})
          {data.runs[0] ? `; showing ${data.runs[0].run_id}` : ''}.
        </p>
      )}
      {info && <RunLine r={info} label={data.capture.label} />}
      {state.a !== null && state.b !== null && run !== null ? (
        <PairView cap={cap} run={run} a={state.a} b={state.b} icicle={state.mode === 'icicle'} />
      ) : (
        <Threads
          data={data}
          run={run}
          onPair={(a, b) => set({ run, a, b })}
          onFlame={(tid) => openCell?.('flame', { ...defaultFlameState, cap, event: 'offcpu', tid, runs: run ? [run] : null })}
        />
      )}
    </div>
  );
}

/** What the run recorded, what was weighted and what was not, and the checks that failed. */
function RunLine({ r, label }: { r: OffcpuRunInfo; label: string }) {
  const failed = r.checks.filter((c) => c.ok === false);
  const unchecked = r.checks.filter((c) => c.ok === null);
  return (
    <div className="offcpu-run" data-testid="offcpu-run">
      <p className="muted">
        <strong>{label}</strong> · run {r.run_id} · {fmtInt(r.switches)} sched_switch, {fmtInt(r.wakings)} sched_waking with call chains
        {r.duration_ns !== null && <> over {ms(r.duration_ns)}</>} · <strong>{fmtInt(r.intervals)}</strong> waits weighted ({ms(r.blocked_ns)} off the CPU over all
        threads) · not weighted: {fmtInt(r.open_at_end)} still off the CPU at the end (≥ {ms(r.open_at_end_ns)}), {fmtInt(r.in_at_start)} off since before the
        recording, {fmtInt(r.unpaired)} whose partner event was lost
        {failed.length === 0 && unchecked.length === 0 && <span className="offcpu-ok"> · ✓ no events lost</span>}
      </p>
      {failed.length > 0 && (
        <div className="loss-banner" role="alert" data-testid="offcpu-lost">
          ⚠ events lost in {r.run_id}: the times below are short of the truth
          <ul>
            {failed.map((c) => (
              <li key={`${c.name}${c.event}`}>{c.detail}</li>
            ))}
          </ul>
        </div>
      )}
      {unchecked.length > 0 && <p className="muted">{unchecked.map((c) => c.detail).join(' · ')}</p>}
    </div>
  );
}

function StatesBar({ states, total }: { states: Record<string, number>; total: number }) {
  const order = Object.entries(states).sort((x, y) => y[1] - x[1]);
  return (
    <span className="offcpu-states" title={order.map(([s, v]) => `${s} (${STATE_WORDS[s] ?? s}): ${ms(v)}`).join('\n')}>
      {order.map(([s, v]) => (
        <span key={s} className={`st st-${s.replace('+', 'p')}`} style={{ width: `${Math.max(2, (100 * v) / (total || 1))}%` }}>
          {(100 * v) / (total || 1) > 18 ? s : ''}
        </span>
      ))}
    </span>
  );
}

/** A side's pair button: sets the thread as side A or B of the pair form (pressed when it is). */
function SideButton({ slot, tid, value, set }: { slot: 'A' | 'B'; tid: number; value: string; set: (v: string) => void }) {
  const on = value === String(tid);
  return (
    <button
      type="button"
      className={`toggle${on ? ' on' : ''}`}
      aria-pressed={on}
      title={`${on ? 'Side' : 'Set it as side'} ${slot} of the pair above ("show A and B side by side": where each blocked and what woke it)`}
      onClick={() => set(on ? '' : String(tid))}
    >
      side {slot}
    </button>
  );
}

function Threads({ data, run, onPair, onFlame }: { data: OffcpuSummary; run: string | null; onPair: (a: string, b: string) => void; onFlame: (tid: number) => void }) {
  const [a, setA] = useState('');
  const [b, setB] = useState('');
  const [filter, setFilter] = useState('');
  const [open, setOpen] = useState(false);
  const info = data.runs.find((r) => r.run_id === run) ?? data.runs[0];
  if (!info) return <p className="muted">No run with off-CPU stacks.</p>;
  const tb = threadTable(data.tasks, info, filter);
  const work = data.workload_comm ?? 'the workload';
  // the others are folded when the workload has threads here; a filter shows every match
  const folded = !filter.trim() && !open && tb.workloadSum.threads > 0 && tb.others.length > 0;
  const row = (t: ThreadRow) => (
    <tr key={`${t.run_id}:${t.tid}`} className={t.workload ? 'offcpu-workload' : undefined}>
      <td>
        {t.comm} <span className="muted">[{t.tid}]</span>
      </td>
      <td className="muted">{t.group}</td>
      <td className="num">{fmtInt(t.intervals)}</td>
      <td className="num strong-num">{ms(t.blocked_ns)}</td>
      <td>
        <StatesBar states={t.states} total={t.blocked_ns} />
      </td>
      <td className="num muted">{ms(t.max_ns)}</td>
      <td>{t.top_waker ?? '–'}</td>
      <td className="actions">
        <button type="button" className="toggle" title="Its off-CPU flame graph (where it blocked, weighted by time off the CPU) in a new flame cell" onClick={() => onFlame(t.tid)}>
          flame graph
        </button>
        <SideButton slot="A" tid={t.tid} value={a} set={setA} />
        <SideButton slot="B" tid={t.tid} value={b} set={setB} />
      </td>
    </tr>
  );
  const sumCells = (s: { intervals: number; blocked_ns: number }) => (
    <>
      <td className="num">{fmtInt(s.intervals)}</td>
      <td className="num strong-num">{ms(s.blocked_ns)}</td>
    </>
  );
  const plural = (n: number, w: string) => `${fmtInt(n)} ${w}${n === 1 ? '' : 's'}`;
  return (
    <>
      <form
        className="offcpu-pair-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (a && b && a !== b) onPair(a, b);
        }}
      >
        Pair: <span className="offcpu-side-tag">A</span> <input value={a} onChange={(e) => setA(e.target.value)} placeholder="thread id or group (fio)" aria-label="side A" /> ⇄{' '}
        <span className="offcpu-side-tag">B</span> <input value={b} onChange={(e) => setB(e.target.value)} placeholder="kworker/*" aria-label="side B" />{' '}
        <button type="submit" className="toggle" disabled={!a || !b || a === b}>
          show A and B side by side
        </button>
        <span className="muted"> · pick them with a thread's "side A" / "side B", or a "stacks" link of the scheduler cell's ping-pong table</span>
      </form>
      <div className="offcpu-filter">
        <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="filter threads: command, group or id" aria-label="Filter threads" />
        {tb.matched && (
          <span className="muted" data-testid="offcpu-matched">
            {' '}
            {plural(tb.matched.threads, 'thread')} listed match{tb.matched.threads === 1 ? 'es' : ''}: {fmtInt(tb.matched.intervals)} waits, {ms(tb.matched.blocked_ns)} off the CPU
          </span>
        )}
      </div>
      <table className="offcpu-table" data-testid="offcpu-threads">
        <thead>
          <tr>
            <th>thread</th>
            <th>group</th>
            <th className="num" title="switch-outs paired with the thread's next switch-in">waits</th>
            <th className="num" title="summed time from each switch-out to the thread's next switch-in">off the CPU</th>
            <th title="time off the CPU by the state it left in: S sleeping, D uninterruptible, R preempted, I idle kthread">by state</th>
            <th className="num">longest</th>
            <th title="the task group whose wakeup ended its waits most often">woken most by</th>
            <th title="its off-CPU flame graph in a new cell; side A / side B of the pair view">open</th>
          </tr>
        </thead>
        <tbody>
          {tb.workload.map(row)}
          {tb.othersSum.threads > 0 && !filter.trim() && tb.workloadSum.threads > 0 && (
            <tr className="offcpu-others" data-testid="offcpu-others">
              <td colSpan={2}>
                <button type="button" className="link" aria-expanded={!folded} onClick={() => setOpen(!open)}>
                  {folded ? '▸' : '▾'} {plural(tb.othersSum.threads, 'other thread')}
                </button>{' '}
                <span className="muted">not {work}'s (other processes on the host)</span>
              </td>
              {sumCells(tb.othersSum)}
              <td colSpan={4} className="muted">
                {folded ? 'folded: click to list them' : tb.unlisted > 0 ? `the ${fmtInt(tb.others.length)} with the most time are listed below` : ''}
              </td>
            </tr>
          )}
          {!folded && tb.others.map(row)}
        </tbody>
        <tfoot>
          <tr className="offcpu-total" data-testid="offcpu-total">
            <td colSpan={2}>
              all {plural(tb.total.threads, 'thread')} of {info.run_id}
              <span className="muted">
                {' '}
                (the run's totals{tb.workloadSum.threads > 0 ? `: ${work}'s ${fmtInt(tb.workloadSum.threads)} + ${fmtInt(tb.othersSum.threads)} other` : ''})
              </span>
            </td>
            {sumCells(tb.total)}
            <td colSpan={4} className="muted">
              {tb.unlisted > 0 ? `${plural(tb.unlisted, 'thread')} with the least time not listed; counted here and in the other threads' row` : ''}
            </td>
          </tr>
        </tfoot>
      </table>
    </>
  );
}

function PairView({ cap, run, a, b, icicle }: { cap: string; run: string; a: string; b: string; icicle: boolean }) {
  const q = useOffcpuPair(cap, run, a, b);
  if (q.error) return <ErrorBox error={q.error} title="off-CPU pair" />;
  if (!q.data) return <p className="muted">Loading both sides…</p>;
  const d = q.data;
  return (
    <div className="offcpu-pair" data-testid="offcpu-pair">
      {/* d.notes repeats the run line's ends (above); d.warnings its failed checks */}
      <div className="offcpu-sides">
        <Side s={d.a} other={d.b} slot="a" icicle={icicle} />
        <Side s={d.b} other={d.a} slot="b" icicle={icicle} />
      </div>
    </div>
  );
}

function Side({ s, other, slot, icicle }: { s: OffcpuSide; other: OffcpuSide; slot: string; icicle: boolean }) {
  return (
    <section className="offcpu-side" data-testid={`offcpu-side-${slot}`}>
      <h4>
        <span className="offcpu-side-tag">{slot.toUpperCase()}</span> {s.label} <span className="muted">({s.selector === s.label ? `${s.tids.length} threads` : s.selector})</span>
      </h4>
      <p className="offcpu-side-facts">
        <strong>{ms(s.blocked_ns)}</strong> off the CPU in {fmtInt(s.intervals)} waits
        {s.intervals > 0 && <> · <StatesBar states={s.states} total={s.blocked_ns} /></>}
        <br />
        {fmtInt(s.woken_by_partner)} waits ({fmtPct(pctOf(s.woken_by_partner_ns, s.blocked_ns))} of the time) ended by a wakeup from <strong>{other.label}</strong> ·{' '}
        {fmtInt(s.wakeups_by_partner)} of its {fmtInt(s.wakeups)} wakeups raised by it
      </p>
      <Tree title="where it blocked · width = time off the CPU until it ran again" tree={s.blocked} unit="ns" slot={`${slot}-blocked`} icicle={icicle} />
      <Tree title="what woke it · width = wakeups (sched_waking), root = the waker" tree={s.woken_by} unit="count" slot={`${slot}-woken`} icicle={icicle} />
    </section>
  );
}

function Tree({ title, tree, unit, slot, icicle }: { title: string; tree: OffcpuSide['blocked']; unit: 'ns' | 'count'; slot: string; icicle: boolean }) {
  const lay: FlameLayout = useMemo(() => layoutTree({ names: tree.names, name: tree.name, depth: tree.depth, self: tree.self_weight }), [tree]);
  const fill = useMemo(() => frameFills(lay, null), [lay]);
  const [zoom, setZoom] = useState(0);
  const total = lay.total[0] ?? 0;
  const show = (w: number) => (unit === 'ns' ? ms(w) : `${fmtInt(w)} wakeups`);
  return (
    <div className="offcpu-tree">
      <div className="offcpu-tree-title muted">
        {title} · {show(total)}
        {zoom > 0 && (
          <button type="button" className="link" onClick={() => setZoom(0)}>
            {' '}
            zoom out
          </button>
        )}
      </div>
      {total > 0 ? (
        <FlameChart
          lay={lay}
          zoom={zoom}
          icicle={icicle}
          fill={fill}
          slot={slot}
          label={title}
          maxHeight={360}
          onZoom={setZoom}
          tooltip={(n) => (
            <>
              <div className="tt-name">{lay.names.get(lay.name[n]!)}</div>
              <div>
                {show(lay.total[n]!)} · {fmtPct(pctOf(lay.total[n]!, total))}
              </div>
            </>
          )}
        />
      ) : (
        <p className="muted">nothing recorded</p>
      )}
    </div>
  );
}
