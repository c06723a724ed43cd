import { useEffect, useState } from 'react';
import { copyText } from '../../components/copy';
import { flash } from '../../components/Toast';
import { fetchReport, reportUrl, type ReportFormat } from './queries';

/**
 * The sweep report for a mailing list (POST /api/report, which saves its notebook): plain ASCII, at most 72 columns, with the
 * permalink of a saved notebook holding this view. Copy it, or download it.
 */
export function ReportDialog({ captures, baseline, metric, onClose }: { captures: string[]; baseline: string; metric: string | null; onClose: () => void }) {
  const [format, setFormat] = useState<ReportFormat>('text');
  const [rows, setRows] = useState<'points' | 'captures'>('points');
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const url = reportUrl(captures, baseline, metric, format, rows);
  useEffect(() => {
    let live = true;
    setText(null);
    setError(null);
    fetchReport(url).then(
      (t) => live && setText(t),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [url]);
  useEffect(() => {
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', esc);
    return () => window.removeEventListener('keydown', esc);
  }, [onClose]);
  const lines = text ? text.split('\n').length - 1 : 0;
  const wide = text ? Math.max(...text.split('\n').map((l) => l.length)) : 0;
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div className="modal export-modal" role="dialog" aria-label="Sweep report" onClick={(e) => e.stopPropagation()}>
        <div className="modal-head">
          <h2>
            Report for email{' '}
            <span className="muted count">
              {text ? `${lines} lines · ${format === 'json' ? 'JSON' : `ASCII, ${wide} columns at most`}` : 'making…'}
            </span>
          </h2>
          <button type="button" className="icon-button" onClick={onClose} aria-label="Close">
            ×
          </button>
        </div>
        <div className="cell-toolbar report-options">
          <div className="segmented" role="group" aria-label="Report format">
            {(['text', 'markdown', 'json'] as const).map((f) => (
              <button key={f} type="button" className={`toggle${format === f ? ' on' : ''}`} aria-pressed={format === f} onClick={() => setFormat(f)}>
                {f === 'text' ? 'Plain text' : f === 'markdown' ? 'Markdown' : 'JSON'}
              </button>
            ))}
          </div>
          <div className="segmented" role="group" aria-label="Table rows">
            <button type="button" className={`toggle${rows === 'points' ? ' on' : ''}`} aria-pressed={rows === 'points'} onClick={() => setRows('points')}>
              Points as rows
            </button>
            <button type="button" className={`toggle${rows === 'captures' ? ' on' : ''}`} aria-pressed={rows === 'captures'} onClick={() => setRows('captures')}>
              Captures as rows
            </button>
          </div>
        </div>
        {error ? (
          <div className="error-box" role="alert">
            The report could not be made: {error}
          </div>
        ) : (
          <pre className="export-text" data-testid="report-text">
            {text ?? 'Making the report…'}
          </pre>
        )}
        <div className="modal-actions">
          <button type="button" className="button primary" disabled={!text} onClick={() => void copyText(text ?? '').then((ok) => flash(ok ? 'Report copied: paste it into your email' : 'Could not copy: select the text'))}>
            Copy
          </button>
          <a className="button" href={text ? `data:text/plain;charset=utf-8,${encodeURIComponent(text)}` : url} download={`iolens-report.${format === 'json' ? 'json' : format === 'markdown' ? 'md' : 'txt'}`}>
            Download
          </a>
          <span className="muted small">The link in the report opens a saved notebook with this view. Paste as plain text; it stays readable when quoted.</span>
        </div>
      </div>
    </div>
  );
}
