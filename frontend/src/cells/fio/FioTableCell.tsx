import { Fragment, useMemo, useState } from 'react';
import type { FioComparison } from '../../api/client';
import { useFioComparison } from '../../api/queries';
import { DotStrip } from '../../charts/DotStrip';
import { ErrorBox } from '../../components/ErrorBox';
import { buildFioTable, legendNeeds, type FioTable, type LegendNeeds } from '../../logic/compareTable';
import { shellJoin } from '../../logic/shell';
import type { CellProps } from '../types';
import type { FioTableState } from './state';

export function FioTableCell({ ctx, state, setState }: CellProps<FioTableState>) {
  const q = useFioComparison(ctx.captures, ctx.baseline);
  const table = useMemo(() => (q.data ? buildFioTable(q.data, state.metrics) : null), [q.data, state.metrics]);
  if (q.loading) return <p className="muted">Comparing…</p>;
  if (q.error) return <ErrorBox error={q.error} title="fio comparison" />;
  if (!table || !q.data) return null;
  return (
    <div className={`fio-cell${q.stale ? ' updating' : ''}`} aria-busy={q.stale}>
      <FioToolbar table={table} state={state} setState={setState} />
      {table.groups.length === 0 && <p className="muted">No fio job results in these captures.</p>}
      {table.groups.map((g) => (
        <FioGroupTable key={g.key} table={table} group={g} strips={state.strips} />
      ))}
      <Legend needs={legendNeeds(table.columns, table.groups.flatMap((g) => g.rows))} />
      <FioCommands cmp={q.data} table={table} />
    </div>
  );
}

function FioToolbar({ table, state, setState }: { table: FioTable; state: FioTableState; setState: (s: FioTableState) => void }) {
  const [open, setOpen] = useState(false);
  const shown = state.metrics ?? table.metrics.map((m) => m.metric);
  const toggle = (m: string) => {
    const next = shown.includes(m) ? shown.filter((x) => x !== m) : table.metrics.map((x) => x.metric).filter((x) => x === m || shown.includes(x));
    const all = next.length === table.metrics.length && next.every((x, i) => x === table.metrics[i]?.metric);
    setState({ ...state, metrics: all ? null : next.length ? next : shown });
  };
  return (
    <div className="cell-toolbar">
      <div className="menu">
        <button type="button" className="button small" aria-expanded={open} onClick={() => setOpen(!open)}>
          Metrics: {state.metrics ? `${shown.length} of ${table.metrics.length}` : 'all'} ▾
        </button>
        {open && (
          <div className="menu-list metric-picker" role="menu">
            {table.metrics.map((m) => (
              <label key={m.metric}>
                <input type="checkbox" checked={shown.includes(m.metric)} onChange={() => toggle(m.metric)} /> {m.label}
              </label>
            ))}
            <button type="button" className="link-button" onClick={() => setState({ ...state, metrics: null })}>
              Show all
            </button>
          </div>
        )}
      </div>
      <label className="check-label">
        <input type="checkbox" checked={state.strips} onChange={(e) => setState({ ...state, strips: e.target.checked })} /> Repeat dots
      </label>
    </div>
  );
}

function FioGroupTable({ table, group, strips }: { table: FioTable; group: FioTable['groups'][number]; strips: boolean }) {
  return (
    <div className="fio-group" data-testid="fio-group">
      <h3>
        <span className="muted">job</span> <span className="mono">{group.job}</span> <span className="ddir">{group.ddir}</span>
      </h3>
      <MetricTable columns={table.columns} rows={group.rows} strips={strips} />
    </div>
  );
}

