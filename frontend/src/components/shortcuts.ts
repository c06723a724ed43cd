// Keyboard shortcuts: one global listener, pages register what a key does while they are shown.
import { useEffect, useRef } from 'react';

export const SHORTCUTS: readonly { key: string; what: string }[] = [
  { key: '/', what: 'Focus the filter (library), the frame search (flame graph)' },
  { key: 'c', what: 'Compare the selected captures (library)' },
  { key: 'y', what: 'Copy a link to this view' },
  { key: 'Ctrl+S', what: 'Save the notebook: an immutable version with a permalink (Cmd+S on a Mac)' },
  { key: 'Ctrl+Enter', what: 'Run a SQL cell; finish editing a text cell' },
  { key: '1 / 2', what: 'Flame graph: siblings by name / left heavy (heaviest first)' },
  { key: '3 / 4', what: 'Flame graph: sandwich of a function (callers and callees) / inverted call tree; in a difference, 3 opens the zoomed function\'s sandwich in the after capture' },
  { key: '5', what: 'Flame graph: time order of one thread or CPU (+ / - zoom, ← → pan, 0 the whole run)' },
  { key: 'f m d r R', what: 'On the zoomed frame or the sandwich function: focus, merge into callers, drop its samples, collapse recursion, collapse direct recursion only (R: shift r)' },
  { key: 'W S A D', what: 'Timeline, once clicked: zoom in, zoom out, pan left, pan right (as Perfetto; also + - ← →), 0 the whole run' },
  { key: '← → - +', what: 'Block layer charts, once clicked: pan, zoom out, zoom in; Esc or a double click the whole run' },
  { key: '?', what: 'Show these shortcuts' },
  { key: 'Esc', what: 'Close a dialog, leave the filter; zoom out one level (flame graph)' },
];

type Handler = (e: KeyboardEvent) => void;
const handlers = new Map<string, Handler[]>();

function typingTarget(t: EventTarget | null): boolean {
  if (!(t instanceof HTMLElement)) return false;
  if (t.isContentEditable) return true;
  const tag = t.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
  if (tag === 'INPUT') {
    const type = (t as HTMLInputElement).type;
    return !['checkbox', 'radio', 'button', 'submit', 'file'].includes(type);
  }
  return false;
}

export function installShortcuts(): () => void {
  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key !== 'Escape' && typingTarget(e.target)) return;
    const list = handlers.get(e.key);
    const h = list?.[list.length - 1];
    if (h) h(e);
  };
  window.addEventListener('keydown', onKey);
  return () => window.removeEventListener('keydown', onKey);
}

/** While mounted (and `enabled`), pressing `key` calls `fn`; the most recently mounted handler wins. */
export function useShortcut(key: string, fn: Handler, enabled = true): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    if (!enabled) return;
    const h: Handler = (e) => ref.current(e);
    const list = handlers.get(key) ?? [];
    list.push(h);
    handlers.set(key, list);
    return () => {
      const l = handlers.get(key) ?? [];
      const i = l.indexOf(h);
      if (i >= 0) l.splice(i, 1);
    };
  }, [key, enabled]);
}
