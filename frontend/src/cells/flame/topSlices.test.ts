// The top functions table made in slices: the same rows as in one piece, in several tasks, and
// nothing once stopped.
import { describe, expect, test } from 'vitest';
import { layoutTree, topFunctions, TOP_STEP } from '../../logic/flame';
import { syntheticTree } from '../../testdata/flameSynthetic';
import { showMoreText, topInSlices, TOP_ROWS } from './topSlices';

const s = syntheticTree(120_000, 7);
const lay = layoutTree({ names: s.names, name: s.name, depth: s.depth, self: s.self_weight });
const run = (zoom: number, by: 'self' | 'total', fnDepth: number) =>
  new Promise<{ rows: ReturnType<typeof topFunctions>; slices: number; sync: boolean }>((resolve) => {
    let returned = false;
    topInSlices(lay, zoom, by, fnDepth, (rows, slices) => resolve({ rows, slices, sync: !returned }));
    returned = true;
  });

describe('topInSlices', () => {
  test.each([
    ['self', 2],
    ['total', 2],
    ['self', 1],
  ] as const)('by %s (fnDepth %i): the rows of topFunctions, made after the call returns', async (by, fnDepth) => {
    const { rows, sync } = await run(0, by, fnDepth);
    expect(sync).toBe(false);
    expect(rows).toEqual(topFunctions(lay, 0, by, 500, fnDepth));
    expect(rows).toHaveLength(500);
  });

  test('a zoomed subtree: its own rows', async () => {
    const zoom = 1 + Array.from({ length: 2000 }, (_, i) => i).findIndex((i) => lay.end[i + 1]! - (i + 1) > 5000);
    expect(zoom).toBeGreaterThan(0);
    expect((await run(zoom, 'total', 2)).rows).toEqual(topFunctions(lay, zoom, 'total', 500, 2));
  });

  test('a large tree is made in more than one task, each pausing within its budget of steps', async () => {
    // the work pauses every TOP_STEP nodes: 120k nodes are ~30 pauses, so a slice budget of 4 ms
    // gives several tasks unless each step of 4096 nodes ran in under 0.13 ms
    expect(lay.n / TOP_STEP).toBeGreaterThan(20);
    const t0 = performance.now();
    const { slices } = await run(0, 'self', 2);
    const ms = performance.now() - t0;
    // one task only when the whole table took less than a slice's budget
    if (ms > 8) expect(slices).toBeGreaterThan(1);
    expect(slices).toBeGreaterThanOrEqual(1);
  });

  test('stopped: never calls back', async () => {
    let called = false;
    const stop = topInSlices(lay, 0, 'self', 2, () => (called = true));
    stop();
    await new Promise((r) => setTimeout(r, 300));
    expect(called).toBe(false);
  });
});

test('"show more" says all only when the table has every function: not "Show all 500+"', () => {
  expect(showMoreText(290)).toBe('Show all 290');
  expect(showMoreText(TOP_ROWS)).toBe('Show the first 500 (every function: the inverted tree, 4)');
});
