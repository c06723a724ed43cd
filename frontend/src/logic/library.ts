// Filtering and sorting of the capture library. Pure; tests in library.test.ts.
import type { CapturePublic } from '../api/client';

/** The library's sortable columns (the URL's `sort=[-]KEY`, state/url.ts). */
export const SORT_KEYS = ['label', 'kernel', 'host', 'date', 'runs', 'workload'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export interface Sort {
  key: SortKey;
  desc: boolean;
}
export const DEFAULT_SORT: Sort = { key: 'date', desc: true };

/** The text a filter matches against: label, tags (k=v), kernel, host, workload. */
export function searchText(c: CapturePublic): string {
  const tags = Object.entries(c.tags).map(([k, v]) => `${k}=${v} ${v}`);
  return [c.label, ...tags, c.kernel ?? '', c.hostname ?? '', c.workload_summary ?? '', c.id].join(' ').toLowerCase();
}

/** Every whitespace-separated word of the query must occur somewhere (case-insensitive). */
export function filterCaptures(list: readonly CapturePublic[], query: string): CapturePublic[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...list];
  return list.filter((c) => {
    const t = searchText(c);
    return words.every((w) => t.includes(w));
  });
}

function sortValue(c: CapturePublic, key: SortKey): string | number {
  switch (key) {
    case 'label':
      return c.label.toLowerCase();
    case 'kernel':
      return c.kernel ?? '';
    case 'host':
      return (c.hostname ?? '').toLowerCase();
    case 'date':
      return c.created_at;
    case 'runs':
      return c.runs * 10000 + c.repeats;
    case 'workload':
      return (c.workload_summary ?? c.workload_kind).toLowerCase();
  }
}

// made on first use: creating it loads ICU's collation data (~25 ms), and this module is in
// every page's first script (state/url.ts reads its sort keys)
let collator: Intl.Collator | null = null;

export function sortCaptures(list: readonly CapturePublic[], sort: Sort): CapturePublic[] {
  const dir = sort.desc ? -1 : 1;
  return [...list].sort((a, b) => {
    const x = sortValue(a, sort.key);
    const y = sortValue(b, sort.key);
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : (collator ??= new Intl.Collator('en', { numeric: true })).compare(String(x), String(y));
    return c !== 0 ? c * dir : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  });
}
