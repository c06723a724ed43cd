import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { bundleUrl, fetchCapture, type CaptureDetail, type FioComparison } from '../api/client';
import { useFioComparison } from '../api/queries';
import { useQuery } from '../api/useQuery';
import { ErrorBox } from '../components/ErrorBox';
import { formatBytes, formatDate, formatDuration, formatSpread, formatValue } from '../logic/format';
import { probeRows } from '../logic/probes';
import { shellJoin } from '../logic/shell';
import { Link } from '../components/router';
import { captureNotebookUrl } from '../state/url';
import { ProbeHeadlines } from './CaptureHeadlines';

export function CapturePage({ id }: { id: string }) {
  const q = useQuery(`capture:${id}`, () => fetchCapture(id));
  const label = q.data?.label;
  useEffect(() => {
    document.title = `${label ?? id} · capture · iolens`;
  }, [label, id]);
  return (
    <div className="page">
      <div className="breadcrumb">
        <Link to="/">Captures</Link> / <span className="mono">{id}</span>
      </div>
      {q.loading && <p className="muted">Loading capture…</p>}
      {q.error && <ErrorBox error={q.error} title={`Cannot show capture ${id}`} />}
      {q.data && <CaptureBody c={q.data} />}
    </div>
  );
}

function CaptureBody({ c }: { c: CaptureDetail }) {
  const [factFilter, setFactFilter] = useState('');
  const facts = useMemo(() => {
    const f = factFilter.toLowerCase();
    return f ? c.host.filter((h) => h.key.toLowerCase().includes(f) || (h.value ?? '').toLowerCase().includes(f)) : c.host;
  }, [c.host, factFilter]);
  const artifactsByRun = useMemo(() => {
    const m = new Map<string, number>();
    for (const a of c.artifacts) if (a.run_id) m.set(a.run_id, (m.get(a.run_id) ?? 0) + 1);
    return m;
  }, [c.artifacts]);

  return (
    <>
      <div className="toolbar">
        <h1>{c.label}</h1>
        <span className="chips">
          {Object.entries(c.tags).map(([k, v]) => (
            <span key={k} className="chip">
              <span className="chip-key">{k}</span>
              {v}
            </span>
          ))}
        </span>
        <div className="spacer" />
        <Link className="button primary" to={captureNotebookUrl(c.id)} title="Its flame graph, scheduler, block, off-CPU and other cells for what it recorded, in a new notebook">
          Open in a notebook
        </Link>
        <a className="button" href={bundleUrl(c.id)} download>
          Download bundle <span className="muted">({formatBytes(c.bundle_bytes)})</span>
        </a>
      </div>

      <dl className="facts-grid">
        <Fact k="Capture id" v={<span className="mono">{c.id}</span>} />
        <Fact k="Kernel" v={<span className="mono">{c.kernel ?? '–'}</span>} />
        <Fact k="Host" v={c.hostname ?? '–'} />
        <Fact k="Captured (UTC)" v={formatDate(c.created_at, true)} />
        <Fact k="Ingested (UTC)" v={formatDate(c.ingested_at, true)} />
        <Fact k="Workload" v={<><span className="kind-badge">{c.workload_kind}</span> {c.workload_summary ?? ''}</>} />
        <Fact k="Runs" v={`${c.runs} (up to ${c.repeats} repeats of one point)`} />
        <Fact k="Collector" v={`${String(c.collector['name'] ?? '')} ${String(c.collector['version'] ?? '')}`} />
        <Fact k="Bundle sha256" v={<span className="mono small">{c.bundle_sha256}</span>} />
      </dl>

      {(c.warnings.length > 0 || c.notes.length > 0) && (
        <section className="section">
          <h2>Notes and warnings</h2>
          <ul className="notes">
            {c.warnings.map((w) => (
              <li key={`w${w}`} className="warn">
                ⚠ {w}
              </li>
            ))}
            {c.notes.map((n) => (
              <li key={`n${n}`}>{n}</li>
            ))}
          </ul>
        </section>
      )}

      {c.workload_kind === 'fio' && <FioResults c={c} />}

      <ProbeHeadlines id={c.id} />

      <section className="section">
        <h2>
          Runs <span className="muted count">{c.runs_detail.length}</span>
        </h2>
        <div className="table-scroll">
          <table className="data-table">
            <thead>
              <tr>
                <th>Run</th>
                <th className="num">#</th>
                <th className="num">Repeat</th>
                <th>Parameters</th>
                <th>Started (UTC)</th>
                <th className="num">Duration</th>
                <th className="num">Exit</th>
                <th className="num">Files</th>
                <th>Command</th>
              </tr>
            </thead>
            <tbody>
              {c.runs_detail.map((r) => (
                <tr key={r.id}>
                  <td className="mono">{r.id}</td>
                  <td className="num">{r.index}</td>
                  <td className="num">{r.repeat}</td>
                  <td className="mono small">
                    {Object.entries(r.params)
                      .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
                      .join(' ') || <span className="muted">–</span>}
                  </td>
                  <td className="num" title={`${r.started_at ?? ''} → ${r.ended_at ?? ''}`}>
                    {formatDate(r.started_at, true)}
                  </td>
                  <td className="num">{formatDuration(r.started_at, r.ended_at)}</td>
                  <td className={`num ${r.exit_code ? 'status-bad' : ''}`}>{r.exit_code ?? '–'}</td>
                  <td className="num">{artifactsByRun.get(r.id) ?? 0}</td>
                  <td className="mono small cmdline">{shellJoin(r.cmdline)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <ProbesTable runs={c.runs_detail} />
      </section>

      <div className="two-col">
        <section className="section">
          <h2>
            Host facts <span className="muted count">{c.host.length}</span>
          </h2>
          <input type="search" className="small-filter" placeholder="Filter facts…" value={factFilter} onChange={(e) => setFactFilter(e.target.value)} aria-label="Filter host facts" />
          <div className="table-scroll">
          <table className="data-table kv-table">
            <tbody>
              {facts.map((h) => (
                <tr key={h.key}>
                  <th className="mono">{h.key}</th>
                  <td className="mono">{h.value ?? <span className="muted">null</span>}</td>
                </tr>
              ))}
            </tbody>
          </table>
          </div>
        </section>
        <section className="section">
          <h2>
            Artifacts <span className="muted count">{c.artifacts.length}</span>
          </h2>
          <div className="table-scroll">
          <table className="data-table">
            <thead>
              <tr>
                <th>Run</th>
                <th>Kind</th>
                <th>Path</th>
                <th className="num">Size</th>
                <th>sha256</th>
              </tr>
            </thead>
            <tbody>
              {c.artifacts.map((a) => (
                <tr key={a.path}>
                  <td className="mono">{a.run_id ?? <span className="muted">capture</span>}</td>
                  <td>
                    <span className="kind-badge">{a.kind}</span>
                  </td>
                  <td className="mono small">{a.path}</td>
                  <td className="num" title={`${a.size} bytes`}>
                    {formatBytes(a.size)}
                  </td>
                  <td className="mono small muted" title={a.sha256}>
                    {a.sha256.slice(0, 12)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          </div>
          <h2 className="section-gap">Workload</h2>
          <pre className="json">{JSON.stringify(c.workload, null, 2)}</pre>
        </section>
      </div>
    </>
  );
}

function Fact({ k, v }: { k: string; v: ReactNode }) {
  return (
    <div>
      <dt>{k}</dt>
      <dd>{v}</dd>
    </div>
  );
}

/** What each perf probe of a run recorded, against perf stat's count, and what it cost. */
function ProbesTable({ runs }: { runs: CaptureDetail['runs_detail'] }) {
  const rows = useMemo(() => probeRows(runs), [runs]);
  if (!rows.length) return null;
  return (
    <>
      <h3 className="sub-title">
        Probes <span className="muted">recorded vs counted, and the recorder's cost</span>
      </h3>
      <div className="table-scroll">
        <table className="data-table probes-table" data-testid="probes-table">
          <thead>
            <tr>
              <th>Run</th>
              <th>Probe</th>
              <th>Source</th>
              <th className="num">Events</th>
              <th className="num">Over</th>
              <th className="num">Rate</th>
              <th className="num" title="CPU time of perf record over the run, and its share of one CPU">perf CPU</th>
              <th className="num" title="perf.data (or blktrace's files) as recorded">Recorded</th>
              <th className="num" title="the compressed text kept in the bundle">Kept</th>
              <th className="num" title="--probe-max-mb: perf record --max-size">Cap</th>
              <th>Recorded / counted by perf stat</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.run}/${r.probe}`} data-probe={r.probe}>
                <td className="mono">{r.run}</td>
                <td className="mono">{r.flag}</td>
                <td>{r.source}</td>
                <td className="num">{r.events}</td>
                <td className="num">{r.duration}</td>
                <td className="num">{r.rate}</td>
                <td className={`num${r.cpuHigh ? ' status-warn' : ''}`} title={r.cpuTitle}>
                  {r.cpu}
                </td>
                <td className="num">{r.data}</td>
                <td className="num">{r.kept}</td>
                <td className={`num${r.capReached ? ' status-bad' : ''}`} title={r.capReached ? 'the recording stopped at the cap: it covers only part of the run' : 'not reached'}>
                  {r.cap}
                  {r.capReached && ' reached'}
                </td>
                <td className="counts">
                  {r.counts.length === 0 && <span className="muted">–</span>}
                  {r.counts.map((c) => (
                    <span key={c.event} className={`probe-count${c.short ? ' status-bad' : ''}`} title={c.title}>
                      <span className="mono">{c.event}</span> {c.text}
                    </span>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** The fio metrics of the summary, in this order (the comparison's keys). */
const FIO_SUMMARY = ['iops', 'bw', 'clat_mean', 'clat_p50', 'clat_p99', 'clat_p99_9', 'usr_cpu', 'sys_cpu'];

/**
 * fio's results of each run, as the comparison reads them (the same numbers, one capture): IOPS,
 * bandwidth, completion latency mean and percentiles, CPU; per job and direction, then the mean and
 * spread over the repeats.
 */
function FioResults({ c }: { c: CaptureDetail }) {
  const q = useFioComparison([c.id], c.id);
  const params = useMemo(() => new Map(c.runs_detail.map((r) => [r.id, Object.entries(r.params).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ')])), [c.runs_detail]);
  return (
    <section className="section" data-testid="fio-results">
      <h2>
        fio results <span className="muted count">per run, from each run&apos;s fio JSON (completion latency: clat)</span>
      </h2>
      {q.error && <ErrorBox error={q.error} title="Cannot read the fio results" />}
      {q.loading && <p className="muted">Loading fio results…</p>}
      {q.data && <FioResultsTable cmp={q.data} id={c.id} params={params} />}
    </section>
  );
}

function FioResultsTable({ cmp, id, params }: { cmp: FioComparison; id: string; params: Map<string, string> }) {
  if (!cmp.groups.length) return <p className="muted">No fio results in this capture.</p>;
  const anyParams = [...params.values()].some((p) => p !== '');
  return (
    <div className="table-scroll">
      {cmp.groups.map((g) => {
        const metrics = FIO_SUMMARY.map((k) => g.metrics.find((m) => m.metric === k)).filter((m): m is NonNullable<typeof m> => !!m);
        const runs = [...new Set(metrics.flatMap((m) => m.cells[id]?.runs ?? []))];
        return (
          <table key={`${g.job}/${g.ddir}`} className="data-table fio-results" data-job={g.job} data-ddir={g.ddir}>
            <caption>
              job <span className="mono">{g.job}</span> <span className="kind-badge">{g.ddir}</span>
            </caption>
            <thead>
              <tr>
                <th>Run</th>
                {anyParams && <th>Point</th>}
                {metrics.map((m) => (
                  <th key={m.metric} className="num" title={m.description}>
                    {m.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {runs.map((r) => (
                <tr key={r} data-run={r}>
                  <td className="mono">{r}</td>
                  {anyParams && <td className="mono small">{params.get(r) ?? ''}</td>}
                  {metrics.map((m) => {
                    const cell = m.cells[id];
                    const k = cell ? cell.runs.indexOf(r) : -1;
                    return (
                      <td key={m.metric} className="num">
                        {cell && k >= 0 ? formatValue(cell.values[k], m.unit) : '–'}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
            {!anyParams && runs.length > 1 && (
              <tfoot>
                <tr>
                  <th title="Mean over the repeats; ± the sample standard deviation (n ≥ 3) or min–max (n = 2)">mean of {runs.length}</th>
                  {metrics.map((m) => {
                    const cell = m.cells[id];
                    return (
                      <td key={m.metric} className="num">
                        {cell ? formatValue(cell.mean, m.unit) : '–'}
                        {cell && <div className="muted small">{formatSpread(cell, m.unit)}</div>}
                      </td>
                    );
                  })}
                </tr>
              </tfoot>
            )}
          </table>
        );
      })}
    </div>
  );
}
