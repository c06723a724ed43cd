// Two time ranges of one capture as a difference (FlameScope's compare): range A (the state's t=)
// before, range B (tb=) after, on the runs of the selection; the heatmap above to change them.
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
      />
    </>
  );
}
