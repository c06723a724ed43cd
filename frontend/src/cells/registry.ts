// The one place that lists cell kinds. Adding a kind (flame graph, sched, block, lock_stat...)
// = one folder under cells/ + one line here. The URL module, the "add cell" menu and the
// notebook all read this table.
import type { CellKind } from './types';
import { fioTableCell } from './fio/kind';
import { noteCell } from './note/kind';

export const registry: Readonly<Record<string, CellKind<unknown>>> = {
  [fioTableCell.kind]: fioTableCell,
  [noteCell.kind]: noteCell,
};

/** The cells a new notebook starts with. */
export const DEFAULT_CELLS: readonly string[] = [fioTableCell.kind];

export function cellKind(kind: string): CellKind<unknown> | undefined {
  return Object.prototype.hasOwnProperty.call(registry, kind) ? registry[kind] : undefined;
}

export const cellKinds = (): CellKind<unknown>[] => Object.values(registry);
