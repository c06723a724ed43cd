// Choices of the flame graph's selectors, shaped from the API's answer. Pure; tests in
// flameSelect.test.ts.

export interface RunLike {
  id: string;
  repeat: number;
  params: Record<string, unknown>;
}

export interface RunOption {
  value: string;
  label: string;
  /** The runs merged (null: all). */
  runs: string[] | null;
}

const paramsText = (p: Record<string, unknown>) =>
  Object.keys(p)
    .sort()
    .map((k) => `${k}=${typeof p[k] === 'string' ? p[k] : JSON.stringify(p[k])}`)
    .join(', ');

/** All runs merged; each parameter point with its repeats merged (when there are several points); each run. */
export function runOptions(runs: readonly RunLike[]): RunOption[] {
  const out: RunOption[] = [{ value: 'all', label: runs.length > 1 ? `All ${runs.length} runs, merged` : 'All runs', runs: null }];
  if (runs.length <= 1) return out;
  const points = new Map<string, RunLike[]>();
  for (const r of runs) {
    const k = paramsText(r.params);
    points.set(k, [...(points.get(k) ?? []), r]);
  }
  if (points.size > 1)
    for (const [k, rs] of points)
      out.push({ value: `pt:${rs.map((r) => r.id).join(',')}`, label: `${k || 'no parameters'} · ${rs.length === 1 ? '1 run' : `${rs.length} repeats merged`}`, runs: rs.map((r) => r.id) });
  for (const r of runs) {
    const p = points.size > 1 ? ` · ${paramsText(r.params) || 'no parameters'}` : '';
    out.push({ value: `run:${r.id}`, label: `Run ${r.id} · repeat ${r.repeat}${p}`, runs: [r.id] });
  }
  return out;
}

/** The option a state's run list shows as (a list no option names: a custom one). */
export function runOptionValue(options: readonly RunOption[], runs: readonly string[] | null): string {
  if (runs === null) return 'all';
  const key = [...runs].sort().join(',');
  return options.find((o) => o.runs !== null && [...o.runs].sort().join(',') === key)?.value ?? 'custom';
}

/** Seconds as typed ('1.5', '', '2e-3') -> ns, null for empty, Error for junk. */
export function parseSeconds(text: string): number | null | Error {
  const t = text.trim();
  if (t === '') return null;
  const v = Number(t);
  if (!Number.isFinite(v) || v < 0) return new Error(`'${text}' is not a number of seconds`);
  return Math.round(v * 1e9);
}

export const secondsText = (ns: number | null) => (ns === null ? '' : String(+(ns / 1e9).toFixed(6)));

/** Escape a function name for a search that matches exactly it. */
export const exactPattern = (name: string) => `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
