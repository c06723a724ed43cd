import { useEffect, useMemo, useState } from 'react';
import { renderMarkdown } from '../../logic/markdown';
import type { CellProps } from '../types';

export const NOTE_MAX_CHARS = 20000;

export function NoteCell({ state, setState }: CellProps<{ text: string }>) {
  const [editing, setEditing] = useState(state.text === '');
  const [draft, setDraft] = useState(state.text);
  useEffect(() => setDraft(state.text), [state.text]);
  // Safe: raw HTML is off and links are checked (logic/markdown.ts).
  const html = useMemo(() => renderMarkdown(state.text), [state.text]);
  if (!editing) {
    return (
      <div className="note-text" onDoubleClick={() => setEditing(true)} title="Double-click to edit">
        <div className="markdown" dangerouslySetInnerHTML={{ __html: html }} />
        <button type="button" className="link-button note-edit" onClick={() => setEditing(true)}>
          edit
        </button>
      </div>
    );
  }
  const commit = () => {
    setState({ text: draft.trim() });
    setEditing(draft.trim() === '');
  };
  return (
    <form
      className="note-form"
      onSubmit={(e) => {
        e.preventDefault();
        commit();
      }}
    >
      <textarea
        value={draft}
        maxLength={NOTE_MAX_CHARS}
        rows={Math.min(16, Math.max(4, draft.split('\n').length + 1))}
        placeholder={'What should the reader look at? Markdown: **bold**, `code`, - lists, [links](https://…)'}
        aria-label="Text (Markdown)"
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
          // Ctrl/Cmd+S saves the notebook: keep this text first (the page saves what the URL holds).
          if (e.key.toLowerCase() === 's' && (e.ctrlKey || e.metaKey)) commit();
          if (e.key === 'Escape' && state.text !== '') {
            setDraft(state.text);
            setEditing(false);
          }
        }}
      />
      <div className="note-actions">
        <button type="submit" className="button">
          Done
        </button>
        <span className="muted">
          <kbd>Ctrl</kbd>+<kbd>Enter</kbd> · Markdown: **bold**, _em_, `code`, - lists, [text](https://…); no HTML
        </span>
      </div>
    </form>
  );
}
