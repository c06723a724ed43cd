// The transforms and the left-heavy order on testdata/vectors/flame-transforms.json, the vectors
// the flame exports' copy on the server (backend store/rules/flame_stacks.py) is tested on too.
import { describe, expect, it } from 'vitest';
import { decodeFlame } from './state';
import { vectors } from '../../testdata/vectors';
import { applyTransforms, treeFromStacks, type FlameOrder, type Stacks } from '../../logic/flameStacks';

interface Case {
  name: string;
  x: string;
  order: FlameOrder;
  folded: string[];
  root_weight: number;
  comm: boolean;
  missing: [string, string][];
  stacks?: 'stacks_unknown';
  spans?: number[][];
}
const v = vectors<{ stacks: Record<string, number>; stacks_unknown: Record<string, number>; cases: Case[] }>('flame-transforms');

function stacksOf(map: Record<string, number>): Stacks {
  const names = ['all'];
  const id = new Map<string, number>([['all', 0]]);
  const frames: number[] = [];
  const start = [0];
  const weight: number[] = [];
  for (const [k, w] of Object.entries(map)) {
    for (const f of k.split(';')) {
      if (!id.has(f)) id.set(f, names.push(f) - 1);
      frames.push(id.get(f)!);
    }
    start.push(frames.length);
    weight.push(w);
  }
  return { names, frames: Int32Array.from(frames), start: Int32Array.from(start), weight: Float64Array.from(weight), samples: Float64Array.from(weight), comm: true, root: 'all' };
}

/** The stacks as folded lines, in the order of their leaves in the tree of that order. */
function foldedLines(s: Stacks, order: FlameOrder): string[] {
  const t = treeFromStacks(s, order);
  const lines: string[] = [];
  const path: string[] = [];
  for (let i = 0; i < t.depth.length; i++) {
    const d = t.depth[i]!;
    if (d === 0) continue;
    path.length = d - 1;
    path.push(t.names[t.name[i]!]!);
    if (t.self[i]! > 0) lines.push(`${path.join(';')} ${t.self[i]}`);
  }
  // by name, the folded text's order (inferno's): the lines sorted as text
  return order === 'name' ? lines.sort((a, b) => (a.split(' ')[0]! < b.split(' ')[0]! ? -1 : 1)) : lines;
}

describe('transforms (testdata/vectors/flame-transforms.json)', () => {
  it.each(v.cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const state = decodeFlame(c.x ? `x=${c.x}` : '');
    if (state instanceof Error) throw state;
    const { stacks, missing } = applyTransforms(stacksOf(v[c.stacks ?? 'stacks']), state.transforms);
    expect(foldedLines(stacks, c.order)).toEqual(c.folded);
    let root = 0;
    for (let k = 0; k + 1 < stacks.start.length; k++) if (stacks.start[k] === stacks.start[k + 1]) root += stacks.weight[k]!;
    expect(root).toBe(c.root_weight);
    expect(stacks.comm).toBe(c.comm);
    expect(missing.map((t) => [t.op, t.name])).toEqual(c.missing);
    if (c.spans) {
      // each folded line's frames: how many recorded frames each stands for
      const byLine = new Map<string, number[]>();
      for (let k = 0; k + 1 < stacks.start.length; k++) {
        const fr = Array.from(stacks.frames.subarray(stacks.start[k]!, stacks.start[k + 1]!));
        byLine.set(fr.map((f) => stacks.names[f]).join(';'), Array.from(stacks.span!.subarray(stacks.start[k]!, stacks.start[k + 1]!)));
      }
      expect(c.folded.map((l) => byLine.get(l.slice(0, l.lastIndexOf(' '))))).toEqual(c.spans);
    }
  });
});
