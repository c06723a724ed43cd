// The notebook's one shared time selection: the `sel` of its first timeline cell that has one. It
// lives in that cell's state, so it is in the URL and the saved notebook with it; the flame, block
// and scheduler cells read it from the notebook context (cells/types.ts NotebookContext.time).
import { panRange, zoomRange } from '../../logic/blockPlan';
import { hasData, type DataKey } from '../../logic/dataKinds';
import type { TimelineState } from './state';

export interface SharedTime {
  /** The capture and run the range was brushed on. */
  capture: string;
  run: string;
  /** ns since the run's start (its clock reading: the block views' time 0). */
  from: number;
  to: number;
}

interface Cell {
  kind: string;
  state: unknown;
}

/**
 * The run a timeline cell shows, and so the run its selection is of: its `run=`, else the
 * capture's first run (`runs` in run order); null when the capture has no runs. The exports keep
 * the same rule (backend/iolens/store/rules/timeline_run.py; testdata/vectors/timeline-run.json).
 */
export function timelineRun(named: string | null, runs: readonly string[]): string | null {
  return named ?? runs[0] ?? null;
}

/** The run a timeline view draws: `named` when the capture has it, else its first run, else null
 *  (a named run the capture lacks stays the selection's run: `timelineRun`). Same rule and vectors. */
export function shownRun(named: string | null, runs: readonly string[]): string | null {
  return named !== null && runs.includes(named) ? named : (runs[0] ?? null);
}

/** What a view says when its `run=` is not among the capture's runs (null: nothing to say). Same rule
 *  and vectors (store/rules/timeline_run.py missing_run_notice). */
export function missingRunNotice(named: string | null, runs: readonly string[]): string | null {
  if (named === null || runs.includes(named)) return null;
  return runs.length ? `run ${named} is not in this capture; showing ${runs[0]}` : `run ${named} is not in this capture, which has no runs`;
}

/** The capture a timeline view draws: its `cap=` when the notebook has that capture, else the
 *  notebook's baseline (a `cap=` the notebook lacks stays the selection's capture, as a missing
 *  run= does). The exports keep the same rule (store/rules/timeline_run.py shown_capture;
 *  testdata/vectors/timeline-run.json `captures`). */
export function shownCapture(named: string | null, captures: readonly string[], baseline: string): string {
  return named !== null && captures.includes(named) ? named : baseline;
}

/** What a view says when its `cap=` is not one of the notebook's captures (null: nothing to say);
 *  `name` gives a capture's name (its label in the app). Same rule and vectors. */
export function missingCaptureNotice(named: string | null, captures: readonly string[], baseline: string, name: (id: string) => string = (id) => id): string | null {
  if (named === null || captures.includes(named)) return null;
  return `capture ${named} is not in this notebook; showing ${name(baseline)}, its baseline`;
}

/** The shared selection of a notebook's cells and the index of the cell holding it (null: none).
 *  A timeline cell without cap names the baseline; without run, the run the cell shows
 *  (timelineRun): `runsOf` gives a capture's runs, null while they are not known yet, and until
 *  then a selection without run= is not applied (never another run's). */
export function sharedTimeOf(cells: readonly Cell[], baseline: string, runsOf: (cap: string) => readonly string[] | null = () => null): { time: SharedTime; index: number } | null {
  for (let i = 0; i < cells.length; i++) {
    const c = cells[i]!;
    if (c.kind !== 'timeline') continue;
    const s = c.state as TimelineState;
    if (!s.sel) continue;
    const capture = s.cap ?? baseline;
    const runs = s.run ? [] : runsOf(capture);
    const run = runs ? timelineRun(s.run, runs) : null;
    return run ? { time: { capture, run, from: s.sel[0], to: s.sel[1] }, index: i } : null;
  }
  return null;
}

