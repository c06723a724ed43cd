import { useMemo } from 'react';
import { BandChart } from '../../charts/BandChart';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import { axisLabel, buildLines } from '../../logic/sweep';
import { MetricSelect } from '../sweep/MetricSelect';
import { useSweep } from '../sweep/queries';
import type { SweepLineState } from '../sweep/state';
import '../sweep/sweep.css';
import type { CellProps } from '../types';

/** A metric against one swept parameter (IOPS vs iodepth), a line per capture, 95% CI bands. */
export function SweepLineCell({ ctx, state, setState, full }: CellProps<SweepLineState>) {
  const q = useSweep(ctx.captures, ctx.baseline, state.metric);
  const data = useMemo(() => (q.data ? buildLines(q.data, ctx.captures, state.x, state.fixed) : null), [q.data, ctx.captures, state.x, state.fixed]);
  if (q.loading) return <p className="muted">Computing the sweep statistics…</p>;
  if (q.error) return <ErrorBox error={q.error} title="sweep chart" />;
  if (!q.data || !data) return null;
  // buildLines' one refusal: no parameter is swept (captures of `iolens-collect run`, one point each)
  if (data instanceof Error)
    return (
      <EmptyState data="sweep" testId="sweepline-empty" captures={ctx.captures} baseline={ctx.baseline} withCapture={ctx.withCapture}>
        No line to draw: {data.message}. The sweep matrix cell compares their one point.
      </EmptyState>
    );
  const m = q.data.metric;
  const setFixed = (name: string, v: string | null) => setState({ ...state, fixed: { ...state.fixed, [name]: v } });
  return (
    <div className="sweepline-cell">
      <div className="cell-toolbar">
        <MetricSelect metrics={q.data.metrics} value={m.key} onChange={(k) => setState({ ...state, metric: k })} />
        <label className="select-label">
          x axis
          <select value={data.x} aria-label="x axis" onChange={(e) => setState({ ...state, x: e.target.value })}>
            {q.data.params.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        {data.others.map((o) => (
          <label key={o.name} className="select-label">
            {o.name}
            <select value={o.fixed ?? '*'} aria-label={o.name} onChange={(e) => setFixed(o.name, e.target.value === '*' ? null : e.target.value)}>
              {o.values.map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
              <option value="*">each (a line per value)</option>
            </select>
          </label>
        ))}
        <label className="check-label">
          <input type="checkbox" checked={state.bands} onChange={(e) => setState({ ...state, bands: e.target.checked })} /> 95% CI bands
        </label>
      </div>
      <BandChart
        width={full ? 1800 : 1100}
        height={300}
        x={{ kind: 'category', values: data.xValues }}
        series={data.series}
        bands={state.bands}
        yLabel={(v, top) => axisLabel(v, m.unit, top)}
        xTitle={data.x}
        ariaLabel={`${m.label} against ${data.x}`}
        note={`${m.label}${m.unit ? ` (${m.unit})` : ''}, mean of the repeats${state.bands ? '; band: 95% confidence interval of the mean' : ''}`}
      />
    </div>
  );
}
