// A tiny history router: the current location as React state, navigate(), and <Link>. What a
// location means is decided by state/url.ts, not here (components/ sit under state/, which reads the
// cell registry: the router needs nothing of either).
import { createElement, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

const EVENT = 'iolens:navigate';

function subscribe(cb: () => void): () => void {
  window.addEventListener('popstate', cb);
  window.addEventListener(EVENT, cb);
  return () => {
    window.removeEventListener('popstate', cb);
    window.removeEventListener(EVENT, cb);
  };
}

const snapshot = () => window.location.pathname + window.location.search;

/** The current path + query string; re-renders on navigation. */
export function useLocation(): { pathname: string; search: string; href: string } {
  const href = useSyncExternalStore(subscribe, snapshot, snapshot);
  const i = href.indexOf('?');
  return { pathname: i < 0 ? href : href.slice(0, i), search: i < 0 ? '' : href.slice(i), href };
}

/** `keepScroll`: the same page in a new state (a notebook's cell zoomed, searched, edited): the
 *  window stays where it is instead of going back to the top as for a new page. */
export function navigate(to: string, opts: { replace?: boolean; keepScroll?: boolean } = {}): void {
  if (to === snapshot()) return;
  // A replaced entry keeps its state (the library's ticked captures, for one).
  if (opts.replace) window.history.replaceState(window.history.state, '', to);
  else window.history.pushState(null, '', to);
  window.dispatchEvent(new Event(EVENT));
  if (!opts.replace && !opts.keepScroll) window.scrollTo(0, 0);
}

export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const { to, onClick, ...rest } = props;
  return createElement('a', {
    ...rest,
    href: to,
    onClick: (e: MouseEvent<HTMLAnchorElement>) => {
      onClick?.(e);
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(to);
    },
  });
}
