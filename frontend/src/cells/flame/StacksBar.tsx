// The views of one capture's stacks (flame graph, inverted tree, sandwich), the order of
// siblings, the transforms (chips, removable), the menu of a frame or a function, and their keys:
// speedscope's 1/2/3 (flame graph by name, left heavy, sandwich), 4 (inverted) and 5 (time order), and Firefox
// Profiler's transform keys on the current function (the sandwich's, or the zoomed frame):
// f focus, m merge, d drop, r collapse recursion, R (shift r) collapse direct recursion only. When
// the stacks hold runs of `[unknown]` frames, a button offers collapsing them (drec:[unknown]); it
// is not on by default: perf report, inferno, flamegraph.pl and speedscope all show every frame, the
// folded export is inferno's text, and the transform costs a pass over every stack at first paint
// (docs/flame-graphs.md).
import { useDismiss } from '../../components/dismiss';
import { useShortcut } from '../../components/shortcuts';
import { TRANSFORM_LABEL, type Transform, type TransformOp } from '../../logic/flameStacks';
import { UNKNOWN } from './layouts';
import type { FlameState, StacksView } from './state';

const VIEWS: { v: StacksView; label: string; key: string; title: string }[] = [
  { v: 'graph', label: 'Graph', key: '1', title: 'Every stack from the root (1: by name, 2: left heavy)' },
  { v: 'inverted', label: 'Inverted tree', key: '4', title: 'Bottom-up: the functions where samples end, expandable to their callers (4)' },
  { v: 'sandwich', label: 'Sandwich', key: '3', title: 'One function: its callers above, its callees below, merged over every place it appears (3)' },
  { v: 'time', label: 'Time order', key: '5', title: 'One thread or CPU against time: consecutive samples with the same frames merged into boxes (5)' },
];

export const OPS: TransformOp[] = ['focus', 'merge', 'drop', 'rec', 'drec'];
const OP_KEY: Record<TransformOp, string> = { focus: 'f', merge: 'm', drop: 'd', rec: 'r', drec: 'R' };
const OP_TITLE: Record<TransformOp, string> = {
  focus: 'Keep only the samples with this function, from its outermost call: it becomes the root',
  merge: 'Remove its frames: its own samples count for its callers',
  drop: 'Remove every sample with this function in its stack',
  rec: 'Between its outermost and innermost call, remove the frames (A F B F C becomes A F C)',
  drec: 'A run of consecutive frames of this function becomes one frame (A F F F B becomes A F B); the tooltip says how many it stands for',
};

export function addTransform(state: FlameState, op: TransformOp, name: string): Partial<FlameState> {
  const t: Transform = { op, name };
  if (state.transforms.some((x) => x.op === op && x.name === name)) return {};
  const patch: Partial<FlameState> = { transforms: [...state.transforms, t], zoom: [] };
  // a function dropped or merged has no sandwich any more (and is no longer the time order's current one)
  if ((op === 'drop' || op === 'merge') && state.fn === name) Object.assign(patch, state.show === 'sandwich' ? { show: 'graph' } : { fn: null });
  return patch;
}

