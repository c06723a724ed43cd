import type { ComponentType } from 'react';
import type { CapturePublic } from '../api/client';
import type { SharedTime } from './timeline/shared';

/** What every cell gets to know about the notebook it sits in. */
export interface NotebookContext {
  /** Capture ids in the order of the URL (colours follow this order). */
  captures: string[];
  baseline: string;
  /** The notebook's one shared time selection (a timeline cell's brush; timeline/shared.ts):
   *  the flame, block and scheduler cells show it applied. Absent or null: none. */
  time?: SharedTime | null;
  /** Clears the shared time selection. */
  clearTime?: () => void;
  /** The URL of this notebook with one more capture (an empty state's "add a capture that has it"). */
  withCapture?: (id: string) => string;
  /** Captures of the link the server said have no call stacks (index.html's
   *  `<meta name="iolens-without-stacks">`, api/index_preload.py): known before the capture list. */
  withoutStacks?: readonly string[];
}

export interface CellProps<S> {
  ctx: NotebookContext;
  state: S;
  setState: (s: S) => void;
  /** Whether the cell spans the notebook's full width (wide tables may use more room). */
  full: boolean;
  /**
   * Open another view next to this cell: scrolls to an identical cell of the notebook, or adds
   * one (kind, state) right after this cell. Absent where a cell is drawn outside a notebook.
   */
  openCell?: (kind: string, state: unknown) => void;
  /**
   * Where the cell may keep input the user typed and has not committed yet (components/drafts.ts),
   * so that a reload does not lose it. Absent outside a notebook.
   */
  draftKey?: string;
}

export interface CellKind<S> {
  /** URL name of the kind: [a-z][a-z0-9_-]*. Never rename one: old links name it. */
  kind: string;
  title: string;
  /** One line for the "add cell" menu. */
  description: string;
  defaultState: S;
  /** State -> its part of the URL. The default state should encode to ''. */
  encode: (s: S) => string;
  /** Its part of the URL -> state, or an Error saying what is wrong. Must not throw. */
  decode: (s: string) => S | Error;
  /** The view (lazy: cells/lazy.ts loads its code when a notebook first shows the kind). */
  Component: ComponentType<CellProps<S>>;
  /** Starts loading Component's code before it is rendered (boot.ts, from the URL). */
  preload?: () => Promise<unknown>;
  /**
   * Starts the requests a cell of this state will make when it mounts, before the page has
   * rendered (boot.ts, from the URL): the same query keys, so the cell finds them under way.
   */
  prefetch?: (ctx: NotebookContext, state: S) => void;
  /**
   * Whether "compare these captures" starts a notebook with this cell, given what the captures
   * hold (e.g. `c.artifact_kinds.includes('lock-stat')`). Absent: never a starter cell.
   */
  starter?: (captures: readonly CapturePublic[]) => boolean;
  /** The starter cell's state when not `defaultState` (e.g. which capture it shows), from the same facts. */
  starterState?: (captures: readonly CapturePublic[], baseline: string) => S;
}

/** Helper to declare a kind with its state type checked, stored type-erased in the registry. */
export function defineCell<S>(k: CellKind<S>): CellKind<unknown> {
  return k as unknown as CellKind<unknown>;
}
