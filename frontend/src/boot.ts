// What the page starts before React renders it: for a notebook (a /compare link or a saved /n/ID),
// the code of its cells' kinds and the requests its cells will make on mount (each kind's
// `prefetch`, with the same query keys), so that they load while the rest of the page's code runs
// instead of after it. A saved notebook's document is asked for first, then its cells'.
import { fetchCaptures, fetchHealth, fetchNotebook } from './api/client';
import { prefetch } from './api/useQuery';
import { cellKind } from './cells/registry';
import { sharedTimeOf } from './cells/timeline/shared';
import { documentToView } from './state/document';
import { parseUrl, type CompareView } from './state/url';

function startCells(view: CompareView): void {
  const ctx = { captures: view.captures, baseline: view.baseline, time: sharedTimeOf(view.cells, view.baseline)?.time ?? null };
  for (const cell of view.cells) {
    const def = cellKind(cell.kind);
    void def?.preload?.();
    def?.prefetch?.(ctx, cell.state);
  }
}

export function bootFromUrl(pathname: string, search: string): void {
  try {
    const view = parseUrl(pathname, search).view;
    if (view.page === 'compare') startCells(view);
    else if (view.page === 'notebook') {
      const doc = fetchNotebook(view.id);
      void prefetch(`notebook:${view.id}`, () => doc); // useNotebook's key (api/queries.ts)
      doc.then((nb) => startCells(documentToView(nb.document, null).view)).catch(() => {});
    } else return;
    // what every notebook page asks for at once (App.tsx, useCaptureList)
    void prefetch('captures', () => fetchCaptures());
    void prefetch('health', () => fetchHealth());
  } catch {
    // a head start only: the page asks again for whatever it needs
  }
}
