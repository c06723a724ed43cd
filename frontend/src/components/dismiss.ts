// A menu at the pointer (a right click on a frame or a name): closed by a click anywhere, a scroll of
// anything, or Escape.
import { useEffect, useRef } from 'react';

/**
 * While mounted, a click anywhere, a scroll of any element or Escape calls `onClose`. Escape is heard in
 * the capture phase at the window and goes no further: before the shortcut registry (shortcuts.ts, whose
 * most recently registered Escape wins: a view that registers its zoom-out again after the menu opened
 * took it, and the difference view's menu stayed open) and before any element's own key handler. The
 * menu over the graph closes first, without the zoom out. A click inside the menu is the menu's own (stop
 * it from reaching the window).
 */
export function useDismiss(onClose: () => void): void {
  const ref = useRef(onClose);
  ref.current = onClose;
  useEffect(() => {
    const close = () => ref.current();
    const key = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      e.preventDefault();
      ref.current();
    };
    window.addEventListener('click', close);
    window.addEventListener('scroll', close, true);
    window.addEventListener('keydown', key, true);
    return () => {
      window.removeEventListener('click', close);
      window.removeEventListener('scroll', close, true);
      window.removeEventListener('keydown', key, true);
    };
  }, []);
}
