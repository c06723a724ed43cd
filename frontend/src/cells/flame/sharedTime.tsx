// The notebook's shared time selection (a timeline cell's brush) in the flame cell: the run and range
// of one capture's graph. The timeline counts from the run's start, the flame graph from the run's
// first sample: the timeline's overview gives the offset between them (samples_offset_ns).
import type { ReactNode } from 'react';
import { useTimelineOverview } from '../../api/queries';
import { offsetText, runSpan } from '../timeline/shared';
import { TimeApplied } from '../timeline/TimeApplied';
import type { NotebookContext } from '../types';
import type { FlameState } from './state';

export function useSharedTime(ctx: NotebookContext, cap: string, diff: boolean, state: FlameState): { state: FlameState; notice: ReactNode } {
  const t = ctx.time ?? null;
  const ov = useTimelineOverview(t && !diff && t.capture === cap ? cap : null);
  if (!t) return { state, notice: null };
  if (diff || t.capture !== cap) {
    const why = diff ? 'not applied to a difference of two captures (it is a range of one run)' : 'of another capture: not applied to this graph';
    return { state, notice: <TimeApplied time={t} onClear={ctx.clearTime}>{why}</TimeApplied> };
  }
  const off = ov.data?.runs.find((r) => r.id === t.run)?.samples_offset_ns;
  if (off === undefined || off === null) {
    const why = !ov.data ? 'reading the run…' : ov.data.runs.some((r) => r.id === t.run) ? `run ${t.run} has no perf samples: not applied` : `run ${t.run} is not in this capture: not applied`;
    return { state, notice: <TimeApplied time={t} onClear={ctx.clearTime}>{why}</TimeApplied> };
  }
  const [from, to] = runSpan(t.from, t.to, off);
  const applied = { ...state, runs: [t.run], from: from || null, to, rangeB: null };
  const own = ownRangesText(state);
  const notice = (
    <TimeApplied time={t} onClear={ctx.clearTime}>
      applied: run {t.run}, {(from / 1e9).toFixed(3)}–{(to / 1e9).toFixed(3)} s since its first sample (the flame graph&apos;s time 0, {offsetText(off)})
      {own && <span data-testid="time-overrides">, in place of the cell&apos;s own {own}</span>}
    </TimeApplied>
  );
  return { state: applied, notice };
}

/** The cell's own time range(s) and runs that the timeline's selection replaces, in words, or null
 *  without any (the text and HTML reports say the same: exports/flame.py own_ranges_text). */
export function ownRangesText(s: Pick<FlameState, 'from' | 'to' | 'rangeB' | 'runs'>): string | null {
  const sec = (ns: number | null) => ((ns ?? 0) / 1e9).toFixed(3);
  const span = (a: number | null, b: number | null) => (b === null ? `${sec(a)} s to the end` : `${sec(a)}–${sec(b)} s`);
  const parts: string[] = [];
  if (s.rangeB) parts.push(`ranges A ${span(s.from, s.to)} and B ${span(s.rangeB.from, s.rangeB.to)}`);
  else if (s.from !== null || s.to !== null) parts.push(`range ${span(s.from, s.to)}`);
  if (s.runs?.length) parts.push(`run${s.runs.length === 1 ? '' : 's'} ${s.runs.join(', ')}`);
  return parts.length ? parts.join(' of ') : null;
}
