// The page's rendering part (react-dom's API, which is Preact's: vite.config.ts REACT_ALIASES; the app
// shell and the pages), imported by main.tsx once
// boot.ts has started the notebook's requests and its cells' code. index.html preloads this
// chunk (vite.config.ts), so it downloads beside the first script instead of after it.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';

export function renderApp(): void {
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
