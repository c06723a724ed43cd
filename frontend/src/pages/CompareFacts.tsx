/**
 * The top of a comparison: what sets the captures apart before any number is read (GET
 * /api/compare/fio's `facts`, views/comparison.py): warnings when the numbers are not comparable
 * (accelerator, CPUs, workload, debug options), the kernel release and the .config options that
 * matter, the workload facts that differ, and the whole .config diff on demand.
 */
import { useState } from 'react';
import type { FioComparison } from '../api/client';
import { useKernelConfigDiff } from '../api/queries';
import { ErrorBox } from '../components/ErrorBox';

type Values = Record<string, string | null | undefined>;

function ValueCells({ values, cols, baseline }: { values: Values; cols: string[]; baseline: string }) {
  const base = values[baseline] ?? null;
  return (
    <>
      {cols.map((id) => {
        const v = values[id] ?? null;
        const differs = id !== baseline && v !== base;
        return (
          <td key={id} className={`mono${differs ? ' differs' : ''}`} title={differs ? `differs from the baseline (${base ?? 'null'})` : undefined}>
            {v ?? <span className="muted">–</span>}
          </td>
        );
      })}
    </>
  );
}

export function CompareFacts({ cmp, cols, labels }: { cmp: FioComparison; cols: string[]; labels: Map<string, string> }) {
  const f = cmp.facts;
  const [showConfig, setShowConfig] = useState(false);
  const allConfigs = cols.length > 1 && cols.every((c) => f.has_config[c]);
  const head = (
    <thead>
      <tr>
        <th>Fact</th>
        {cols.map((id) => (
          <th key={id}>{labels.get(id) ?? id}</th>
        ))}
      </tr>
    </thead>
  );
  return (
    <section className="compare-facts" aria-label="What sets the captures apart">
      {f.warnings.length > 0 && (
        <ul className="warn-box incomparable" role="alert">
          {f.warnings.map((w) => (
            <li key={w.what}>
              <strong>Not comparable as a kernel change: {w.what === 'kernel-config' ? 'debug options' : w.what}.</strong> {w.message}
            </li>
          ))}
        </ul>
      )}
      <div className="table-scroll">
        <table className="data-table diff-table kernel-facts">
          {head}
          <tbody>
            <tr>
              <th>Kernel release</th>
              <ValueCells values={f.kernels} cols={cols} baseline={cmp.baseline} />
            </tr>
            {f.kernel_options.map((o) => (
              <tr key={o.option}>
                <th className="mono" title={o.why}>
                  {o.option}
                </th>
                <ValueCells values={o.values} cols={cols} baseline={cmp.baseline} />
              </tr>
            ))}
            {f.workload_diff.map((d) => (
              <tr key={d.key}>
                <th className="mono">{d.key}</th>
                <ValueCells values={d.values} cols={cols} baseline={cmp.baseline} />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        {cols.some((c) => !f.has_config[c])
          ? `No kernel .config in ${cols.filter((c) => !f.has_config[c]).map((c) => labels.get(c) ?? c).join(', ')} (iolens-collect --kernel-config keeps it).`
          : f.kernel_options.length === 0
            ? 'The .config options that matter (preempt model, HZ, LOCK_STAT, BLK_DEV_IO_TRACE, debug options) are the same.'
            : 'Hover an option for what it changes in the numbers.'}{' '}
        {allConfigs && f.config_diff_count !== null && (
          <button type="button" className="link-button" aria-expanded={showConfig} onClick={() => setShowConfig(!showConfig)}>
            {showConfig ? 'Hide' : 'Show'} the whole .config diff ({f.config_diff_count} option{f.config_diff_count === 1 ? '' : 's'})
          </button>
        )}
      </p>
      {showConfig && <WholeConfigDiff cols={cols} baseline={cmp.baseline} head={head} />}
    </section>
  );
}

function WholeConfigDiff({ cols, baseline, head }: { cols: string[]; baseline: string; head: React.ReactNode }) {
  const q = useKernelConfigDiff(cols);
  if (q.error) return <ErrorBox error={q.error} title="Cannot read the .config diff" />;
  if (!q.data) return <p className="muted">Reading the .config files…</p>;
  return (
    <div className="table-scroll config-diff">
      <table className="data-table diff-table">
        {head}
        <tbody>
          {q.data.options.map((d) => (
            <tr key={d.key}>
              <th className="mono">{d.key}</th>
              <ValueCells values={d.values} cols={cols} baseline={baseline} />
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">
        {q.data.options.length} of {q.data.total_options} options differ (n: not set).
      </p>
    </div>
  );
}
