import { Fragment, useCallback, useMemo, useState, type MouseEvent } from 'react';
import { EmptyState, MissingLine } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import {
  buildCompareTable,
  buildPoints,
  buildTopTable,
  codeSpans,
  reasonText,
  sourceShort,
  sourceWords,
  TOP_KEYS,
  formatCount,
  type CompareTableView,
  type LockColumn,
  type PointView,
  type TopTableView,
} from '../../logic/lockStat';
import { captureColor } from '../../logic/colors';
import type { CellProps } from '../types';
import { useLockStatComparison, useLockStatPoints, useLockStatTop } from './queries';
import type { LockStatState } from './state';
import { StacksSection } from './StacksSection';
import './lockstat.css';

/** Rows shown before "Show more". */
const FIRST_ROWS = 25;

/** What the call sites panel needs to look for a class in the notebook's perf stacks. */
interface StacksCtx {
  captures: string[];
  colorOf: (id: string) => string;
  openCell?: (kind: string, state: unknown) => void;
}

export function LockStatCell({ ctx, state, setState, openCell }: CellProps<LockStatState>) {
  const q = useLockStatComparison(ctx.captures, ctx.baseline);
  const colorOf = useCallback((id: string) => captureColor(ctx.captures.indexOf(id)), [ctx.captures]);
  const stacks: StacksCtx = useMemo(() => ({ captures: ctx.captures, colorOf, openCell }), [ctx.captures, colorOf, openCell]);
  const table = useMemo(() => (q.data ? buildCompareTable(q.data) : null), [q.data]);
  if (q.loading) return <p className="muted">Comparing lock contention…</p>;
  if (q.error) return <ErrorBox error={q.error} title="lock contention" />;
  if (!table) return null;
  if (table.columns.length === 0) {
    return (
      <div className="lockstat-cell">
        <EmptyState
          data="lockstat"
          testId="lockstat-empty"
          captures={ctx.captures}
          baseline={ctx.baseline}
          wanted={table.missing.map((c) => c.id)}
          // the collector's own note (it tried: no CONFIG_LOCK_STAT, not root...); 'made without' is the default reason
          reasons={Object.fromEntries(table.missing.filter((c) => !/made without/.test(c.availability.reason ?? 'made without')).map((c) => [c.id, <Code key={c.id} text={reasonText(c.availability)} />]))}
          withCapture={ctx.withCapture}
        >
          {!table.missing.every((c) => (c.availability.reason ?? '').includes('perf lock contention')) && (
            <p>
              <Code text={table.alternative} />
            </p>
          )}
          <p>
            A dump taken by hand can be attached instead: <code>--lock-stat-snapshot FILE</code>.
          </p>
        </EmptyState>
      </div>
    );
  }
  const capId = state.cap && table.columns.some((c) => c.id === state.cap) ? state.cap : (table.columns.find((c) => c.isBaseline) ?? table.columns[0]!).id;
  return (
    <div className="lockstat-cell">
      <div className="cell-toolbar">
        <div className="segmented" role="group" aria-label="Lock contention view">
          <button type="button" className={`toggle${state.view === 'cmp' ? ' on' : ''}`} aria-pressed={state.view === 'cmp'} onClick={() => setState({ ...state, view: 'cmp' })}>
            Comparison
          </button>
          <button type="button" className={`toggle${state.view === 'top' ? ' on' : ''}`} aria-pressed={state.view === 'top'} onClick={() => setState({ ...state, view: 'top' })}>
            Top classes
          </button>
        </div>
        {state.view === 'top' && (
          <>
            <div className="segmented" role="group" aria-label="Capture">
              {table.columns.map((c) => (
                <button key={c.id} type="button" className={`toggle${c.id === capId ? ' on' : ''}`} aria-pressed={c.id === capId} title={`${c.label} (${c.id})`} onClick={() => setState({ ...state, cap: c.id === (table.columns.find((x) => x.isBaseline) ?? table.columns[0]!).id ? null : c.id })}>
                  <span className="swatch" style={{ background: c.color }} />
                  <span className="cap-name">{c.label}</span>
                </button>
              ))}
            </div>
            <label className="check-label">
              Order by
              <select value={state.by} onChange={(e) => setState({ ...state, by: e.target.value as LockStatState['by'] })}>
                {TOP_KEYS.map((k) => (
                  <option key={k.key} value={k.key}>
                    {k.label}
                  </option>
                ))}
              </select>
            </label>
          </>
        )}
      </div>
      {table.missing.length > 0 && <NoLockStat table={table} />}
      {state.view === 'cmp' ? <CompareTable table={table} stacks={stacks} /> : <TopTable id={capId} by={state.by} color={table.columns.find((c) => c.id === capId)!.color} stacks={stacks} />}
      <Warnings columns={table.columns} />
    </div>
  );
}

