// The capture page's probe figures: per run (block, sched, stacks) or for the capture (lock_stat,
// monitors, events), what each probe measured first, every number with its unit; hovering one
// says where it came from (GET /api/captures/{id}/headlines, backend/iolens/views/headlines.py).
import { fetchCaptureHeadlines, type HeadlineFigure, type ProbeHeadline } from '../api/client';
import { useQuery } from '../api/useQuery';
import { ErrorBox } from '../components/ErrorBox';
import { formatValue } from '../logic/format';

/** The collector flag that records each probe. */
const FLAG: Record<ProbeHeadline['probe'], string> = {
  block: '--block',
  sched: '--sched',
  stacks: '--stacks',
  offcpu: '--offcpu',
  lock_stat: '--lock-stat',
  monitors: '--monitors',
  events: '--trace',
};
const COUNTS = new Set(['', 'I/Os', 'samples', 'events', 'events/run']);

/** A figure's number with its unit: counts with thousands separators, the rest as the tables show them. */
export function formatFigure(f: Pick<HeadlineFigure, 'value' | 'unit'>): string {
  const v = f.value;
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  if (COUNTS.has(f.unit)) {
    const n = Math.abs(v) >= 100 || Number.isInteger(v) ? Math.round(v).toLocaleString('en-US') : v.toFixed(2);
    return f.unit ? `${n} ${f.unit}` : n;
  }
  return formatValue(v, f.unit);
}

function Figure({ f }: { f: HeadlineFigure }) {
  const shown = f.unit === 'text' ? null : formatFigure(f);
  return (
    <span className="figure" title={`${f.label}: ${f.source}`} data-label={f.label}>
      <span className="figure-label">{f.label}</span>{' '}
      {f.text !== null && f.text !== undefined && <span className="mono figure-text">{f.text}</span>}
      {f.text && shown && ' '}
      {shown && <b>{f.text ? `(${shown})` : shown}</b>}
    </span>
  );
}

export function ProbeHeadlines({ id }: { id: string }) {
  const q = useQuery(`headlines:${id}`, () => fetchCaptureHeadlines(id));
  if (q.error) return <ErrorBox error={q.error} title="Cannot read the probes' figures" />;
  if (q.loading || !q.data) return <p className="muted">Loading the probes&apos; figures…</p>;
  const probes = q.data.probes;
  if (!probes.length) return null;
  return (
    <section className="section" data-testid="probe-headlines">
      <h2>
        Probe figures <span className="muted count">per run where the probe is per run; hover a figure for where it came from</span>
      </h2>
      <div className="table-scroll">
        <table className="data-table headlines-table">
          <thead>
            <tr>
              <th>Probe</th>
              <th>Run</th>
              <th>Figures</th>
            </tr>
          </thead>
          <tbody>
            {probes.map((p, i) => (
              <tr key={`${p.probe}/${p.run_id ?? ''}/${i}`} data-probe={p.probe} data-run={p.run_id ?? ''}>
                <td>
                  <span className="mono">{FLAG[p.probe]}</span>
                  <div className="muted small scope">{p.scope}</div>
                </td>
                <td className="mono">{p.run_id ?? <span className="muted">all</span>}</td>
                <td className="figures">
                  {p.figures.map((f) => (
                    <Figure key={f.label} f={f} />
                  ))}
                  {p.warnings.map((w) => (
                    <div key={w} className="warn small">
                      ⚠ {w}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