/** `unknownRun`: the longest run of `[unknown]` frames in the stacks (unknownRun in layouts.ts). */
export function StacksBar({ state, set, missing, current, unknownRun = 0 }: { state: FlameState; set: (p: Partial<FlameState>) => void; missing: Transform[]; current: string | null; unknownRun?: number }) {
  useShortcut('1', () => set({ show: 'graph', order: 'name' }));
  useShortcut('2', () => set({ show: 'graph', order: 'heavy' }));
  useShortcut('3', () => set({ show: 'sandwich', ...(state.fn === null && current ? { fn: current } : {}) }));
  useShortcut('4', () => set({ show: 'inverted' }));
  useShortcut('5', () => set({ show: 'time' }));
  useShortcut('f', () => current && set(addTransform(state, 'focus', current)), !!current);
  useShortcut('m', () => current && set(addTransform(state, 'merge', current)), !!current);
  useShortcut('d', () => current && set(addTransform(state, 'drop', current)), !!current);
  useShortcut('r', () => current && set(addTransform(state, 'rec', current)), !!current);
  useShortcut('R', () => current && set(addTransform(state, 'drec', current)), !!current);
  const offerUnknown = unknownRun > 1 && !state.transforms.some((t) => t.op === 'drec' && t.name === UNKNOWN);
  const remove = (k: number) => set({ transforms: state.transforms.filter((_, j) => j !== k), zoom: [] });
  return (
    <div className="stacks-bar" data-testid="stacks-bar">
      <div className="segmented" role="group" aria-label="View of the stacks">
        {VIEWS.map((x) => (
          <button key={x.v} type="button" className={`toggle${state.show === x.v ? ' on' : ''}`} aria-pressed={state.show === x.v} title={x.title} onClick={() => set({ show: x.v })}>
            {x.label} <kbd>{x.key}</kbd>
          </button>
        ))}
      </div>
      {state.show !== 'inverted' && state.show !== 'time' && (
        <div className="segmented" role="group" aria-label="Order of siblings">
          <button type="button" className={`toggle${state.order === 'name' ? ' on' : ''}`} aria-pressed={state.order === 'name'} title="Siblings by name, as inferno and flamegraph.pl sort them (1)" onClick={() => set({ order: 'name' })}>
            A–Z
          </button>
          <button type="button" className={`toggle${state.order === 'heavy' ? ' on' : ''}`} aria-pressed={state.order === 'heavy'} title="The heaviest sibling first, at the left, at every level (speedscope's left heavy) (2)" onClick={() => set({ order: 'heavy' })}>
            Left heavy
          </button>
        </div>
      )}
      {offerUnknown && (
        <button
          type="button"
          className="toggle unknown-offer"
          data-testid="collapse-unknown"
          title={`These stacks hold runs of up to ${unknownRun} [unknown] frames in a row: perf's frame-pointer unwinder walking code built without frame pointers (fio's), up to perf's depth limit. Collapse each run into one [unknown] frame (its tooltip says how many it stands for); totals do not change. A transform like the others: in the link, the saved notebook and the exports.`}
          onClick={() => set(addTransform(state, 'drec', UNKNOWN))}
        >
          Collapse runs of <code>{UNKNOWN}</code> <span className="muted">(up to {unknownRun} deep)</span>
        </button>
      )}
      {state.transforms.length > 0 && (
        <div className="transforms" role="list" aria-label="Transforms" data-testid="transforms">
          {state.transforms.map((t, k) => {
            const gone = missing.some((m) => m.op === t.op && m.name === t.name);
            return (
              <span key={`${t.op}:${t.name}`} role="listitem" className={`chip${gone ? ' gone' : ''}`} title={gone ? `${t.name} is not in these stacks: skipped` : OP_TITLE[t.op]}>
                <span className="op">{k + 1}. {TRANSFORM_LABEL[t.op]}</span> <code>{t.name}</code>
                <button type="button" className="icon-button" aria-label={`Remove: ${TRANSFORM_LABEL[t.op]} ${t.name}`} onClick={() => remove(k)}>
                  ×
                </button>
              </span>
            );
          })}
          {state.transforms.length > 1 && (
            <button type="button" className="link-button" onClick={() => set({ transforms: [], zoom: [] })}>
              Clear all
            </button>
          )}
        </div>
      )}
    </div>
  );
}

/** The actions on one function: sandwich, the four transforms, at (x, y) in the window. */
export function FunctionMenu({ name, x, y, state, set, onClose }: { name: string; x: number; y: number; state: FlameState; set: (p: Partial<FlameState>) => void; onClose: () => void }) {
  useDismiss(onClose);
  const act = (p: Partial<FlameState>) => {
    set(p);
    onClose();
  };
  const style: React.CSSProperties = { left: Math.min(x, window.innerWidth - 300), top: Math.min(y, window.innerHeight - 200) };
  return (
    <div className="fn-menu" role="menu" style={style} data-testid="function-menu" onClick={(e) => e.stopPropagation()}>
      <div className="fn-menu-name" title={name}>
        {name}
      </div>
      <button type="button" role="menuitem" onClick={() => act({ show: 'sandwich', fn: name })}>
        Callers and callees (sandwich) <kbd>3</kbd>
      </button>
      {OPS.map((op) => (
        <button key={op} type="button" role="menuitem" title={OP_TITLE[op]} onClick={() => act(addTransform(state, op, name))}>
          {TRANSFORM_LABEL[op]} this function <kbd>{OP_KEY[op]}</kbd>
        </button>
      ))}
    </div>
  );
}
