import { useEffect, useRef, useState, type ReactNode } from 'react';
import { exportUrl, fetchExportText } from '../api/client';
import { copyText } from './copy';
import { requestExport, takeExports, type ExportKind } from './pendingExport';
import { flash } from './Toast';

/** An entry of an export menu: a file to download, or an action. */
export type ExportItem = { label: ReactNode; key?: string; href: string } | { label: ReactNode; key?: string; onSelect: () => void };

/**
 * The "Export ▾" menu: a button that opens a list of downloads and actions, closed by a choice
 * or a click elsewhere. The notebook's export (below) and the flame graph cell's use it.
 */
export function ExportMenu({ items, className, small = false, title }: { items: ExportItem[]; className?: string; small?: boolean; title?: string }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => !ref.current?.contains(e.target as Node) && setOpen(false);
    window.addEventListener('mousedown', close);
    return () => window.removeEventListener('mousedown', close);
  }, [open]);
  return (
    <div className={className ? `menu ${className}` : 'menu'} ref={ref}>
      <button type="button" className={small ? 'button small' : 'button'} aria-haspopup="menu" aria-expanded={open} onClick={() => setOpen(!open)} title={title}>
        Export ▾
      </button>
      {open && (
        <div className="menu-list" role="menu">
          {items.map((it, i) => {
            const key = it.key ?? (typeof it.label === 'string' ? it.label : i);
            return 'href' in it ? (
              <a key={key} role="menuitem" className="menu-link" href={it.href} download onClick={() => setOpen(false)}>
                {it.label}
              </a>
            ) : (
              <button
                key={key}
                type="button"
                role="menuitem"
                onClick={() => {
                  setOpen(false);
                  it.onSelect();
                }}
              >
                {it.label}
              </button>
            );
          })}
        </div>
      )}
    </div>
  );
}

/**
 * Export a notebook: the plain-text report for a mailing list (shown, to copy or download) or one
 * static HTML file. Exports are of saved versions (the permalink is at the top): an unsaved
 * notebook is saved first.
 */
export function NotebookExportMenu({ savedId, ensureSaved }: { savedId: string | null; ensureSaved: () => Promise<string | null> }) {
  const [text, setText] = useState<{ id: string; text: string } | null>(null);

  const showText = async (id: string) => {
    try {
      setText({ id, text: await fetchExportText(id) });
    } catch (e) {
      flash(`Export failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const downloadHtml = (id: string) => {
    const a = document.createElement('a');
    a.href = exportUrl(id, 'html', true);
    a.download = `iolens-${id}.html`;
    document.body.appendChild(a);
    a.click();
    a.remove();
  };
  const run = (id: string, kind: ExportKind) => (kind === 'text' ? void showText(id) : downloadHtml(id));
  const runRef = useRef(run);
  runRef.current = run;
  // A saved version's menu runs what was asked of it, also from the unsaved notebook's menu,
  // which the save's move to /n/ID unmounted (components/pendingExport.ts).
  useEffect(() => (savedId ? takeExports(savedId, (kind) => runRef.current(savedId, kind)) : undefined), [savedId]);
  const ask = async (kind: ExportKind) => {
    if (savedId) return run(savedId, kind);
    const id = await ensureSaved();
    if (id) requestExport(id, kind);
  };

  return (
    <>
      <ExportMenu
        title={savedId ? 'Export this version' : 'Saves the notebook, then exports that version'}
        items={[
          {
            key: 'text',
            label: (
              <>
                Text report for email…
                <span className="muted small">ASCII, 72 columns</span>
              </>
            ),
            onSelect: () => void ask('text'),
          },
          {
            key: 'html',
            label: (
              <>
                HTML file
                <span className="muted small">one file, opens from disk</span>
              </>
            ),
            onSelect: () => void ask('html'),
          },
        ]}
      />
      {text && <TextReport id={text.id} text={text.text} onClose={() => setText(null)} />}
    </>
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
