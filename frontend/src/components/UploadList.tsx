import { formatBytes } from '../logic/format';
import { Link } from './router';
import { ErrorBox } from './ErrorBox';
import type { UploadItem } from './useUploads';

export function UploadList({ items, onCancel, onClear }: { items: UploadItem[]; onCancel: (k: number) => void; onClear: () => void }) {
  if (!items.length) return null;
  const finished = items.some((i) => i.phase === 'done' || i.phase === 'failed');
  return (
    <section className="uploads" aria-label="Uploads">
      <div className="uploads-head">
        <h2>Uploads</h2>
        {finished && (
          <button type="button" className="link-button" onClick={onClear}>
            Clear finished
          </button>
        )}
      </div>
      <ul>
        {items.map((it) => (
          <li key={it.key} className={`upload upload-${it.phase}`} data-testid="upload-item">
            <div className="upload-row">
              <span className="upload-name mono" title={it.name}>
                {it.name}
              </span>
              <span className="upload-size num">{formatBytes(it.size)}</span>
              <progress
                className="upload-bar"
                max={it.total || 1}
                value={it.phase === 'ingesting' ? undefined : it.phase === 'sending' ? it.loaded : it.total || 1}
                aria-label={`Upload of ${it.name}`}
              />
              <span className="upload-status">
                <UploadStatus it={it} />
              </span>
              {(it.phase === 'sending' || it.phase === 'ingesting') && (
                <button type="button" className="link-button" onClick={() => onCancel(it.key)}>
                  Cancel
                </button>
              )}
            </div>
            {it.phase === 'failed' && it.error && <ErrorBox error={it.error} title={`${it.name} was not ingested`} />}
            {it.phase === 'done' && it.capture && (it.capture.warnings ?? []).length > 0 && (
              <ul className="upload-warnings">
                {(it.capture.warnings ?? []).map((w) => (
                  <li key={w}>⚠ {w}</li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function UploadStatus({ it }: { it: UploadItem }) {
  switch (it.phase) {
    case 'sending':
      return (
        <span className="num">
          {formatBytes(it.loaded)} / {formatBytes(it.total)} ({Math.floor((100 * it.loaded) / (it.total || 1))} %)
        </span>
      );
    case 'ingesting':
      return <span>ingesting…</span>;
    case 'failed':
      return <span className="status-bad">error</span>;
    case 'done': {
      const c = it.capture!;
      return (
        <span className={c.created ? 'status-good' : 'status-same'}>
          {c.created ? 'new capture' : 'already present'}{' '}
          <Link to={`/captures/${c.id}`}>{c.label}</Link>{' '}
          <span className="muted">
            ({c.runs} run{c.runs === 1 ? '' : 's'})
          </span>
        </span>
      );
    }
  }
}