/** Metric rows compared across captures (mean, spread, n, repeat dots, vs base): the fio table, also used by the sched cell. */
export function MetricTable({ columns, rows, strips, testId }: { columns: FioTable['columns']; rows: FioTable['groups'][number]['rows']; strips: boolean; testId?: string }) {
  const cols = columns;
  const per = (isBase: boolean) => 3 + (strips ? 1 : 0) + (isBase ? 0 : 1);
  return (
    <div className="table-scroll">
      <table className="fio-table" data-testid={testId}>
        <thead>
          <tr>
            <th rowSpan={2} className="metric-col">
              Metric
            </th>
            {cols.map((c) => (
              <th key={c.id} colSpan={per(c.isBaseline)} className="cap-head" title={`${c.label} (${c.id}): ${c.runs} runs, up to ${c.repeats} repeats`}>
                <span className="swatch" style={{ background: c.color }} />
                {c.label}
                {c.isBaseline && <span className="base-badge">baseline</span>}
              </th>
            ))}
          </tr>
          <tr className="sub-head">
            {cols.map((c) => (
              <Fragment key={c.id}>
                <th className="num first-of-cap">mean</th>
                <th className="num" title="± sample stddev when n ≥ 3, min–max when n = 2">
                  spread
                </th>
                <th className="num">n</th>
                {strips && <th title="Each repeat's value on the row's shared scale; tick = mean, grey line = baseline mean">repeats</th>}
                {!c.isBaseline && (
                  <th className="num ratio-head" title="Mean relative to the baseline's mean">
                    vs base
                  </th>
                )}
              </Fragment>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.metric} data-metric={r.metric}>
              <th className="metric-col" title={`${r.label} [${r.unit}]: ${r.better === 'neutral' ? 'neither direction is better' : `${r.better} is better`}\n${r.description}`}>
                {r.label} <span className="better-mark">{r.better === 'higher' ? '↑' : r.better === 'lower' ? '↓' : ''}</span>
              </th>
              {r.cells.map((cell) => (
                <Fragment key={cell.column.id}>
                  <td className="num first-of-cap mean" title={cell.title}>
                    {cell.stat?.mean == null ? <span className="muted">–</span> : cell.mean}
                  </td>
                  <td className="num spread muted" title={cell.title}>
                    {cell.spread}
                  </td>
                  <td className="num n muted" title={cell.title}>
                    {cell.n > 0 ? cell.n : ''}
                  </td>
                  {strips && (
                    <td className="strip" title={cell.title}>
                      {r.domain && cell.stat && cell.stat.values.length > 0 && (
                        <DotStrip values={cell.stat.values} mean={cell.stat.mean} baselineMean={cell.column.isBaseline ? null : r.baselineMean} domain={r.domain} color={cell.column.color} />
                      )}
                    </td>
                  )}
                  {!cell.column.isBaseline && (
                    <td className={`num ratio tone-${cell.tone}`} title={cell.title}>
                      {cell.ratio}
                      {cell.tone === 'few' && <span className="few-mark">?</span>}
                    </td>
                  )}
                </Fragment>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function Legend({ needs }: { needs: LegendNeeds }) {
  return (
    <div className="legend muted" data-testid="compare-legend">
      {needs.compared ? (
        <span>
          <span className="tone-better">green</span> better, <span className="tone-worse">red</span> worse than the baseline;{' '}
          <span className="tone-same">grey</span>: the repeats' min–max ranges overlap
          {needs.few ? (
            <>
              ; <span className="tone-same">grey ?</span>: too few repeats to judge a change (fewer than {needs.minRepeats} on a side, as the sweep matrix).
            </>
          ) : (
            '.'
          )}
        </span>
      ) : (
        <span>One capture: no baseline to compare with, so no colours.</span>
      )}
      <span>↑/↓: higher/lower is better; unmarked rows have no better direction. Hover a number for its capture, runs and raw values.</span>
    </div>
  );
}

function FioCommands({ cmp, table }: { cmp: FioComparison; table: FioTable }) {
  return (
    <details className="fio-commands">
      <summary>fio command lines</summary>
      <table className="data-table">
        <tbody>
          {table.columns.map((c) => (
            <tr key={c.id}>
              <th>
                <span className="swatch" style={{ background: c.color }} />
                {c.label}
              </th>
              <td className="mono small cmdline">{cmp.fio_commands[c.id] ? shellJoin(cmp.fio_commands[c.id]!) : <span className="muted">–</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
