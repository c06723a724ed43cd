// What the page starts before React renders it: for a notebook (a /compare link or a saved /n/ID),
// the code of its cells' kinds and the requests its cells will make on mount (each kind's
// `prefetch`, with the same query keys), so that they load while the rest of the page's code runs
// instead of after it. A saved notebook's document is asked for first, then its cells'.
//
// The first render waits for them, at most FIRST_RENDER_WAIT_MS (main.tsx): answers that come
// soon (a flame graph's is made ahead on the server: a few ms) are rendered in the first pass, not
// after a render and a frame of the notebook with every cell "loading" (issue 17: ~100 ms of a
// 51k-node flame graph's first paint). A slow answer does not hold the page longer than that.
import { fetchCaptures, fetchHealth, fetchNotebook } from './api/client';
import { prefetch, prefetched } from './api/useQuery';
import { cellKind } from './cells/registry';
import { sharedTimeOf } from './cells/timeline/shared';
import { documentToView } from './state/document';
import { parseUrl, type CompareView } from './state/url';

export const FIRST_RENDER_WAIT_MS = 250;

function startCells(view: CompareView, withoutStacks: readonly string[]): Promise<unknown>[] {
  const ctx = { captures: view.captures, baseline: view.baseline, time: sharedTimeOf(view.cells, view.baseline)?.time ?? null, withoutStacks };
  const code: Promise<unknown>[] = [];
  for (const cell of view.cells) {
    const def = cellKind(cell.kind);
    const loading = def?.preload?.();
    if (loading) code.push(loading.catch(() => {}));
    def?.prefetch?.(ctx, cell.state);
  }
  return code;
}

/** Starts the page's requests and cells' code from its URL; resolves when they are all in.
 *  `withoutStacks`: captures the server said have no stacks (no flame answer to ask for). */
export function bootFromUrl(pathname: string, search: string, withoutStacks: readonly string[] = []): Promise<unknown> {
  try {
    const view = parseUrl(pathname, search).view;
    let code: Promise<unknown>;
    if (view.page === 'compare') code = Promise.all(startCells(view, withoutStacks));
    else if (view.page === 'notebook') {
      const doc = fetchNotebook(view.id);
      void prefetch(`notebook:${view.id}`, () => doc); // useNotebook's key (api/queries.ts)
      code = doc.then((nb) => Promise.all(startCells(documentToView(nb.document, null).view, withoutStacks))).catch(() => {});
    } else return Promise.resolve();
    // what every notebook page asks for at once (App.tsx, useCaptureList)
    void prefetch('captures', () => fetchCaptures());
    void prefetch('health', () => fetchHealth());
    return Promise.all([code, code.then(prefetched)]);
  } catch {
    // a head start only: the page asks again for whatever it needs
    return Promise.resolve();
  }
}
