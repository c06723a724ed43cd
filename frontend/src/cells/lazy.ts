// A cell kind's component, loaded when a notebook first shows a cell of that kind: the page's first
// script holds the registry (names, URL decoders, starters) and not the views it does not show.
// `preload` starts the load early (boot.ts, from the URL, before React renders the notebook).
// Once loaded, the component renders at once: a cell whose code came before React first rendered
// it (index.html preloads the flame cell's) does not suspend, show its fallback, and render again.
import { createElement, lazy, type ComponentType } from 'react';
import type { CellProps } from './types';

/** A component loaded on first use, `preload` to start it earlier; rendered at once once loaded. */
export function lazyComponent<P extends object>(load: () => Promise<ComponentType<P>>): {
  Component: ComponentType<P>;
  preload: () => Promise<ComponentType<P>>;
} {
  let loading: Promise<ComponentType<P>> | null = null;
  let loaded: ComponentType<P> | null = null;
  const preload = () => (loading ??= load().then((C) => (loaded = C)));
  const Lazy = lazy(() => preload().then((C) => ({ default: C })));
  const Component = (props: P) => createElement(loaded ?? Lazy, props);
  return { Component, preload };
}

export function lazyCell<S>(load: () => Promise<ComponentType<CellProps<S>>>): {
  Component: ComponentType<CellProps<S>>;
  preload: () => Promise<ComponentType<CellProps<S>>>;
} {
  return lazyComponent<CellProps<S>>(load);
}
