import { useRef } from 'react';
import { useNotebooks } from '../api/queries';
import { ErrorBox } from '../components/ErrorBox';
import { NotebookTable } from '../components/NotebookTable';
import { cellKindTitle } from '../cells/registry';
import { useShortcut } from '../components/shortcuts';
import { Link, navigate } from '../components/router';
import { viewToUrl } from '../state/url';

/** /notebooks?q=: saved notebook versions, searched on the server (title, text, SQL, capture labels, tags, kernels). */
export function NotebooksPage({ query }: { query: string }) {
  const q = useNotebooks(query);
  const ref = useRef<HTMLInputElement>(null);
  useShortcut('/', (e) => {
    e.preventDefault();
    ref.current?.focus();
    ref.current?.select();
  });
  const total = q.data?.total;
  return (
    <div className="page">
      <div className="toolbar">
        <h1>Notebooks</h1>
        <div className="filter">
          <input
            ref={ref}
            type="search"
            placeholder="Title, text, SQL, capture, kernel…"
            aria-label="Search notebooks"
            value={query}
            onChange={(e) => navigate(viewToUrl({ page: 'notebooks', query: e.target.value }), { replace: true })}
            onKeyDown={(e) => e.key === 'Escape' && e.currentTarget.blur()}
          />
          <kbd className="filter-kbd">/</kbd>
        </div>
        {total !== undefined && <span className="muted num">{total === 1 ? '1 version' : `${total} versions`}</span>}
      </div>
      {q.error && <ErrorBox error={q.error} title="Cannot list notebooks" />}
      {q.loading && !q.data && <p className="muted">Loading notebooks…</p>}
      {q.data && q.data.total === 0 && !query ? (
        <section className="empty-state" data-testid="notebooks-empty">
          <h2>No saved notebooks yet</h2>
          <p className="muted">
            A notebook is a comparison with your notes, views and SQL queries. Each save is an immutable version with a short permalink (<code>/n/ID</code>) that opens
            exactly that version, years later.
          </p>
          <ol>
            <li>
              In the <Link to="/">library</Link>, select two or more captures and press <strong>Compare</strong> (<kbd>c</kbd>).
            </li>
            <li>Write what matters in the text cell, add views or SQL cells.</li>
            <li>
              Press <strong>Save</strong> (<kbd>Ctrl</kbd>+<kbd>S</kbd>): the permalink is copied. <strong>Export</strong> gives a text report for email or one HTML file.
            </li>
          </ol>
        </section>
      ) : (
        q.data && <NotebookTable kindTitle={cellKindTitle} notebooks={q.data.notebooks} query={query} />
      )}
    </div>
  );
}
