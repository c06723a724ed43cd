// Unsaved input kept in the browser: what was typed into a text cell or the title and not yet
// committed to the notebook's URL survives a reload, a crash or a closed tab. Keyed by the page
// (path and query) and the field; entries older than MAX_AGE_DAYS are dropped.
import { useEffect, useRef } from 'react';

const PREFIX = 'iolens:draft:';
const MAX_AGE_DAYS = 30;

export interface Draft {
  text: string;
  /** When it was last typed, ms since the epoch. */
  at: number;
}

function store(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // storage refused (privacy settings): drafts are only kept in memory
  }
}

let pruned = false;
function prune(s: Storage): void {
  if (pruned) return;
  pruned = true;
  const old = Date.now() - MAX_AGE_DAYS * 86_400_000;
  for (let i = s.length - 1; i >= 0; i--) {
    const k = s.key(i);
    if (!k?.startsWith(PREFIX)) continue;
    const d = parse(s.getItem(k));
    if (!d || d.at < old) s.removeItem(k);
  }
}

function parse(raw: string | null): Draft | null {
  if (!raw) return null;
  try {
    const d = JSON.parse(raw) as unknown;
    if (d && typeof d === 'object' && typeof (d as Draft).text === 'string' && typeof (d as Draft).at === 'number') return d as Draft;
  } catch {
    /* not ours */
  }
  return null;
}

/** The page's key of one field: `/compare?…#cell-2`. */
export function draftKey(field: string): string {
  return `${window.location.pathname}${window.location.search}#${field}`;
}

/**
 * Opens the drafts' storage and drops the stale entries, once per page: the first use of
 * localStorage in a tab waits for the browser process to send the origin's storage (a synchronous
 * call: 3-6 ms in a fresh tab, ~30 ms on a loaded machine). main.tsx calls this while the page's
 * React chunk compiles, so that the title's first render (loadDraft) does not wait for it.
 */
export function openDrafts(): void {
  const s = store();
  if (s) prune(s);
}

export function loadDraft(key: string): Draft | null {
  const s = store();
  if (!s) return null;
  prune(s);
  return parse(s.getItem(PREFIX + key));
}

export function saveDraft(key: string, text: string): void {
  try {
    store()?.setItem(PREFIX + key, JSON.stringify({ text, at: Date.now() } satisfies Draft));
  } catch {
    /* quota: the draft stays in memory only */
  }
}

export function clearDraft(key: string): void {
  store()?.removeItem(PREFIX + key);
}

/**
 * While `active` and `text` differs from what the notebook holds (`committed`), keep it as the
 * draft of `key`; once they agree (or the field closes), forget it. A key that changes (the URL
 * moved because another cell changed) carries the draft along.
 */
export function useKeptDraft(key: string | undefined, text: string, committed: string, active: boolean): void {
  const last = useRef(key);
  useEffect(() => {
    if (last.current && last.current !== key) clearDraft(last.current);
    last.current = key;
    if (!key) return;
    if (active && text !== committed) saveDraft(key, text);
    else clearDraft(key);
  }, [key, text, committed, active]);
}
