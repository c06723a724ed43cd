import { Link } from '../components/router';

export function BadUrlPage({ path, problems }: { path: string; problems: string[] }) {
  return (
    <div className="page narrow">
      <h1>This link cannot be shown</h1>
      <div className="error-box" role="alert">
        <ul className="problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
        <div className="muted mono small">{path}</div>
      </div>
      <p>
        <Link to="/">Go to the library</Link> to pick captures and start a new comparison.
      </p>
    </div>
  );
}

export function NotFoundPage({ path }: { path: string }) {
  return (
    <div className="page narrow">
      <h1>Nothing here</h1>
      <p>
        There is no page at <code>{path}</code>. <Link to="/">Go to the library.</Link>
      </p>
    </div>
  );
}
