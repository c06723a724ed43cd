// The one place that lists cell kinds. Adding a kind (flame graph, sched, block, lock_stat...)
// = one folder under cells/ + one line here. The URL module, the "add cell" menu, the notebook
// and its starter cells all read this table.
import type { CapturePublic } from '../api/client';
import { introText } from '../logic/notebook';
import type { CellKind } from './types';
import { fioTableCell } from './fio/kind';
import { fioLogCell } from './fiolog/kind';
import { sweepCell } from './sweep/kind';
import { sweepLineCell } from './sweepline/kind';
import { flameCell } from './flame/kind';
import { lockStatCell } from './lockstat/kind';
import { noteCell } from './note/kind';
import { schedCell } from './sched/kind';
import { blockCell } from './block/kind';
import { sqlCell } from './sql/kind';
import { eventsCell } from './events/kind';
import { monitorsCell } from './monitors/kind';
import { offcpuCell } from './offcpu/kind';
import { timelineCell } from './timeline/kind';

export const registry: Readonly<Record<string, CellKind<unknown>>> = {
  [fioTableCell.kind]: fioTableCell,
  [sweepCell.kind]: sweepCell,
  [sweepLineCell.kind]: sweepLineCell,
  [fioLogCell.kind]: fioLogCell,
  [schedCell.kind]: schedCell,
  [noteCell.kind]: noteCell,
  [sqlCell.kind]: sqlCell,
  [lockStatCell.kind]: lockStatCell,
  [flameCell.kind]: flameCell,
  [blockCell.kind]: blockCell,
  [eventsCell.kind]: eventsCell,
  [monitorsCell.kind]: monitorsCell,
  [offcpuCell.kind]: offcpuCell,
  [timelineCell.kind]: timelineCell,
};

/** The cells of a version-0 link (`/compare?captures=A,B`, no cells): frozen, old links rely on it. */
export const DEFAULT_CELLS: readonly string[] = [fioTableCell.kind];

export function cellKind(kind: string): CellKind<unknown> | undefined {
  return Object.prototype.hasOwnProperty.call(registry, kind) ? registry[kind] : undefined;
}

/** A saved cell's kind as people call it: 'markdown' and 'sql' cells, then the view kinds' titles. */
export function cellKindTitle(kind: string): string {
  if (kind === 'markdown') return noteCell.title;
  return cellKind(kind)?.title ?? kind;
}

export const cellKinds = (): CellKind<unknown>[] => Object.values(registry);

export interface StarterCell {
  kind: string;
  full: boolean;
  state: unknown;
}

/**
 * "Compare these captures": a Markdown intro naming the captures, then every kind whose
 * `starter` says it applies to the data these captures hold, in registry order.
 */
export function starterCells(captures: readonly CapturePublic[], baseline: string): StarterCell[] {
  const intro: StarterCell = { kind: noteCell.kind, full: false, state: { text: introText(captures, baseline) } };
  const views = cellKinds()
    .filter((k) => k.starter?.(captures))
    .map((k) => ({ kind: k.kind, full: false, state: k.starterState?.(captures, baseline) ?? k.defaultState }));
  return [intro, ...views];
}
