import { useEffect, useMemo } from 'react';
import { useNotebook } from '../api/queries';
import { ErrorBox } from '../components/ErrorBox';
import { documentToView } from '../state/document';
import { Link } from '../components/router';
import { NotebookView } from './ComparePage';

/** /n/ID: exactly one saved version. Editing it moves to the URL form with parent=ID. */
export function NotebookPage({ id }: { id: string }) {
  const q = useNotebook(id);
  const opened = useMemo(() => (q.data ? documentToView(q.data.document, null) : null), [q.data]);
  const title = q.data?.document.title;
  useEffect(() => {
    document.title = `${title || `Notebook ${id}`} · iolens`;
  }, [title, id]);
  if (q.loading) return <p className="muted page">Opening notebook {id}…</p>;
  if (q.error)
    return (
      <div className="page narrow">
        <h1>Notebook {id}</h1>
        <ErrorBox error={q.error} title={q.error.status === 404 ? 'No such notebook on this server' : 'Cannot open the notebook'} />
        <p>
          A permalink opens on the server that saved it. <Link to="/notebooks">Saved notebooks</Link> · <Link to="/">Library</Link>
        </p>
      </div>
    );
  if (!q.data || !opened) return null;
  return <NotebookView view={opened.view} problems={opened.problems} saved={q.data} />;
}
