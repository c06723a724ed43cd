import type { NotebookSummary } from '../api/client';
import { formatDate } from '../logic/format';
import { Link } from './router';

/** Saved notebook versions, newest first: title, captures, cells (named by `kindTitle`), when, lineage. */
export function NotebookTable({ notebooks, query, kindTitle }: { notebooks: NotebookSummary[]; query: string; kindTitle: (kind: string) => string }) {
  return (
    <div className="table-scroll">
      <table className="data-table notebook-table">
        <thead>
          <tr>
            <th>Title</th>
            <th>Captures</th>
            <th>Cells</th>
            <th>Saved (UTC)</th>
            <th>Version</th>
          </tr>
        </thead>
        <tbody>
          {notebooks.map((n) => (
            <tr key={n.id} data-notebook-id={n.id}>
              <td className="col-label">
                <Link to={`/n/${n.id}`}>{n.title}</Link>
              </td>
              <td>
                {n.captures.map((c) => (
                  <span key={c.id} className="chip" title={`${c.id}${c.kernel ? ` · kernel ${c.kernel}` : ''}`}>
                    {c.label}
                  </span>
                ))}
              </td>
              <td className="muted nb-kinds">
                {n.kinds.map(kindTitle).join(' · ')}
              </td>
              <td className="num-left">{formatDate(n.created_at)}</td>
              <td className="nb-version">
                <code>{n.id}</code>
                {n.parent && (
                  <span className="muted">
                    {' '}
                    from <Link to={`/n/${n.parent}`}>{n.parent}</Link>
                  </span>
                )}
                {n.children.length > 0 && <span className="muted"> · {n.children.length} newer</span>}
              </td>
            </tr>
          ))}
          {notebooks.length === 0 && (
            <tr>
              <td colSpan={5} className="muted empty-row">
                No notebook matches “{query}”.
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
