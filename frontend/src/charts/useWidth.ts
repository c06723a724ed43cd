// The width of an element, kept up to date (ResizeObserver), and a debounced copy of a value: the
// charts redraw at once when resized, and ask the server again only once resizing has settled.
import { useEffect, useRef, useState } from 'react';

export function useWidth<T extends HTMLElement>(initial = 960): [React.RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(initial);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const w0 = Math.floor(el.getBoundingClientRect().width);
    if (w0 > 0) setWidth(w0);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver((entries) => {
      const w = Math.floor(entries[0]?.contentRect.width ?? 0);
      if (w > 0) setWidth(w);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, width];
}

export function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    if (Object.is(v, value)) return;
    const id = setTimeout(() => setV(value), ms);
    return () => clearTimeout(id);
  }, [value, ms, v]);
  return v;
}
