import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { fetchHealth } from './api/client';
import { useQuery } from './api/useQuery';
import { copyText } from './components/copy';
import { installShortcuts, SHORTCUTS, useShortcut } from './components/shortcuts';
import { flash, Toast } from './components/Toast';
import { ComparePage } from './pages/ComparePage';
import { NotebookPage } from './pages/NotebookPage';
import { TokenDialog } from './components/TokenDialog';
import { getToken } from './api/auth';
import { BadUrlPage, NotFoundPage } from './pages/BadUrlPage';
import { Link, useLocation } from './components/router';
import { parseUrl } from './state/url';

// Pages other than the notebook's load when first opened: a notebook link's first script is the
// notebook and its cells' registry (main.tsx, render.tsx, cells/lazy.ts, vite.config.ts).
const LibraryPage = lazy(() => import('./pages/LibraryPage').then((m) => ({ default: m.LibraryPage })));
const CapturePage = lazy(() => import('./pages/CapturePage').then((m) => ({ default: m.CapturePage })));
const NotebooksPage = lazy(() => import('./pages/NotebooksPage').then((m) => ({ default: m.NotebooksPage })));

export function App() {
  const loc = useLocation();
  const parsed = useMemo(() => parseUrl(loc.pathname, loc.search), [loc.pathname, loc.search]);
  const [help, setHelp] = useState(false);
  const [tokenOpen, setTokenOpen] = useState(false);
  const health = useQuery('health', () => fetchHealth());

  useEffect(() => installShortcuts(), []);
  useShortcut('?', () => setHelp((h) => !h));
  useShortcut('Escape', () => setHelp(false), help);
  const v = parsed.view;
  // (a notebook has its own `y`: the short permalink, or save first)
  useShortcut(
    'y',
    () => {
      void copyText(window.location.href).then((ok) => flash(ok ? `Copied the link ${window.location.href}` : 'Could not copy: use the address bar'));
    },
    v.page !== 'compare' && v.page !== 'notebook',
  );

  useEffect(() => {
    const titles: Record<string, string> = { library: 'Library', capture: 'Capture', compare: 'Notebook', notebook: 'Notebook', notebooks: 'Notebooks', 'not-found': 'Not found', 'bad-url': 'Bad link' };
    // A saved notebook and a capture name themselves once loaded (NotebookPage, CapturePage).
    if (v.page === 'notebook' || v.page === 'capture') return;
    const title = v.page === 'compare' && v.title ? v.title : (titles[v.page] ?? '');
    document.title = `${title} · iolens`;
  }, [v]);

  return (
    <div className="app">
      <header className="topbar">
        <Link to="/" className="brand">
          <svg width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">
            <circle cx="8" cy="8" r="5.5" fill="none" stroke="currentColor" strokeWidth="2.2" />
            <line x1="12" y1="12" x2="15" y2="15" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
          </svg>
          iolens
        </Link>
        <nav className="topnav">
          <Link to="/" className={v.page === 'library' ? 'active' : ''}>
            Library
          </Link>
          <Link to="/notebooks" className={v.page === 'notebooks' ? 'active' : ''}>
            Notebooks
          </Link>
          {(v.page === 'compare' || v.page === 'notebook') && <span className="active">Notebook</span>}
          {v.page === 'capture' && <span className="active">Capture</span>}
        </nav>
        <div className="topbar-right">
          {health.data && (
            <span className="muted" title={`iolens server ${health.data.version}, ${health.data.captures} captures`}>
              v{health.data.version}
            </span>
          )}
          {health.data?.writes_need_token && (
            <button type="button" className="link-button token-button" onClick={() => setTokenOpen(true)} title="Uploads and saves on this server need its access token">
              {getToken() ? 'Token set' : 'Enter token'}
            </button>
          )}
          {health.error && (
            <span className="server-down" title={health.error.message}>
              server unreachable
            </span>
          )}
          <button type="button" className="link-button" onClick={() => setHelp(true)} title="Keyboard shortcuts (?)">
            Shortcuts <kbd>?</kbd>
          </button>
        </div>
      </header>
      <main className="content">
        <Suspense fallback={<p className="muted page">Loading…</p>}>
          {v.page === 'library' && <LibraryPage view={v} problems={parsed.problems} />}
          {v.page === 'capture' && <CapturePage id={v.id} />}
          {v.page === 'compare' && <ComparePage view={v} problems={parsed.problems} />}
          {v.page === 'notebook' && <NotebookPage key={v.id} id={v.id} />}
          {v.page === 'notebooks' && <NotebooksPage query={v.query} />}
          {v.page === 'not-found' && <NotFoundPage path={v.path} />}
          {v.page === 'bad-url' && <BadUrlPage path={v.path} problems={v.problems} />}
        </Suspense>
      </main>
      {help && (
        <div className="modal-backdrop" onClick={() => setHelp(false)}>
          <div className="modal" role="dialog" aria-label="Keyboard shortcuts" onClick={(e) => e.stopPropagation()}>
            <div className="modal-head">
              <h2>Keyboard shortcuts</h2>
              <button type="button" className="icon-button" onClick={() => setHelp(false)} aria-label="Close">
                ×
              </button>
            </div>
            <table className="shortcuts">
              <tbody>
                {SHORTCUTS.map((s) => (
                  <tr key={s.key}>
                    <td>
                      <kbd>{s.key}</kbd>
                    </td>
                    <td>{s.what}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      )}
      <TokenDialog open={tokenOpen} onClose={() => setTokenOpen(false)} />
      <Toast />
    </div>
  );
}
