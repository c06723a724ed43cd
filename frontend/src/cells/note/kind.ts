import { defineCell } from '../types';
import { NOTE_MAX_CHARS, NoteCell } from './NoteCell';

/** A free-text note between views: what the reader should look at, and why. Lives in the URL. */
export const noteCell = defineCell<{ text: string }>({
  kind: 'note',
  title: 'Note',
  description: 'Free text shown between views (kept in the link)',
  defaultState: { text: '' },
  encode: (s) => s.text,
  decode: (t) =>
    t.length > NOTE_MAX_CHARS ? new Error(`note is ${t.length} characters, at most ${NOTE_MAX_CHARS}`) : { text: t },
  Component: NoteCell,
});
