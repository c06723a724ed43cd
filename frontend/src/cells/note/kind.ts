import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { NOTE_MAX_CHARS } from './limits';

/**
 * Text between views, in Markdown: what the reader should look at, and why. The kind keeps its
 * first name, 'note' (old links name it); plain notes of old links are valid Markdown. In a saved
 * notebook it is a `markdown` cell (src/state/document.ts).
 */
export const noteCell = defineCell<{ text: string }>({
  kind: 'note',
  title: 'Text',
  description: 'Markdown text between views: what to look at, and why',
  defaultState: { text: '' },
  encode: (s) => s.text,
  decode: (t) =>
    t.length > NOTE_MAX_CHARS ? new Error(`text is ${t.length} characters, at most ${NOTE_MAX_CHARS}`) : { text: t },
  ...lazyCell(() => import('./NoteCell').then((m) => m.NoteCell)),
});
