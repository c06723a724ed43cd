// Two time ranges of one capture as a difference (FlameScope's compare): range A (the state's t=)
// before, range B (tb=) after, on the runs of the selection; the heatmap above to change them.
import { rangeFewText } from '../../logic/flameDiff';
import { rangeText } from '../../logic/heatmap';
import { DiffView } from './DiffView';
import { TimePanel } from './TimePanel';
import { ALL_TASKS, sandwichOfRange, type FlameState } from './state';

export function RangeDiffView({ id, state, set }: { id: string; state: FlameState; set: (p: Partial<FlameState>) => void }) {
  const b = state.rangeB!;
  const sides: [string, string] = [`A ${rangeText(state.from, state.to)}`, `B ${rangeText(b.from, b.to)}`];
  const s = state.comm === ALL_TASKS ? { ...state, comm: null } : state;
  return (
    <>
      <TimePanel id={id} state={state} set={set} />
      <p className="flame-note range-diff-note" data-testid="range-diff-note">
        Difference of two time ranges of {state.runs?.length === 1 ? `run ${state.runs[0]}` : state.runs ? `runs ${state.runs.join(', ')}` : 'every run'}: widths from{' '}
        <strong>{sides[1]}</strong>, colour by the change against <strong>{sides[0]}</strong> (seconds since each run's first sample).{' '}
        <button type="button" className="link-button" onClick={() => set({ rangeB: null, zoom: [] })}>
          back to range A alone
        </button>
      </p>
      <DiffView
        a={id}
        b={id}
        state={s}
        set={set}
        rangeB={b}
        sideLabels={sides}
        onSandwich={(fn, side) => set(sandwichOfRange(fn, side, b))}
        fewNote={(data) => <RangeFew selected={data.a.runs.length} all={data.a.all_runs.length} onEveryRun={() => set({ runs: null, zoom: [] })} />}
      />
    </>
  );
}

/** Why the difference of two ranges is grey, and where the capture has enough runs, the one click
 *  that colours it: the ranges over every run (runs= dropped; the ranges stay, as seconds since
 *  each run's first sample). */
export function RangeFew({ selected, all, onEveryRun }: { selected: number; all: number; onEveryRun: () => void }) {
  const t = rangeFewText(selected, all);
  return (
    <>
      {t.text}{' '}
      {t.everyRun && (
        <button type="button" className="link-button" data-testid="range-every-run" onClick={onEveryRun}>
          the ranges over every run ({all})
        </button>
      )}
    </>
  );
}
