import { BandChart } from '../../charts/BandChart';
import { EmptyState } from '../../components/EmptyState';
import { ErrorBox } from '../../components/ErrorBox';
import { captureColor } from '../../logic/colors';
import { formatRaw } from '../../logic/format';
import type { CellProps } from '../types';
import { useEventsByField, useEventsRate, useEventsSummary } from './queries';
import { perRunText, perSecondText, showValue, type EventsState } from './state';

// Totals are exact counts of events (set against perf stat's count: '4,966 of 4,966'); means per run and
// rates in the app's number rule (state.ts perRunText, perSecondText: '1.655k', '552/s'), exact on hover.
const fmtCount = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
const exact = (n: number | null | undefined, unit: string) => (n === null || n === undefined ? undefined : `${formatRaw(n)} ${unit}`);
const fmtS = (s: number | null | undefined) => (s === null || s === undefined ? '–' : `${s.toFixed(3)} s`);


/** Traced events: what each capture recorded, counts per value of a field (top N + rest), rate over time. */
export function EventsCell({ ctx, state, setState, full }: CellProps<EventsState>) {
  const sum = useEventsSummary(ctx.captures);
  const names = sum.data ? [...new Set(sum.data.events.map((e) => e.event))] : [];
  const event = state.event ?? names[0] ?? null;
  const byField = useEventsByField(ctx.captures, sum.data ? event : null, state.field, state.top);
  const rate = useEventsRate(ctx.captures, sum.data ? event : null);
  if (sum.loading) return <p className="muted">Reading the traced events…</p>;
  if (sum.error) return <ErrorBox error={sum.error} title="Traced events" />;
  if (!sum.data) return null;
  if (!names.length)
    return (
      <EmptyState data="events" testId="events-empty" captures={ctx.captures} baseline={ctx.baseline} withCapture={ctx.withCapture}>
        <code>--trace</code> is repeatable and takes globs (<code>'writeback:*'</code>) and filters (<code>'block:block_rq_issue:nr_sector &gt; 8'</code>).
      </EmptyState>
    );
  const rows = sum.data.events.filter((e) => e.event === event);
  const fields = Object.keys(rows[0]?.fields ?? {});
  const lost = rows.filter((r) => r.lost);
  const d = byField.data;
  const values: (string | null)[] = [];
  for (const c of d?.captures ?? []) for (const r of c.rows) if (!r.rest && !values.includes(r.value ?? null)) values.push(r.value ?? null);
  const hasRest = (d?.captures ?? []).some((c) => c.rows.some((r) => r.rest));
  // one precision per column, so the digits line up
  return (
    <div className="events-cell">
      <div className="cell-toolbar">
        <label className="select-label">
          Event
          <select value={event ?? ''} aria-label="Event" onChange={(e) => setState({ ...state, event: e.target.value, field: null })}>
            {names.map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        <label className="select-label">
          Count by
          <select value={state.field ?? ''} aria-label="Count by field" onChange={(e) => setState({ ...state, field: e.target.value || null })}>
            <option value="">(the event alone)</option>
            {[...fields, 'cpu', 'pid', 'comm'].map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
        <label className="select-label">
          Top
          <select value={state.top} aria-label="Values shown" onChange={(e) => setState({ ...state, top: Number(e.target.value) })}>
            {[...new Set([5, 10, 20, 50, 100, 500, state.top])].sort((a, b) => a - b).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
      </div>
      {lost.length > 0 && (
        <p className="notice" role="status">
          ⚠ perf record lost {event} events in {lost.map((r) => r.label).join(', ')} (kept {lost.map((r) => `${fmtCount(r.recorded ?? 0)} of ${fmtCount(r.counted ?? 0)}`).join(', ')} that perf stat counted): counts below are low.
        </p>
      )}
      <table className="data-table events-summary">
        <thead>
          <tr>
            <th>Capture</th>
            <th className="num">Runs</th>
            <th className="num">Events</th>
            <th className="num">Per run</th>
            <th className="num">Per s</th>
            <th className="num" title="perf stat's count over the same runs">Counted</th>
            <th>SQL table</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.capture}>
              <td style={{ color: captureColor(ctx.captures.indexOf(r.capture)) }}>{r.label}</td>
              <td className="num">{r.runs}</td>
              <td className="num">{fmtCount(r.events)}</td>
              <td className="num" title={exact(r.per_run, 'events per run')}>
                {perRunText(r.per_run)}
              </td>
              <td className="num" title={exact(r.per_s, 'events per second')}>
                {perSecondText(r.per_s)}
              </td>
              <td className="num">{r.counted === null || r.counted === undefined ? '–' : fmtCount(r.counted)}</td>
              <td className="mono">{r.table}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {byField.error && <ErrorBox error={byField.error} title="Counts by field" />}
      {d && (
        <div className="table-scroll">
          <table className="data-table events-values" aria-label={`${event} per ${d.field ?? 'event'}`}>
            <thead>
              <tr>
                <th>{d.field ?? 'event'}</th>
                {d.captures.map((c) => (
                  <th key={c.capture} colSpan={3} style={{ color: captureColor(ctx.captures.indexOf(c.capture)) }}>
                    {c.label} <span className="muted">({c.runs} run{c.runs === 1 ? '' : 's'})</span>
                  </th>
                ))}
              </tr>
              <tr>
                <th />
                {d.captures.map((c) => [
                  <th key={`${c.capture}n`} className="num">
                    per run
                  </th>,
                  <th key={`${c.capture}f`} className="num" title="first event with this value, seconds since its run started">
                    first
                  </th>,
                  <th key={`${c.capture}l`} className="num" title="last event with this value, seconds since its run started">
                    last
                  </th>,
                ])}
              </tr>
            </thead>
            <tbody>
              {[...values, ...(hasRest ? ['\u0000rest'] : [])].map((v) => (
                <tr key={v ?? 'null'}>
                  <td className="mono">{v === '\u0000rest' ? <span className="muted">the rest (summed)</span> : v === null ? d.event : <span title={v}>{showValue(d.field ?? null, v)}</span>}</td>
                  {d.captures.map((c) => {
                    const r = c.rows.find((x) => (v === '\u0000rest' ? x.rest : !x.rest && (x.value ?? null) === v));
                    return [
                      <td key={`${c.capture}n`} className="num" title={r ? `${fmtCount(r.count)} events over ${c.runs} run(s): ${formatRaw(r.per_run)} per run${r.rest ? `, ${r.values} values` : ''}` : undefined}>
                        {r ? perRunText(r.per_run) : '–'}
                      </td>,
                      <td key={`${c.capture}f`} className="num muted">
                        {fmtS(r?.first_s)}
                      </td>,
                      <td key={`${c.capture}l`} className="num muted">
                        {fmtS(r?.last_s)}
                      </td>,
                    ];
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {rate.data && (
        <BandChart
          width={full ? 1800 : 1100}
          height={220}
          x={{ kind: 'linear', unit: ' s' }}
          series={rate.data.series.map((s) => ({
            key: s.capture,
            label: s.label,
            color: captureColor(Math.max(0, ctx.captures.indexOf(s.capture))),
            dash: '',
            points: s.per_s.map((v, i) => ({ x: i * rate.data!.bucket_s, mean: v, lo: v, hi: v, title: `${s.label} at ${(i * rate.data!.bucket_s).toFixed(2)} s: ${perSecondText(v)} (${formatRaw(v)} events/s)` })),
          }))}
          bands={false}
          yLabel={perSecondText}
          xTitle="time since the run started"
          ariaLabel={`${event} events per second`}
          note={`${event} events per second, buckets of ${(rate.data.bucket_s * 1000).toFixed(0)} ms, mean over each capture's runs`}
        />
      )}
    </div>
  );
}
