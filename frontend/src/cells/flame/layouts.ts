import { layoutTree, subtreeTotals, type FlameLayout } from '../../logic/flame';
import { applyTransforms, reorderTree, stacksFromTree, treeFromStacks, unknownRun, type FlameOrder, type Stacks, type Transform } from '../../logic/flameStacks';

export { UNKNOWN } from '../../logic/flameStacks';
import { diffLayout, type DiffLayout } from '../../logic/flameDiff';
import type { FlameDiffData, FlameGraphData } from './queries';

// Layouts by answer: the notebook remounts a cell when its state (the URL) changes, and the
// answers stay in the query cache, so a zoom or a search never lays a tree out again.
const layouts = new WeakMap<object, FlameLayout>();
const diffLayouts = new WeakMap<object, DiffLayout>();

export function cachedLayout(data: FlameGraphData): FlameLayout {
  let l = layouts.get(data);
  if (!l) {
    const t0 = performance.now();
    l = layoutTree({ names: data.tree.names, name: data.tree.name, depth: data.tree.depth, self: data.tree.self_weight });
    (window.__iolensFlameLayouts ??= []).push(performance.now() - t0);
    layouts.set(data, l);
  }
  return l;
}

export function cachedDiffLayout(data: FlameDiffData): DiffLayout {
  let d = diffLayouts.get(data);
  if (!d) diffLayouts.set(data, (d = diffLayout(data.tree)));
  return d;
}

/** A capture's stacks as the cell shows them: in its order, after its transforms. */
export interface ShownStacks {
  lay: FlameLayout;
  /** Samples under each node of lay (made on first call: a tooltip's, not the first paint's). */
  samples: () => Float64Array;
  /** The stacks (after the transforms), for the inverted tree and the sandwich. */
  stacks: () => Stacks;
  /** Transforms whose function is not in this selection (skipped). */
  missing: Transform[];
  /** The first frame below the root is a function (focused), not a command name. */
  focused: boolean;
  /** Per node of lay, after a `drec` transform: the fewest and most recorded frames it stands for. */
  span: { min: Int32Array; max: Int32Array } | null;
  /** Self samples of each node of lay. */
  selfSamples: ArrayLike<number>;
}

/** A frame left by a collapse of direct recursion: how many frames as recorded it stands for. */
export function spanText(min: number, max: number): string {
  return min === max ? `${max} frames in a row, as recorded` : `${min} to ${max} frames in a row, as recorded (by stack)`;
}

const runs = new WeakMap<object, number>();
/** unknownRun of an answer's tree, kept per answer. */
export function cachedUnknownRun(data: FlameGraphData): number {
  let r = runs.get(data);
  if (r === undefined) runs.set(data, (r = unknownRun(data.tree)));
  return r;
}

const views = new WeakMap<object, Map<string, ShownStacks>>();

export function cachedView(data: FlameGraphData, order: FlameOrder, transforms: readonly Transform[]): ShownStacks {
  const key = `${order}|${JSON.stringify(transforms)}`;
  let byKey = views.get(data);
  if (!byKey) views.set(data, (byKey = new Map()));
  const hit = byKey.get(key);
  if (hit) return hit;
  const t = data.tree;
  // every name as a string: only for another order or the stacks (flameNames.ts)
  const cols = () => ({ names: t.names.all(), name: t.name, depth: t.depth, self: t.self_weight, samples: t.self_samples });
  let base: Stacks | null = null;
  const baseStacks = () => (base ??= stacksFromTree(cols()));
  let v: ShownStacks;
  if (transforms.length === 0) {
    const built = order === 'name' ? null : reorderTree(cols(), order);
    const lay = built ? layoutTree(built) : cachedLayout(data);
    let samples: Float64Array | null = null;
    v = { lay, samples: () => (samples ??= subtreeTotals(lay, built ? built.samples : t.self_samples)), stacks: baseStacks, missing: [], focused: false, span: null, selfSamples: built ? built.samples : t.self_samples };
  } else {
    const { stacks, missing } = applyTransforms(baseStacks(), transforms);
    const built = treeFromStacks(stacks, order);
    const lay = layoutTree(built);
    let samples: Float64Array | null = null;
    v = { lay, samples: () => (samples ??= subtreeTotals(lay, built.samples)), stacks: () => stacks, missing, focused: !stacks.comm, span: built.span ?? null, selfSamples: built.samples };
  }
  if (byKey.size > 8) byKey.clear();
  byKey.set(key, v);
  return v;
}