/** The capture whose runs sharedTimeOf needs (its first selection without run=), or null. */
export function sharedTimeCapture(cells: readonly Cell[], baseline: string): string | null {
  const c = cells.find((c) => c.kind === 'timeline' && (c.state as TimelineState).sel);
  const s = c?.state as TimelineState | undefined;
  return s && !s.run ? (s.cap ?? baseline) : null;
}

/** The cells with the shared selection cleared (every timeline cell's `sel`). */
export function clearSharedTime<C extends Cell>(cells: readonly C[]): C[] {
  return cells.map((c) => (c.kind === 'timeline' && (c.state as TimelineState).sel ? { ...c, state: { ...(c.state as TimelineState), sel: null } } : c));
}

/** "2.000–5.500 s of run r000" */
export function sharedTimeText(t: SharedTime): string {
  return `${(t.from / 1e9).toFixed(3)}–${(t.to / 1e9).toFixed(3)} s of run ${t.run}`;
}

/** "12.5 ms after the run's start", or before it (perf may start before the run's clock reading);
 *  the exports say the same (backend/iolens/exports/selection.py offset_text; testdata/vectors/run-offset-text.json). */
export function offsetText(offNs: number): string {
  return `${(Math.abs(offNs) / 1e6).toFixed(1)} ms ${offNs >= 0 ? 'after' : 'before'} the run's start`;
}

/** The selection on a track of a run, moved by that run's own offset (logic/timeline.ts runSpan). */
export { runSpan } from '../../logic/timeline';

/**
 * A run's option in the run picker: `r001 · repeat 1 · 12.34 s`. A run with no track of data has no
 * known length (the server's duration is then 0): it says "no tracks", not "0.00 s".
 */
export function runOptionText(r: { id: string; repeat: number; duration_ns: number; tracks: Record<string, boolean> }): string {
  const known = Object.values(r.tracks).some(Boolean) && r.duration_ns > 0;
  return `${r.id} · repeat ${r.repeat} · ${known ? `${(r.duration_ns / 1e9).toFixed(2)} s` : 'no tracks'}`;
}

/** The data kind behind each track of the timeline (logic/dataKinds.ts). */
const TRACK_DATA: Readonly<Record<string, DataKey>> = { cpu: 'sched', block: 'block', fio: 'fiologs', samples: 'stacks' };

/**
 * The tracks a run cannot draw although its capture recorded their data (an fio log without a
 * clock, for one), each with the server's reason: the empty state says why, not "record with".
 */
export function undrawnTracks(r: { tracks: Record<string, boolean>; notes: Record<string, string> }, capture: { artifact_kinds?: string[] } | undefined): { track: string; note: string }[] {
  if (!capture) return [];
  return Object.keys(TRACK_DATA)
    .filter((t) => r.tracks[t] === false && hasData(capture, TRACK_DATA[t]!) && r.notes[t])
    .map((t) => ({ track: t, note: r.notes[t]! }));
}

/**
 * The timeline's keys (Perfetto's W S A D, and the block charts' + - ← →): the window shown after
 * `key`, null for the whole run, or undefined for a key it does not use. W / + zoom in on the
 * window's centre, S / - out, A / ← and D / → pan by a quarter of it, 0 and Esc show the whole run.
 */
export function timelineKey(key: string, win: readonly [number, number] | null, durationNs: number): [number, number] | null | undefined {
  const full = { from: 0, to: Math.max(durationNs, 1) };
  const r = win ? { from: win[0], to: win[1] } : full;
  const k = key.length === 1 ? key.toLowerCase() : key;
  const next = k === 'w' || k === '+' || k === '=' ? zoomRange(r, full, 0.5)
    : k === 's' || k === '-' ? zoomRange(r, full, 2)
    : k === 'a' || k === 'ArrowLeft' ? panRange(r, full, -0.25)
    : k === 'd' || k === 'ArrowRight' ? panRange(r, full, 0.25)
    : k === '0' || k === 'Escape' ? full
    : undefined;
  if (next === undefined) return undefined;
  return next.from <= full.from && next.to >= full.to ? null : [next.from, next.to];
}
