// Fetch-on-render with a small shared cache: components asking for the same key (the notebook
// header and each fio cell ask for the same comparison) share one request.
import { useCallback, useEffect, useState } from 'react';
import { ApiError } from './client';

interface Entry {
  promise: Promise<unknown>;
  data?: unknown;
  error?: ApiError;
  /** invalidate(prefix, true): the answer shown until this entry's own comes */
  previous?: unknown;
}
const cache = new Map<string, Entry>();
// invalidate(prefix, true): the answers forgotten, kept for the entries that will replace them
const kept = new Map<string, unknown>();
const listeners = new Set<() => void>();

function load<T>(key: string, fetcher: () => Promise<T>): Entry {
  let e = cache.get(key);
  if (!e) {
    const entry: Entry = { promise: Promise.resolve() };
    if (kept.has(key)) {
      entry.previous = kept.get(key);
      kept.delete(key);
    }
    entry.promise = fetcher().then(
      (d) => {
        entry.data = d;
      },
      (err: unknown) => {
        entry.error = err instanceof ApiError ? err : new ApiError(String(err), 0);
      },
    );
    cache.set(key, entry);
    e = entry;
  }
  return e;
}

// requests started by prefetch() and not answered yet
const pending = new Set<Promise<unknown>>();

/**
 * Start a request before any component asks for it (boot.ts: the notebook's answers from its
 * URL, while the page's code loads). The component that later asks for `key` shares it.
 */
export function prefetch<T>(key: string, fetcher: () => Promise<T>): Promise<unknown> {
  const e = load(key, fetcher);
  if (!settled(e) && !pending.has(e.promise)) {
    pending.add(e.promise);
    void e.promise.then(() => pending.delete(e.promise));
  }
  return e.promise;
}

/** Resolves when every request prefetch() started (also while waiting) has its answer or error. */
export function prefetched(): Promise<void> {
  return new Promise((resolve) => {
    const check = () => (pending.size === 0 ? resolve() : void Promise.all(pending).then(check));
    check();
  });
}

/**
 * Forget cached answers whose key starts with `prefix` and re-fetch the ones on screen. `keepShown`:
 * they go on showing their answer (not "loading") until the new one comes, e.g. the library's list
 * after an upload: without it the table vanished and the page jumped at every finished upload.
 */
export function invalidate(prefix: string, keepShown = false): void {
  for (const [k, e] of [...cache.entries()]) {
    if (!k.startsWith(prefix)) continue;
    cache.delete(k);
    if (keepShown && ('data' in e || 'previous' in e)) kept.set(k, 'data' in e ? e.data : e.previous);
    else kept.delete(k);
  }
  listeners.forEach((l) => l());
}

function settled(entry: Entry | undefined): boolean {
  return !!entry && ('data' in entry || !!entry.error);
}

export interface QueryResult<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
}

export function useQuery<T>(key: string | null, fetcher: () => Promise<T>): QueryResult<T> {
  const [, setTick] = useState(0);
  const bump = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    listeners.add(bump);
    return () => {
      listeners.delete(bump);
    };
  }, [bump]);
  const entry = key === null ? undefined : load(key, fetcher);
  const settledAtRender = settled(entry);
  useEffect(() => {
    if (!entry || settledAtRender) return;
    // The answer may have come between this render and this effect (a fast server, a prefetched
    // request): then the render showed "loading" and no promise callback is left to redraw it.
    if (settled(entry)) {
      bump();
      return;
    }
    let live = true;
    entry.promise.then(() => live && bump());
    return () => {
      live = false;
    };
  }, [entry, settledAtRender, bump]);
  const shown = entry && ('data' in entry ? entry.data : entry.error ? undefined : entry.previous);
  return {
    data: shown as T | undefined,
    error: entry?.error,
    loading: !!entry && shown === undefined && !entry.error,
  };
}
