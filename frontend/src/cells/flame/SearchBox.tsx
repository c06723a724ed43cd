// The search box of both views: a regular expression, shown as it is typed (onDraft: every
// keystroke, no wait), committed to the cell's state (the URL) 300 ms after typing stops or on
// Enter, and focused by '/'.
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useShortcut } from '../../components/shortcuts';

// The notebook remounts a cell when its state changes: a search committed while typing gives the
// focus (and the caret) back to the new cell's box.
let refocus: { cell: string | undefined; at: number } | null = null;

export function SearchBox({
  value,
  onChange,
  onDraft,
  status,
  error,
}: {
  value: string;
  onChange: (v: string) => void;
  /** Every change of the text, before it is committed: the view highlights it at once. */
  onDraft?: (v: string) => void;
  status: ReactNode;
  error: string | null;
}) {
  const [draft, setDraft] = useState(value);
  const input = useRef<HTMLInputElement>(null);
  const cellId = () => input.current?.closest('section.cell')?.id;
  const commit = (v: string) => {
    if (document.activeElement === input.current) refocus = { cell: cellId(), at: input.current?.selectionStart ?? v.length };
    onChange(v);
  };
  useEffect(() => setDraft(value), [value]);
  useEffect(() => onDraft?.(draft), [draft, onDraft]);
  useEffect(() => {
    if (refocus && refocus.cell === cellId() && input.current) {
      input.current.focus();
      input.current.setSelectionRange(refocus.at, refocus.at);
      refocus = null;
    }
  }, []);
  useEffect(() => {
    if (draft === value) return;
    const t = setTimeout(() => commit(draft), 300);
    return () => clearTimeout(t);
  });
  useShortcut('/', (e) => {
    e.preventDefault();
    input.current?.focus();
    input.current?.select();
  });
  return (
    <div className="flame-search">
      <div className="filter">
        <input
          ref={input}
          type="search"
          placeholder="Search frames (regex)"
          aria-label="Search frames (regular expression)"
          value={draft}
          spellCheck={false}
          className={error ? 'bad' : ''}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commit(draft);
            if (e.key === 'Escape') {
              e.stopPropagation();
              if (draft) setDraft('');
              else input.current?.blur();
            }
          }}
        />
        {!draft && <kbd className="filter-kbd">/</kbd>}
      </div>
      <span className={`search-status${error ? ' bad' : ''}`} data-testid="flame-search-status">
        {error ? `not a regular expression: ${error}` : status}
      </span>
    </div>
  );
}
