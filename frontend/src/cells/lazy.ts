// A cell kind's component, loaded when a notebook first shows a cell of that kind: the page's first
// script holds the registry (names, URL decoders, starters) and not the views it does not show.
// `preload` starts the load early (main.tsx, from the URL, before React renders the notebook).
import { lazy, type ComponentType } from 'react';
import type { CellProps } from './types';

export function lazyCell<S>(load: () => Promise<ComponentType<CellProps<S>>>): {
  Component: ComponentType<CellProps<S>>;
  preload: () => Promise<ComponentType<CellProps<S>>>;
} {
  let loading: Promise<ComponentType<CellProps<S>>> | null = null;
  const preload = () => (loading ??= load());
  return { Component: lazy(() => preload().then((C) => ({ default: C }))), preload };
}
