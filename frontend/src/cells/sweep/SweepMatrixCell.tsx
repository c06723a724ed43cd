import { useMemo, useState } from 'react';
import { ErrorBox } from '../../components/ErrorBox';
import { buildMatrix, type MatrixView } from '../../logic/sweep';
import type { CellProps } from '../types';
import { MetricSelect } from './MetricSelect';
import { useSweep } from './queries';
import { ReportDialog } from './ReportDialog';
import type { SweepState } from './state';
import './sweep.css';

/** Captures as rows, sweep points as columns, one metric: absolute, or relative to the baseline. */
export function SweepMatrixCell({ ctx, state, setState }: CellProps<SweepState>) {
  const q = useSweep(ctx.captures, ctx.baseline, state.metric);
  const view = useMemo(() => (q.data ? buildMatrix(q.data, ctx.captures, state.relative) : null), [q.data, ctx.captures, state.relative]);
  const [report, setReport] = useState(false);
  if (q.loading) return <p className="muted">Computing the sweep statistics…</p>;
  if (q.error) return <ErrorBox error={q.error} title="sweep matrix" />;
  if (!view || !q.data) return null;
  const metric = q.data.metric.key;
  return (
    <div className="sweep-cell">
      <div className="cell-toolbar">
        <MetricSelect metrics={q.data.metrics} value={metric} onChange={(m) => setState({ ...state, metric: m })} />
        <div className="segmented" role="group" aria-label="Values">
          <button type="button" className={`toggle${state.relative ? ' on' : ''}`} aria-pressed={state.relative} onClick={() => setState({ ...state, relative: true })}>
            Relative to baseline
          </button>
          <button type="button" className={`toggle${!state.relative ? ' on' : ''}`} aria-pressed={!state.relative} onClick={() => setState({ ...state, relative: false })}>
            Absolute
          </button>
        </div>
        <div className="spacer" />
        <button type="button" className="button small" onClick={() => setReport(true)} title="The table as plain text for a mailing list (72 columns), with a permalink">
          Report for email…
        </button>
      </div>
      <p className="sweep-caption muted">
        <strong>{view.metric.label}</strong> {view.metric.unit && <>({view.metric.unit}) </>}· {view.metric.better === 'neutral' ? 'no better direction' : `${view.metric.better} is better`} · {view.metric.description}
      </p>
      {view.points.length === 0 ? <p className="muted">No runs in these captures.</p> : <MatrixTable view={view} />}
      <Legend view={view} alpha={q.data.alpha} minRepeats={q.data.min_repeats} />
      {report && <ReportDialog captures={ctx.captures} baseline={ctx.baseline} metric={metric} onClose={() => setReport(false)} />}
    </div>
  );
}

function MatrixTable({ view }: { view: MatrixView }) {
  const last = view.headers.length - 1;
  return (
    <div className="table-scroll">
      <table className="fio-table sweep-table" data-testid="sweep-matrix">
        <thead>
          {view.headers.map((h, level) => (
            <tr key={level} className={level === last ? 'sub-head' : 'param-head'}>
              <th className="metric-col param-name">{h.param}</th>
              {h.cells.map((c, i) => (
                <th key={i} colSpan={c.span} className={`num point-head${level < last ? ' group' : ''}`} data-point={c.key}>
                  {c.text}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {view.rows.map((r) => (
            <tr key={r.id} data-capture-id={r.id} className={r.isBaseline ? 'base-row' : ''}>
              <th className="metric-col cap-cell" title={`${r.label} (${r.id}): up to ${r.repeats} repeats per point`}>
                <span className="swatch" style={{ background: r.color }} />
                {r.label}
                {r.isBaseline && <span className="base-badge">baseline</span>}
              </th>
              {r.cells.map((c) => (
                <td key={c.key} className={`num sweep-value tone-${c.tone}${c.empty ? ' empty' : ''}`} title={c.title} data-point={c.key}>
                  <span className="main">{c.main}</span>
                  {c.mark && <span className={`sig-mark${c.mark === '?' ? ' few' : ''}`}>{c.mark}</span>}
                  {c.sub && <span className="sub">{c.sub}</span>}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Legend({ view, alpha, minRepeats }: { view: MatrixView; alpha: number; minRepeats: number }) {
  return (
    <div className="legend muted">
      <span>
        Mean of each point's repeats; <span className="muted">±</span> the 95% confidence interval of the mean.
        {view.relative ? ' Other captures: change of the mean against the baseline at the same point.' : ''}
      </span>
      <span>
        <strong className="sig-mark">*</strong> Welch's t-test p &lt; {alpha} with ≥ {minRepeats} repeats on both sides (<span className="tone-better">green</span> better,{' '}
        <span className="tone-worse">red</span> worse); <strong className="sig-mark few">?</strong> too few repeats to test; <span className="tone-same">grey</span>: not significant. Hover a cell for
        its repeats, interval and p-value.
      </span>
    </div>
  );
}
