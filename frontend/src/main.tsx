// The page's first script: the styles, then boot.ts (the notebook's requests and its cells' code,
// from the URL), then the renderer and the app (render.tsx, preloaded by index.html: vite.config.ts).
// boot.ts runs before they are evaluated, so its requests start that much earlier; the first render
// waits for its answers and the UI font, at most FIRST_RENDER_WAIT_MS (boot.ts says why).
import '@fontsource-variable/inter/wght.css';
import './styles.css';
// the flame cell's styles (and the time notice's it shows) in the first stylesheet: no request
// of its own before the cell's first paint
import './cells/flame/flame.css';
import './cells/timeline/timeline.css';
// React's DOM behaviours that preact/compat lacks, before any element is made (the cells' code boot
// starts loading included)
import './reactParity';
import { bootFromUrl, FIRST_RENDER_WAIT_MS } from './boot';
import { openDrafts } from './components/drafts';
import { withoutStacksOfPage } from './state/pageHints';

// The UI font (styles.css --font: Inter alone, no fallback family) is loaded with the answers, so
// that the first layout has it; its file is preloaded by index.html.
const ready = Promise.all([bootFromUrl(window.location.pathname, window.location.search, withoutStacksOfPage()), document.fonts.load('13px "Inter Variable"').catch(() => {})]);
const waited = Promise.race([ready, new Promise((r) => setTimeout(r, FIRST_RENDER_WAIT_MS))]);
void Promise.all([import('./render'), waited]).then(([m]) => m.renderApp());
// The drafts' storage opened now, while render.tsx's chunk compiles and the answers come in, not
// in React's first render (the title's draft: components/drafts.ts).
openDrafts();
