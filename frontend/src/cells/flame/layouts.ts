import { layoutTree, type FlameLayout } from '../../logic/flame';
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
