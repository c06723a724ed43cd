import { useEffect, useMemo, useRef, useState } from 'react';
import { useCaptureList } from '../../api/queries';
import { clearDraft, loadDraft, useKeptDraft } from '../../components/drafts';
import { formatDate } from '../../logic/format';
import { renderMarkdown } from '../../logic/markdown';
import { noteBaselineMismatch } from '../../logic/notebook';
import type { CellProps } from '../types';

import { NOTE_MAX_CHARS } from './limits';

/**
 * Markdown text. Typed text is never dropped: Esc, Done, Ctrl+Enter, leaving the field and
 * Ctrl+S all keep it in the notebook, and until then it is kept as a browser draft
 * (components/drafts.ts) that a reload restores.
 */
export function NoteCell({ ctx, state, setState, draftKey }: CellProps<{ text: string }>) {
  // A draft left by a reload (or a closed tab) of this very page wins over the URL's text.
  const [restored] = useState(() => {
    const d = draftKey ? loadDraft(draftKey) : null;
    return d && d.text !== state.text ? d : null;
  });
  const [editing, setEditing] = useState(state.text === '' || restored !== null);
  const [draft, setDraft] = useState(restored?.text ?? state.text);
  const shown = useRef(state.text);
  useEffect(() => {
    if (shown.current === state.text) return;
    shown.current = state.text;
    setDraft(state.text);
  }, [state.text]);
  useKeptDraft(draftKey, draft, state.text, editing);
  // Text typed before a reload is put back into the notebook at once (Save then keeps it); the
  // editor stays open on it and says where it came from.
  useEffect(() => {
    if (!restored) return;
    if (draftKey) clearDraft(draftKey);
    setState({ text: restored.text.trim() });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at load
  }, []);
  // Safe: raw HTML is off and links are checked (logic/markdown.ts).
  const html = useMemo(() => renderMarkdown(state.text), [state.text]);
  const list = useCaptureList();
  const mismatch = useMemo(() => {
    const caps = (list.data ?? []).filter((c) => ctx.captures.includes(c.id));
    const named = noteBaselineMismatch(state.text, caps, ctx.baseline);
    return named.length ? { named, base: caps.find((c) => c.id === ctx.baseline)?.label ?? ctx.baseline } : null;
  }, [list.data, ctx.captures, ctx.baseline, state.text]);

  const stale = mismatch && (
    <p className="note-stale" role="note" data-testid="note-stale">
      ⚠ This text names {mismatch.named.map((n, i) => <strong key={n}>{i ? `, ${n}` : n}</strong>)} as the baseline; the baseline is now <strong>{mismatch.base}</strong>.
      It was edited, so it is not rewritten: edit it to match.
    </p>
  );

  if (!editing) {
    return (
      <div className="note-text" onDoubleClick={() => setEditing(true)} title="Double-click to edit">
        {stale}
        <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />
        <button type="button" className="link-button note-edit" onClick={() => setEditing(true)}>
          edit
        </button>
      </div>
    );
  }
  /** Put the text into the notebook (its URL), and leave the editor unless it is empty. */
  const commit = (close: boolean) => {
    const t = draft.trim();
    // (the draft is in the notebook now; a saved version's page would otherwise keep it)
    if (draftKey) clearDraft(draftKey);
    if (t !== state.text) setState({ text: t });
    if (close) setEditing(t === '');
  };
  return (
    <form
      className="note-form"
      onSubmit={(e) => {
        e.preventDefault();
        commit(true);
      }}
    >
      {stale}
      {restored && draft.trim() === restored.text.trim() && (
        <p className="note-restored muted" data-testid="note-restored">
          Restored: the text you were typing at {formatDate(new Date(restored.at).toISOString(), true)} UTC, before the page was reloaded.
        </p>
      )}
      <textarea
        value={draft}
        maxLength={NOTE_MAX_CHARS}
        rows={Math.min(16, Math.max(4, draft.split('\n').length + 1))}
        placeholder={'What should the reader look at? Markdown: **bold**, `code`, - lists, [links](https://…)'}
        aria-label="Text (Markdown)"
        onChange={(e) => setDraft(e.target.value)}
        // Leaving the field keeps its text: a click on Save, Export or another cell never loses it.
        onBlur={() => commit(false)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
          // Ctrl/Cmd+S saves the notebook: keep this text first (the page saves what the URL holds).
          if (e.key.toLowerCase() === 's' && (e.ctrlKey || e.metaKey)) commit(false);
          // Esc leaves the editor and keeps what was typed.
          if (e.key === 'Escape') {
            e.preventDefault();
            commit(true);
          }
        }}
      />
      <div className="note-actions">
        <button type="submit" className="button">
          Done
        </button>
        <span className="muted">
          <kbd>Ctrl</kbd>+<kbd>Enter</kbd> or <kbd>Esc</kbd> · Markdown: **bold**, _em_, `code`, - lists, [text](https://…); no HTML
        </span>
      </div>
    </form>
  );
}
