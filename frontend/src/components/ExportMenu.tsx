import { useEffect, useRef, useState } from 'react';
import { exportUrl, fetchExportText } from '../api/client';
import { copyText } from './copy';
import { flash } from './Toast';

/**
 * Export a notebook: the plain-text report for a mailing list (shown, to copy or download) or one
 * static HTML file. Exports are of saved versions (the permalink is at the top): an unsaved
 * notebook is saved first.
 */
export function ExportMenu({ savedId, ensureSaved }: { savedId: string | null; ensureSaved: () => Promise<string | null> }) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState<{ id: string; text: string } | null>(null);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => !ref.current?.contains(e.target as Node) && setOpen(false);
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);

  const withId = async (): Promise<string | null> => savedId ?? (await ensureSaved());
  const showText = async () => {
    setOpen(false);
    const id = await withId();
    if (!id) return;
    try {
      setText({ id, text: await fetchExportText(id) });
    } catch (e) {
      flash(`Export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const downloadHtml = async () => {
    setOpen(false);
    const id = await withId();
    if (!id) return;
    const a = document.createElement('a');
    a.href = exportUrl(id, 'html', true);
    a.download = `iolens-${id}.html`;
    document.body.appendChild(a);
    a.click();
    a.remove();
  };

  return (
    <div className="menu" ref={ref}>
      <button type="button" className="button" aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)} title={savedId ? 'Export this version' : 'Saves the notebook, then exports that version'}>
        Export ▾
      </button>
      {open && (
        <div className="menu-list" role="menu">
          <button type="button" role="menuitem" onClick={() => void showText()}>
            Text report for email…
            <span className="muted small">ASCII, 72 columns</span>
          </button>
          <button type="button" role="menuitem" onClick={() => void downloadHtml()}>
            HTML file
            <span className="muted small">one file, opens from disk</span>
          </button>
        </div>
      )}
      {text && <TextReport id={text.id} text={text.text} onClose={() => setText(null)} />}
    </div>
  );
}

function TextReport({ id, text, onClose }: { id: string; text: string; onClose: () => void }) {
  useEffect(() => {
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    window.addEventListener('keydown', esc);
    return () => window.removeEventListener('keydown', esc);
  }, [onClose]);
  const lines = text.split('\n').length;
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div className="modal export-modal" role="dialog" aria-label="Text report" onClick={(e) => e.stopPropagation()}>
        <div className="modal-head">
          <h2>
            Text report <span className="muted count">version {id} · {lines} lines · ASCII, at most 72 columns</span>
          </h2>
          <button type="button" className="icon-button" onClick={onClose} aria-label="Close">
            ×
          </button>
        </div>
        <pre className="export-text" data-testid="export-text">
          {text}
        </pre>
        <div className="modal-actions">
          <button type="button" className="button primary" onClick={() => void copyText(text).then((ok) => flash(ok ? 'Report copied: paste it into your email' : 'Could not copy: select the text'))}>
            Copy
          </button>
          <a className="button" href={exportUrl(id, 'text', true)} download={`iolens-${id}.txt`}>
            Download .txt
          </a>
          <span className="muted small">Paste it as plain text; it stays readable when quoted in a reply.</span>
        </div>
      </div>
    </div>
  );
}
