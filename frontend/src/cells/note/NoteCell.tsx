import { useEffect, useState } from 'react';
import type { CellProps } from '../types';

export const NOTE_MAX_CHARS = 4000;

export function NoteCell({ state, setState }: CellProps<{ text: string }>) {
  const [editing, setEditing] = useState(state.text === '');
  const [draft, setDraft] = useState(state.text);
  useEffect(() => setDraft(state.text), [state.text]);
  if (!editing) {
    return (
      <div className="note-text" onDoubleClick={() => setEditing(true)} title="Double-click to edit">
        {state.text}
        <button type="button" className="link-button note-edit" onClick={() => setEditing(true)}>
          edit
        </button>
      </div>
    );
  }
  return (
    <form
      className="note-form"
      onSubmit={(e) => {
        e.preventDefault();
        setState({ text: draft.trim() });
        setEditing(draft.trim() === '');
      }}
    >
      <textarea
        value={draft}
        maxLength={NOTE_MAX_CHARS}
        rows={3}
        placeholder="What should the reader look at? (kept in the link)"
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) e.currentTarget.form?.requestSubmit();
        }}
      />
      <div className="note-actions">
        <button type="submit" className="button">Save note</button>
        <span className="muted">Ctrl+Enter</span>
      </div>
    </form>
  );
}
