import { BandChart } from '../../charts/BandChart';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import { captureColor } from '../../logic/colors';
import { axisLabel, formatMetric } from '../../logic/sweep';
import { useFioLog } from '../sweep/queries';
import { LOG_DDIRS, LOGS, type FioLogState } from '../sweep/state';
import '../sweep/sweep.css';
import type { CellProps } from '../types';

const LOG_NAMES: Record<string, string> = { iops: 'IOPS', bw: 'Bandwidth', clat: 'clat (completion latency)', lat: 'lat (total latency)', slat: 'slat (submission latency)' };

/** A fio log over time (--fio-logs): a line per capture, mean of its repeats, band min–max. */
export function FioLogCell({ ctx, state, setState, full }: CellProps<FioLogState>) {
  const q = useFioLog(ctx.captures, state);
  if (q.loading) return <p className="muted">Reading the fio logs…</p>;
  if (q.error) return <ErrorBox error={q.error} title="fio logs" />;
  const d = q.data;
  if (!d) return null;
  if (!d.logs.length)
    return (
      <EmptyState data="fiologs" testId="fiolog-empty" captures={ctx.captures} baseline={ctx.baseline} withCapture={ctx.withCapture}>
        In a sweep, <code>logs = 500</code> in the plan does the same.
      </EmptyState>
    );
  const points = [...new Set(Object.values(d.points).flat())];
  const series = d.series.map((s) => ({
    key: s.capture,
    label: `${s.label}${points.length > 1 && s.point ? ` · ${s.point}` : ''} (${s.runs.length} run${s.runs.length === 1 ? '' : 's'})`,
    color: captureColor(Math.max(0, ctx.captures.indexOf(s.capture))),
    dash: '',
    points: s.points.map((p) => ({
      x: p.t_s,
      mean: p.mean,
      lo: p.min,
      hi: p.max,
      title: `${s.label} at ${p.t_s.toFixed(1)} s: ${formatMetric(p.mean, d.unit)} (mean of ${p.n} run${p.n === 1 ? '' : 's'}; ${formatMetric(p.min, d.unit)} – ${formatMetric(p.max, d.unit)})`,
    })),
  }));
  const step = d.series[0]?.step_ms;
  return (
    <div className="fiolog-cell">
      <div className="cell-toolbar">
        <label className="select-label">
          Log
          <select value={state.log} aria-label="Log" onChange={(e) => setState({ ...state, log: e.target.value as FioLogState['log'] })}>
            {LOGS.filter((l) => d.logs.includes(l) || l === state.log).map((l) => (
              <option key={l} value={l}>
                {LOG_NAMES[l]}
              </option>
            ))}
          </select>
        </label>
        <label className="select-label">
          Direction
          <select value={state.ddir} aria-label="Direction" onChange={(e) => setState({ ...state, ddir: e.target.value as FioLogState['ddir'] })}>
            {LOG_DDIRS.filter((x) => x === 'all' || d.ddirs.includes(x) || x === state.ddir).map((x) => (
              <option key={x} value={x}>
                {x === 'all' ? 'all (added up)' : x}
              </option>
            ))}
          </select>
        </label>
        {points.length > 1 && (
          <label className="select-label">
            Point
            <select value={state.point ?? d.series[0]?.point ?? ''} aria-label="Sweep point" onChange={(e) => setState({ ...state, point: e.target.value })}>
              {points.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </label>
        )}
        <label className="check-label">
          <input type="checkbox" checked={state.bands} onChange={(e) => setState({ ...state, bands: e.target.checked })} /> min–max bands
        </label>
      </div>
      <BandChart
        width={full ? 1800 : 1100}
        height={280}
        x={{ kind: 'linear', unit: ' s' }}
        series={series}
        bands={state.bands}
        yLabel={(v, top) => axisLabel(v, d.unit, top)}
        xTitle="time since the job started"
        ariaLabel={`fio ${state.log} log over time`}
        note={`${LOG_NAMES[d.log]} (${d.unit}) every ${step ?? '?'} ms, mean of the repeats${state.bands ? '; band: min–max over the repeats' : ''}`}
      />
    </div>
  );
}