function Code({ text }: { text: string }) {
  return (
    <>
      {codeSpans(text).map((s, i) => (s.code ? <code key={i}>{s.text}</code> : <Fragment key={i}>{s.text}</Fragment>))}
    </>
  );
}

/** Some of the captures have no lock_stat (the others are compared): the shared one-line empty
 *  state, with the collector's reason for each when it tried ('made without' is the default). */
function NoLockStat({ table }: { table: CompareTableView }) {
  const own = (c: LockColumn) => !/made without/.test(c.availability.reason ?? 'made without');
  return (
    <MissingLine
      data="lockstat"
      testId="lockstat-empty"
      missing={table.missing.map((c) => ({ label: c.label, color: c.color, isBaseline: c.isBaseline, reason: own(c) ? <Code text={reasonText(c.availability)} /> : undefined }))}
      consequence={table.missing.some((c) => c.isBaseline) ? "the baseline has none, so the table shows each capture's figures without differences" : 'the others are compared without them'}
    >
      {/* The collector's note may already name the alternative; say it once. */}
      {!table.missing.every((c) => (c.availability.reason ?? '').includes('perf lock contention')) && <Code text={table.alternative} />}
    </MissingLine>
  );
}

function Warnings({ columns }: { columns: LockColumn[] }) {
  const withNotes = columns.filter((c) => c.availability.warnings.length > 0 || c.availability.debug_locks_off);
  if (withNotes.length === 0) return null;
  const n = withNotes.reduce((a, c) => a + c.availability.warnings.length, 0);
  return (
    <details className="lock-warnings">
      <summary>
        <span className="warn-mark">⚠</span> What the parser noticed in the dumps <span className="muted count">{n}</span>
      </summary>
      <ul className="notes">
        {withNotes.map((c) =>
          c.availability.warnings.map((w, i) => (
            <li key={`${c.id}${i}`} className="warn">
              <span className="swatch" style={{ background: c.color }} />
              {c.label}: {w}
            </li>
          )),
        )}
      </ul>
    </details>
  );
}

function CapHead({ c, span }: { c: LockColumn; span: number }) {
  const a = c.availability;
  const title = `${c.label} (${c.id})${c.isBaseline ? ' — baseline' : ''}\nlock_stat: ${sourceWords(a)}\nI/Os: ${a.ops ? formatCount(a.ops) : 'none (no fio I/O count)'}`;
  return (
    <th colSpan={span} className="cap-head" title={title}>
      <span className="swatch" style={{ background: c.color }} />
      {c.label}
      {c.isBaseline && <span className="base-badge">baseline</span>}
      <span className="cap-source muted">{sourceShort(a)}</span>
    </th>
  );
}

/**
 * A click anywhere on a class's row opens its call sites, as the name's button does; not when the
 * click landed on the button itself (it toggles on its own) or ended a text selection (copying a
 * number out of the table must not fold the row).
 */
