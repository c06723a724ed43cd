import type { ReactNode } from 'react';
import type { ApiError } from '../api/client';
import { describeDetail } from '../logic/errorDetail';

/** An error with its detail (file, line, field...), as the server gave it. */
export function ErrorBox({ error, title, children }: { error: Pick<ApiError, 'message' | 'detail' | 'status'>; title?: string; children?: ReactNode }) {
  const d = describeDetail(error.detail);
  return (
    <div className="error-box" role="alert">
      <div className="error-title">
        {title && <strong>{title}: </strong>}
        <span className="error-message">{error.message}</span>
        {error.status > 0 && <span className="muted"> (HTTP {error.status})</span>}
      </div>
      {Array.isArray(d) && (
        <dl className="error-detail">
          {d.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
      )}
      {typeof d === 'string' && <pre className="error-detail-text">{d}</pre>}
      {children}
    </div>
  );
}
