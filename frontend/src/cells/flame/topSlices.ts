// The top functions table of a flame graph, made in slices of a few ms (SingleView.tsx's TopTable).
import { topFunctionsWork, type FlameLayout, type FunctionRow } from '../../logic/flame';

/** Rows of the table at most: the first of the functions in its order (the inverted tree has every one). */
export const TOP_ROWS = 500;

/** The table's "show more" button: every row it has, or the first TOP_ROWS of more. */
export function showMoreText(rows: number): string {
  return rows >= TOP_ROWS ? `Show the first ${TOP_ROWS} (every function: the inverted tree, 4)` : `Show all ${rows}`;
}

/** Longest a slice of a table's work runs before the page may draw a frame, ms. */
export const TOP_SLICE_MS = 4;

/**
 * Make a table in slices of about TOP_SLICE_MS, one task each (a MessageChannel message: not
 * clamped as nested timeouts are), so the frames after the graph's are not held up by it (~50 ms
 * at 51k nodes in one piece on a quiet machine). Calls done(rows, slices) at the end; the function
 * returned stops it. `now` is the clock the slices are timed by (ms; a test gives its own, so that
 * what it checks does not depend on the machine's speed).
 */
export function topInSlices(
  lay: FlameLayout,
  zoom: number,
  by: 'self' | 'total',
  fnDepth: number,
  done: (rows: FunctionRow[], slices: number) => void,
  now: () => number = () => performance.now(),
): () => void {
  const work = topFunctionsWork(lay, zoom, by, TOP_ROWS, fnDepth);
  const ch = new MessageChannel();
  let stopped = false;
  let slices = 0;
  ch.port1.onmessage = () => {
    if (stopped) return;
    const t0 = now();
    slices++;
    for (;;) {
      const step = work.next();
      if (step.done) {
        ch.port1.close();
        done(step.value, slices);
        return;
      }
      if (now() - t0 >= TOP_SLICE_MS) break;
    }
    ch.port2.postMessage(0);
  };
  ch.port2.postMessage(0);
  return () => {
    stopped = true;
    ch.port1.close();
  };
}
