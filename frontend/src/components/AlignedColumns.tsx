/**
 * Tables shown one under the other as one (a capture's table each, same columns): their columns get
 * the same widths, the widest of each column across the tables, so that the numbers of one capture's
 * table sit under the other's. The tables keep `width: auto` and their own content; each header cell
 * gets an inline width after the natural widths are measured, again whenever rows are added or removed
 * (Show more, a new answer). Tables whose header has another number of cells than the first are left
 * alone.
 */
import { useLayoutEffect, useRef, type ReactNode } from 'react';

export function alignColumns(root: HTMLElement, selector: string): void {
  const heads = [...root.querySelectorAll<HTMLTableElement>(selector)].map((t) => [...(t.tHead?.rows[0]?.cells ?? [])]);
  for (const th of heads.flat()) th.style.width = '';
  const n = heads[0]?.length ?? 0;
  const same = heads.filter((h) => h.length === n);
  if (same.length < 2 || n === 0) return;
  const widths = Array.from({ length: n }, (_, i) => Math.max(...same.map((h) => h[i]!.getBoundingClientRect().width)));
  for (const h of same) h.forEach((th, i) => (th.style.width = `${Math.ceil(widths[i]!)}px`));
}

export function AlignedColumns({ selector, className, testId, children }: { selector: string; className?: string; testId?: string; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const root = ref.current;
    if (!root) return;
    alignColumns(root, selector);
    // Rows or tables added or removed change the natural widths; our own width changes are attributes, not watched.
    const mo = new MutationObserver(() => alignColumns(root, selector));
    mo.observe(root, { childList: true, subtree: true, characterData: true });
    return () => mo.disconnect();
  }, [selector]);
  return (
    <div ref={ref} className={className} data-testid={testId} data-aligned-columns="">
      {children}
    </div>
  );
}
