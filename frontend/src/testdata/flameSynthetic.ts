// A synthetic call tree of any size, for the drawing-time measurement (e2e/flame.spec.ts) and
// layout tests: pre-order columns as the API sends them (FlameTree), deterministic for a seed.
export interface SyntheticTree {
  names: string[];
  name: number[];
  depth: number[];
  self_weight: number[];
  self_samples: number[];
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n nodes, depth up to maxDepth; about 3000 distinct names; heavy-tailed leaf weights. */
export function syntheticTree(n: number, seed = 1, maxDepth = 90): SyntheticTree {
  const rnd = mulberry32(seed);
  const vocab = Array.from({ length: 3000 }, (_, i) => `fn_${i.toString(36)}_${['vfs', 'xfs', 'ext4', 'blk', 'iomap', 'sched', 'mm'][i % 7]}`);
  const names = ['all', ...vocab];
  const name = [0];
  const depth = [0];
  const selfW = [0];
  let d = 0;
  for (let i = 1; i < n; i++) {
    if (d < maxDepth && (d === 0 || rnd() < 0.62)) d++;
    else {
      // back up a geometric number of levels (at least to depth 1)
      let up = 0;
      while (rnd() < 0.55 && d - up > 1) up++;
      d = Math.max(1, d - up);
    }
    name.push(1 + Math.floor(rnd() ** 2 * vocab.length));
    depth.push(d);
    selfW.push(0);
  }
  // self weight on leaves (a node whose next node is not deeper), heavy-tailed; some on inner nodes
  for (let i = 1; i < n; i++) {
    const leaf = i === n - 1 || depth[i + 1]! <= depth[i]!;
    if (leaf || rnd() < 0.05) selfW[i] = 1 + Math.floor(1 / Math.max(1e-4, rnd()) ** 1.2);
  }
  return { names, name, depth, self_weight: selfW, self_samples: selfW.slice() };
}
