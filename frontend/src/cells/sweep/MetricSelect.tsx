import type { SweepMetric } from '../../logic/sweep';

const GROUPS: { source: string; label: string }[] = [
  { source: 'fio', label: 'fio' },
  { source: 'rusage', label: 'command (rusage)' },
  { source: 'diskstats', label: 'device (/proc/diskstats)' },
  { source: 'command', label: 'printed by the command' },
];

/** The metric menu of the sweep cells, grouped by where the numbers come from. */
export function MetricSelect({ metrics, value, onChange }: { metrics: readonly SweepMetric[]; value: string; onChange: (key: string) => void }) {
  const other = metrics.filter((m) => !GROUPS.some((g) => g.source === m.source));
  return (
    <label className="select-label">
      Metric
      <select value={value} onChange={(e) => onChange(e.target.value)} aria-label="Metric">
        {GROUPS.map((g) => {
          const ms = metrics.filter((m) => m.source === g.source);
          return ms.length ? (
            <optgroup key={g.source} label={g.label}>
              {ms.map((m) => (
                <option key={m.key} value={m.key} title={m.description}>
                  {m.label}
                  {m.unit ? ` (${m.unit})` : ''}
                </option>
              ))}
            </optgroup>
          ) : null;
        })}
        {other.map((m) => (
          <option key={m.key} value={m.key}>
            {m.label}
          </option>
        ))}
        {!metrics.some((m) => m.key === value) && <option value={value}>{value}</option>}
      </select>
    </label>
  );
}
