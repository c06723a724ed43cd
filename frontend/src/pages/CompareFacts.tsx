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
import { formatBytes } from '../logic/format';

type Values = Record<string, string | null | undefined>;

/**
 * The column grid every table of a comparison's head shares (the captures, the kernel and workload
 * facts, the differing host facts, the whole .config diff): the fact names in a first column of one
 * width, then one column of one width per capture (styles.css .head-grid, table-layout: fixed), so a
 * capture's values sit at the same x from one table to the next.
 */
export function HeadCols({ cols }: { cols: string[] }) {
  return (
    <colgroup>
      <col className="head-grid-fact" />
      {cols.map((id) => (
        <col key={id} />
      ))}
    </colgroup>
  );
}

/** A fact's name that may wrap after its dots and underscores (kernel.config.options.CONFIG_HZ), not mid-word. */
export function FactName({ name }: { name: string }) {
  const parts = name.split(/(?<=[._])/);
  return (
    <>
      {parts.map((p, i) => (
        <span key={i}>
          {p}
          {i < parts.length - 1 && <wbr />}
        </span>
      ))}
    </>
  );
}

/**
 * A fact's value as shown: an integer (a count, HZ, a size) in tabular figures, a byte count (a key ending
 * in `_bytes`) with its unit (formatBytes; the exact count in the tooltip). A version such as 6.1 is text.
 */
export function factValue(key: string, v: string): { text: string; num: boolean; raw?: string } {
  if (!/^-?\d+$/.test(v)) return { text: v, num: false };
  if (/_bytes$/.test(key)) return { text: formatBytes(Number(v)), num: true, raw: `${v} bytes` };
  return { text: v, num: true };
}

/** One row's values, one cell per capture, marked where they differ from the baseline's. */
export function ValueCells({ fact, values, cols, baseline, missing = '–', extraClass = '' }: { fact: string; values: Values; cols: string[]; baseline: string; missing?: string; extraClass?: string }) {
  const base = values[baseline] ?? null;
  return (
    <>
      {cols.map((id) => {
        const v = values[id] ?? null;
        const differs = id !== baseline && v !== base;
        const shown = v === null ? null : factValue(fact, v);
        const title = [shown?.raw, differs ? `differs from the baseline (${base ?? 'null'})` : undefined].filter(Boolean).join('; ');
        return (
          <td key={id} className={`mono${shown?.num ? ' num' : ''}${differs ? ' differs' : ''}${extraClass}`} title={title || undefined}>
            {shown ? shown.text : <span className="muted">{missing}</span>}
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
    <>
      <HeadCols cols={cols} />
      <thead>
      <tr>
        <th>Fact</th>
        {cols.map((id) => (
          <th key={id}>{labels.get(id) ?? id}</th>
        ))}
      </tr>
      </thead>
    </>
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
        <table className="data-table diff-table head-grid kernel-facts">
          {head}
          <tbody>
            <tr>
              <th>Kernel release</th>
              <ValueCells fact="kernel.release" values={f.kernels} cols={cols} baseline={cmp.baseline} />
            </tr>
            {f.kernel_options.map((o) => (
              <tr key={o.option}>
                <th className="mono" title={o.why}>
                  <FactName name={o.option} />
                </th>
                <ValueCells fact={o.option} values={o.values} cols={cols} baseline={cmp.baseline} />
              </tr>
            ))}
            {f.workload_diff.map((d) => (
              <tr key={d.key}>
                <th className="mono">
                  <FactName name={d.key} />
                </th>
                <ValueCells fact={d.key} values={d.values} cols={cols} baseline={cmp.baseline} />
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
      <table className="data-table diff-table head-grid">
        {head}
        <tbody>
          {q.data.options.map((d) => (
            <tr key={d.key}>
              <th className="mono">
                <FactName name={d.key} />
              </th>
              <ValueCells fact={d.key} values={d.values} cols={cols} baseline={baseline} />
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
