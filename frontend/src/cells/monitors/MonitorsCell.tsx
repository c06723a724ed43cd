import { Fragment } from 'react';
import { BandChart } from '../../charts/BandChart';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import { captureColor } from '../../logic/colors';
import { formatMonitor, formatRatio, monitorShowsUnit } from '../../logic/format';
import type { CellProps } from '../types';
import { useMonitorSeries, useMonitors } from './queries';
import { SOURCES, type MonitorsState } from './state';

/** '3 runs', '2–3 runs': how many runs a capture's means in these rows are over. */
function runsWords(rows: readonly { cells: Record<string, { runs: number } | null | undefined> }[], c: string): string {
  let lo = Infinity;
  let hi = 0;
  for (const r of rows) {
    const n = r.cells[c]?.runs;
    if (n === undefined) continue;
    lo = Math.min(lo, n);
    hi = Math.max(hi, n);
  }
  if (!hi) return 'no runs';
  return `${lo === hi ? hi : `${lo}–${hi}`} run${hi === 1 ? '' : 's'}`;
}

/** Monitors: the counters that moved most against the baseline (mean of the runs), one of them over time. */
export function MonitorsCell({ ctx, state, setState, full }: CellProps<MonitorsState>) {
  const q = useMonitors(ctx.captures, ctx.baseline, state.source);
  const d = q.data;
  const first = d?.rows.find((r) => !r.key.endsWith('%'));
  const key = state.key ?? (first ? `${first.source}/${first.key}` : null);
  const series = useMonitorSeries(ctx.captures, d ? key : null);
  if (q.loading) return <p className="muted">Reading the monitors…</p>;
  if (q.error) return <ErrorBox error={q.error} title="Monitors" />;
  if (!d) return null;
  if (!Object.values(d.available).some((s) => s.length))
    return (
      <EmptyState data="monitors" testId="monitors-empty" captures={ctx.captures} baseline={ctx.baseline} withCapture={ctx.withCapture}>
        <code>--monitor-interval MSEC</code> sets the sampling interval (default 1000 ms).
      </EmptyState>
    );
  const caps = d.captures.filter((c) => d.available[c]?.length);
  const s = series.data;
  return (
    <div className="monitors-cell">
      <div className="cell-toolbar">
        <label className="select-label">
          Source
          <select value={state.source ?? ''} aria-label="Monitor source" onChange={(e) => setState({ source: e.target.value || null, key: null })}>
            <option value="">all</option>
            {SOURCES.map((x) => (
              <option key={x} value={x}>
                {x}
              </option>
            ))}
          </select>
        </label>
        <span className="muted">
          {d.rows.length} of {d.total} keys, what moved most against the baseline first; counters per second of run, levels as their mean, mean of the runs (min–max on hover). Click a row to draw it.
        </span>
      </div>
      <div className="table-scroll">
        <table className="data-table monitors-table">
          <thead>
            <tr>
              <th>Key</th>
              <th>Unit</th>
              {caps.map((c) => (
                <Fragment key={c}>
                  <th className="num" style={{ color: captureColor(ctx.captures.indexOf(c)) }} title={`${d.labels[c] ?? c} (${c}): the mean of its runs`}>
                    {d.labels[c] ?? c}
                    <span className="muted"> ({c === d.baseline ? `baseline, ${runsWords(d.rows, c)}` : runsWords(d.rows, c)})</span>
                  </th>
                  {c !== d.baseline && (
                    <th className="num" title="this capture's mean against the baseline's">
                      vs base
                    </th>
                  )}
                </Fragment>
              ))}
            </tr>
          </thead>
          <tbody>
            {d.rows.map((r) => {
              const k = `${r.source}/${r.key}`;
              return (
                <tr key={k} className={k === key ? 'selected' : undefined} onClick={() => !r.key.endsWith('%') && setState({ ...state, key: k })} style={{ cursor: r.key.endsWith('%') ? 'default' : 'pointer' }}>
                  <td className="mono">{k}</td>
                  <td className="muted">{r.unit}</td>
                  {caps.map((c) => {
                    const x = r.cells[c];
                    return (
                      <Fragment key={c}>
                        <td className="num" title={x ? `${formatMonitor(x.value, r.unit)} (${formatMonitor(x.lo, r.unit)}–${formatMonitor(x.hi, r.unit)} over ${x.runs} run${x.runs === 1 ? '' : 's'})` : 'not in this capture'}>
                          {x ? formatMonitor(x.value, r.unit) : '–'}
                        </td>
                        {c !== d.baseline && <td className="num muted">{x && x.ratio !== null && x.ratio !== undefined ? formatRatio(x.ratio) : ''}</td>}
                      </Fragment>
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {series.error && <ErrorBox error={series.error} title={key ?? 'Monitor'} />}
      {s && (
        <BandChart
          width={full ? 1800 : 1100}
          height={220}
          x={{ kind: 'linear', unit: ' s' }}
          series={s.series.map((x) => ({
            key: x.capture,
            label: x.label,
            color: captureColor(Math.max(0, ctx.captures.indexOf(x.capture))),
            dash: '',
            points: x.points.map((p) => ({ x: p.t_s, mean: p.mean, lo: p.lo, hi: p.hi, title: `${x.label} at ${p.t_s.toFixed(2)} s: ${formatMonitor(p.mean, s.unit)}${monitorShowsUnit(s.unit) ? '' : ` ${s.unit}`} (mean of ${p.n} run${p.n === 1 ? '' : 's'})` })),
          }))}
          bands
          yLabel={(v) => formatMonitor(v, s.unit)}
          xTitle="time since the run started"
          ariaLabel={`${s.source}/${s.key} over time`}
          note={`${s.source}/${s.key}${s.unit ? ` (${s.unit})` : ''}${s.counter ? ': the change between samples, per second' : ''}; mean of the runs, band: min–max`}
        />
      )}
    </div>
  );
}
