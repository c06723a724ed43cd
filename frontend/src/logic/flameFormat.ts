// The numbers of the flame graph cell, pure: counts, shares of all samples, weights (CPU time in
// ns, or a count of events), and the tone of a change in the differential tables. Tests in
// flameFormat.test.ts.
import { formatValue } from './format';

/** A count, with thousands separators: 12,345 (as toLocaleString('en-US') writes it, without
 *  its first call's cost: loading ICU's number formats took 40-140 ms of a flame graph's first
 *  paint). */
export const fmtInt = (n: number): string => {
  const r = Math.round(n);
  if (!Number.isFinite(r) || Math.abs(r) >= 1e21) return r.toLocaleString('en-US');
  return String(r).replace(/\B(?=(\d{3})+$)/g, ',');
};

/** A share in percent, with more decimals the smaller it is: 12.3%, 1.23%, 0.012%, 0%. */
export const fmtPct = (p: number) => (p >= 10 ? p.toFixed(1) : p >= 0.1 ? p.toFixed(2) : p > 0 ? p.toFixed(3) : '0') + '%';

/** x as a percentage of t (0 when t is 0). */
export const pctOf = (x: number, t: number) => (t > 0 ? (100 * x) / t : 0);

/** A weight in the unit of the answer: a time for 'ns' (cpu-clock, task-clock), else events. */
/** What one sample of an event is: a wait off the CPU (offcpu), a wakeup (wakeup), else a sample. */
export function sampleWord(event: string | null | undefined, n: number): string {
  const one = event === 'offcpu' ? 'wait' : event === 'wakeup' ? 'wakeup' : 'sample';
  return n === 1 ? one : `${one}s`;
}

export const fmtWeight = (w: number, unit: string) => (unit === 'ns' ? formatValue(w, 'ns') : `${fmtInt(w)} events`);

/** The class of a change in percentage points: 'grew', 'shrank', or '' within ±0.005 pp. */
export const changeTone = (v: number) => (v > 0.005 ? 'grew' : v < -0.005 ? 'shrank' : '');

/** A capture label cut for a table header: at most 18 characters. */
export const shortLabel = (s: string) => (s.length > 18 ? s.slice(0, 17) + '…' : s);