function rowClick(e: MouseEvent<HTMLTableRowElement>, toggle: () => void) {
  if ((e.target as HTMLElement).closest('button, a')) return;
  if (window.getSelection()?.toString()) return;
  toggle();
}

function ClassName({ name, rwLabel, open, onToggle, points }: { name: string; rwLabel: string; open: boolean; onToggle: () => void; points?: number }) {
  return (
    <button type="button" className="class-toggle" aria-expanded={open} onClick={onToggle} title={`${name}: ${open ? 'hide' : 'show'} its call sites${points !== undefined ? ` (${points})` : ''}`}>
      <span className="disclosure-mark">{open ? '▾' : '▸'}</span>
      <span className="mono class-name">{name}</span>
      {rwLabel && <span className={`rw-badge rw-${rwLabel}`}>{rwLabel}</span>}
    </button>
  );
}

function ShowMore({ shown, total, onMore }: { shown: number; total: number; onMore: () => void }) {
  if (shown >= total) return null;
  return (
    <button type="button" className="link-button show-more" onClick={onMore}>
      Show {Math.min(total - shown, 100)} more of {formatCount(total)}
    </button>
  );
}

function CompareTable({ table, stacks }: { table: CompareTableView; stacks: StacksCtx }) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [limit, setLimit] = useState(FIRST_ROWS);
  const toggle = (k: string) => setOpen((o) => new Set(o.has(k) ? [...o].filter((x) => x !== k) : [...o, k]));
  const m = table.metrics.length;
  const span = (c: LockColumn) => m + (c.isBaseline || !table.baseHasLockStat ? 0 : 2);
  const width = 1 + table.columns.reduce((a, c) => a + span(c), 0);
  const rows = table.rows.slice(0, limit);
  if (table.rows.length === 0) {
    return <p className="muted">No lock class was contended in these captures.</p>;
  }
  return (
    <>
      <div className="table-scroll">
        <table className="fio-table lock-table" data-testid="lockstat-compare">
          <thead>
            <tr>
              <th rowSpan={2} className="metric-col">
                Lock class
              </th>
              {table.columns.map((c) => (
                <CapHead key={c.id} c={c} span={span(c)} />
              ))}
            </tr>
            <tr className="sub-head">
              {table.columns.map((c) => (
                <Fragment key={c.id}>
                  {table.metrics.map((mt, i) => (
                    <th key={mt.key} className={`num${i === 0 ? ' first-of-cap' : ''}`} title={`${mt.label} [${mt.unit}]: ${mt.description}`}>
                      {mt.head ?? mt.label}
                    </th>
                  ))}
                  {!c.isBaseline && table.baseHasLockStat && (
                    <>
                      <th className="num ratio-head" title={`${table.perOp ? 'wait per I/O' : 'total wait'} minus the baseline's, ${table.deltaUnit}: red = more waiting than the baseline`}>
                        {table.deltaLabel}
                      </th>
                      <th className="num" title="this capture's wait / the baseline's; new/gone: contended here and not in the baseline, or the reverse">
                        vs base
                      </th>
                    </>
                  )}
                </Fragment>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <Fragment key={r.key}>
                <tr className="class-row" data-class={r.lockClass} data-rw={r.rw} onClick={(e) => rowClick(e, () => toggle(r.key))}>
                  <th className="metric-col">
                    <ClassName name={r.name} rwLabel={r.rwLabel} open={open.has(r.key)} onToggle={() => toggle(r.key)} />
                    {r.marks.map((mk) => (
                      <span key={mk} className={`mark mark-${mk}`} title={mk === 'new' ? 'contended in a capture, not in the baseline' : 'contended in the baseline, not in a capture'}>
                        {mk}
                      </span>
                    ))}
                  </th>
                  {r.cells.map((cell) => (
                    <Fragment key={cell.column.id}>
                      {cell.numbers.map((n, i) => (
                        <td key={i} className={`num${i === 0 ? ' first-of-cap' : ''}${cell.present ? '' : ' absent'}`} title={n.title}>
                          {cell.present ? n.text : i === 0 ? <span className="muted">–</span> : ''}
                        </td>
                      ))}
                      {!cell.column.isBaseline && table.baseHasLockStat && (
                        <>
                          <td className={`num delta tone-${cell.tone}`} title={cell.deltaTitle}>
                            {cell.delta}
                          </td>
                          <td className={`num ratio tone-${cell.tone}${cell.mark === 'new' || cell.mark === 'gone' ? ' mark-cell' : ''}`} title={cell.deltaTitle}>
                            {cell.ratio}
                          </td>
                        </>
                      )}
                    </Fragment>
                  ))}
                </tr>
                {open.has(r.key) && (
                  <tr className="points-row">
                    <td colSpan={width}>
                      <PointsPanel columns={table.columns} lockClass={r.lockClass} occurrence={r.occurrence} presentIn={r.cells.filter((c) => c.present).map((c) => c.column.id)} stacks={stacks} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
      <ShowMore shown={rows.length} total={table.rows.length} onMore={() => setLimit(limit + 100)} />
      {table.total > table.rows.length && <p className="muted small">The server sent the first {table.rows.length} of {formatCount(table.total)} contended classes.</p>}
      <div className="legend muted">
        <span>
          Rows: lock classes contended in at least one capture, {table.sort}.{' '}
          {table.baseHasLockStat ? (
            <>
              <span className="tone-worse">Red</span>: more waiting than the baseline, <span className="tone-better">green</span>: less; <span className="mark mark-new">new</span> contended here but not in the baseline,{' '}
              <span className="mark mark-gone">gone</span> the reverse.
            </>
          ) : (
            'No new or gone marks: the baseline has nothing to compare with.'
          )}
        </span>
        <span>
          {table.perOp
            ? 'Per I/O: divided by the fio I/Os of the same runs, so a capture that did more I/O is not blamed for it.'
            : 'Totals: some capture has no fio I/O count to divide by, so totals are compared.'}{' '}
          Hover a number for its capture, runs and unit; click a class for its call sites.
        </span>
      </div>
    </>
  );
}

function TopTable({ id, by, color, stacks }: { id: string; by: LockStatState['by']; color: string; stacks: StacksCtx }) {
  const q = useLockStatTop(id, by);
  const table = useMemo(() => (q.data ? buildTopTable(q.data, color) : null), [q.data, color]);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [limit, setLimit] = useState(FIRST_ROWS);
  if (q.loading) return <p className="muted">Loading lock classes…</p>;
  if (q.error) return <ErrorBox error={q.error} title="lock classes" />;
  if (!table) return null;
  return <TopTableBody table={table} open={open} setOpen={setOpen} limit={limit} setLimit={setLimit} stacks={stacks} />;
}

function TopTableBody({ table, open, setOpen, limit, setLimit, stacks }: { table: TopTableView; open: Set<string>; setOpen: (s: Set<string>) => void; limit: number; setLimit: (n: number) => void; stacks: StacksCtx }) {
  const c = table.column;
  const a = c.availability;
  const rows = table.rows.slice(0, limit);
  const toggle = (k: string) => setOpen(new Set(open.has(k) ? [...open].filter((x) => x !== k) : [...open, k]));
  return (
    <>
      <p className="lock-caption">
        <span className="swatch" style={{ background: c.color }} />
        <strong>{c.label}</strong>{' '}
        <span className="muted">
          {formatCount(table.total)} lock class row{table.total === 1 ? '' : 's'}, {formatCount(table.contended)} contended; from {sourceWords(a)}
          {a.ops ? `; ${formatCount(a.ops)} fio I/Os` : '; no fio I/O count, so no per-I/O figures'}.
        </span>
      </p>
      <div className="table-scroll">
        <table className="fio-table lock-table" data-testid="lockstat-top">
          <thead>
            <tr className="sub-head">
              <th className="num rank">#</th>
              <th className="metric-col">Lock class</th>
              {table.metrics.map((m, i) => (
                <th key={m.key} className={`num${i === 0 ? ' first-of-cap' : ''}`} title={`${m.label} [${m.unit}]: ${m.description}`}>
                  {m.head ?? m.label}
                </th>
              ))}
              <th className="num" title="distinct contention and contending call sites">
                sites
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <Fragment key={r.key}>
                <tr className="class-row" data-class={r.lockClass} data-rw={r.rw} onClick={(e) => rowClick(e, () => toggle(r.key))}>
                  <td className="num rank muted">{r.rank}</td>
                  <th className="metric-col">
                    <ClassName name={r.name} rwLabel={r.rwLabel} open={open.has(r.key)} onToggle={() => toggle(r.key)} points={r.points} />
                  </th>
                  {r.numbers.map((n, i) => (
                    <td key={i} className={`num${i === 0 ? ' first-of-cap' : ''}`} title={n.title}>
                      {n.text}
                    </td>
                  ))}
                  <td className="num muted">{r.points || ''}</td>
                </tr>
                {open.has(r.key) && (
                  <tr className="points-row">
                    <td colSpan={table.metrics.length + 3}>
                      <PointsPanel columns={[c]} lockClass={r.lockClass} occurrence={r.occurrence} presentIn={[c.id]} stacks={stacks} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </tbody>
        </table>
      </div>
      <ShowMore shown={rows.length} total={table.rows.length} onMore={() => setLimit(limit + 100)} />
    </>
  );
}

function PointsPanel({ columns, lockClass, occurrence, presentIn, stacks }: { columns: LockColumn[]; lockClass: string; occurrence: number; presentIn: string[]; stacks: StacksCtx }) {
  // The class's capture for the stacks query: the first column that has it (the baseline first).
  const owner = columns.find((c) => presentIn.includes(c.id));
  return (
    <>
    <div className="points-panel" data-testid="lockstat-points">
      {columns.map((c) => (
        <div key={c.id} className="points-col">
          <h4>
            <span className="swatch" style={{ background: c.color }} />
            {c.label}
          </h4>
          {presentIn.includes(c.id) ? <PointsFor column={c} lockClass={lockClass} occurrence={occurrence} /> : <p className="muted small">Not in this capture's lock_stat.</p>}
        </div>
      ))}
    </div>
    {owner && <StacksSection capture={owner.id} lockClass={lockClass} occurrence={occurrence} captures={stacks.captures} colorOf={stacks.colorOf} openCell={stacks.openCell} />}
    </>
  );
}

function PointsFor({ column, lockClass, occurrence }: { column: LockColumn; lockClass: string; occurrence: number }) {
  const q = useLockStatPoints(column.id, lockClass, occurrence);
  const pts = useMemo(() => (q.data ? buildPoints(q.data, column.label) : null), [q.data, column.label]);
  if (q.loading) return <p className="muted small">Loading call sites…</p>;
  if (q.error) return <ErrorBox error={q.error} title="call sites" />;
  if (!pts) return null;
  if (pts.contention.length + pts.contending.length === 0) return <p className="muted small">No call sites recorded (the class was not contended).</p>;
  return (
    <>
      <PointList title="Waited at" hint="contention points: call sites that had to wait for the lock" points={pts.contention} />
      <PointList title="Held by" hint="contending points: call sites holding the lock while others waited" points={pts.contending} />
    </>
  );
}

function PointList({ title, hint, points }: { title: string; hint: string; points: PointView[] }) {
  if (points.length === 0) return null;
  return (
    <table className="points-table">
      <caption title={hint}>{title}</caption>
      <tbody>
        {points.map((p) => (
          <tr key={p.kind + p.symbol} title={p.title}>
            <td className="num">{p.count}</td>
            <td className="mono">
              {p.symbol}
              {p.module && <span className="module">[{p.module}]</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
