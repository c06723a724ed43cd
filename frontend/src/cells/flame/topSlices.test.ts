// The top functions table made in slices: the same rows as in one piece, in several tasks, and
// nothing once stopped.
import { describe, expect, test } from 'vitest';
import { layoutTree, topFunctions, topFunctionsWork, TOP_STEP } from '../../logic/flame';
import { syntheticTree } from '../../testdata/flameSynthetic';
import { showMoreText, topInSlices, TOP_ROWS, TOP_SLICE_MS } from './topSlices';

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
    // a clock that moves 1 ms at each reading, so every step of TOP_STEP nodes "takes" 1 ms whatever
    // the machine's load: a slice reads it once at its start and once after each step, and must
    // pause after TOP_SLICE_MS steps. (Timed by performance.now(), this test failed under load: one
    // slice that was slow to be scheduled looked like a table made in one piece.)
    expect(lay.n / TOP_STEP).toBeGreaterThan(20);
    let clock = 0;
    const { rows, slices } = await new Promise<{ rows: ReturnType<typeof topFunctions>; slices: number }>((resolve) => {
      topInSlices(lay, 0, 'self', 2, (rows, slices) => resolve({ rows, slices }), () => {
        clock += 1;
        return clock;
      });
    });
    expect(rows).toEqual(topFunctions(lay, 0, 'self', 500, 2));
    // pauses of the work: one per TOP_STEP nodes, then in the table of the functions
    let pauses = 0;
    const work = topFunctionsWork(lay, 0, 'self', 500, 2);
    while (!work.next().done) pauses++;
    // every slice but the last runs TOP_SLICE_MS steps, the last the rest and the end: the clock is
    // read at each slice's start and after each step but the end
    expect(slices).toBe(Math.ceil((pauses + 1) / TOP_SLICE_MS));
    expect(slices).toBeGreaterThan(5);
    expect(clock).toBe(slices + pauses);
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
