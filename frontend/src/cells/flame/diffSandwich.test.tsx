// @vitest-environment happy-dom
// From a function of a difference to its sandwich (callers above, callees below): the ⇅ of the
// largest changes opens it in the after side, a right click on the name offers either side; the
// state it sets is one capture's (or one time range's) flame view, which survives the URL form.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, expect, test, vi } from 'vitest';
import { DiffTable } from './DiffView';
import type { FlameDiffFunction } from './queries';
import { ALL_TASKS, decodeFlame, defaultFlameState, encodeFlame, sandwichOfPair, sandwichOfRange, type FlameState } from './state';

afterEach(cleanup);

const row = (name: string, a: number, b: number): FlameDiffFunction => ({ name, self_a: a, self_b: b, total_a: a, total_b: b, delta_self: b - a, delta_total: b - a, samples_a: 10, samples_b: 20 });
const rows = [row('_raw_spin_unlock_irqrestore', 27.4, 41.1), row('do_user_addr_fault', 3.5, 1.22)];

function table(onSandwich?: (fn: string, side: 'a' | 'b') => void, onMenu?: (name: string, x: number, y: number) => void) {
  return render(<DiffTable rows={rows} count={2} by="self" onBy={() => {}} la="dio-probes-6.1-xfs" lb="dio-probes-6.12-xfs" noise={false} few={true} onPick={() => {}} onSandwich={onSandwich} onMenu={onMenu} />);
}

test("the largest changes' ⇅ opens a function's sandwich in the after capture; a right click on its name offers both sides", () => {
  const onSandwich = vi.fn();
  const onMenu = vi.fn();
  table(onSandwich, onMenu);
  fireEvent.click(screen.getByRole('button', { name: 'Sandwich of do_user_addr_fault' }));
  expect(onSandwich).toHaveBeenCalledWith('do_user_addr_fault', 'b');
  expect(screen.getByRole('button', { name: 'Sandwich of do_user_addr_fault' }).title).toBe('Callers and callees of do_user_addr_fault in dio-probes-6.12-xfs (sandwich)');
  fireEvent.contextMenu(screen.getByRole('button', { name: '_raw_spin_unlock_irqrestore' }), { clientX: 40, clientY: 50 });
  expect(onMenu).toHaveBeenCalledWith('_raw_spin_unlock_irqrestore', 40, 50);
  // the table's legend says how
  expect(screen.getByTestId('flame-diff-table').parentElement!.textContent).toContain('⇅ callers and callees in the after side (sandwich), right click for either side');
});

test('without a way to a sandwich (no handler) the table has no ⇅', () => {
  table();
  expect(screen.queryByRole('button', { name: /^Sandwich of/ })).toBeNull();
});

test("a pair's function opens that capture's sandwich over the pair's tasks, and the URL keeps it", () => {
  const diff: FlameState = { ...defaultFlameState, view: 'diff', a: 'aaaa', b: 'bbbb', zoom: ['fio', 'x'], runs: ['r001'], tid: 7 };
  const after = { ...diff, ...sandwichOfPair('iomap_dio_rw', 'bbbb', 'aaaa', 'fio') };
  expect(after).toMatchObject({ view: 'flame', cap: 'bbbb', show: 'sandwich', fn: 'iomap_dio_rw', comm: 'fio', zoom: [], runs: null, tid: null });
  expect(decodeFlame(encodeFlame(after))).toEqual(after);
  // the notebook's first capture is the flame view's default (cap absent)
  const before = { ...diff, ...sandwichOfPair('iomap_dio_rw', 'aaaa', 'aaaa', null) };
  expect(before.cap).toBeNull();
  expect(before.comm).toBeNull();
  expect(decodeFlame(encodeFlame(before))).toEqual(before);
  expect(ALL_TASKS).toBe('*');
});

test("two time ranges' function opens the sandwich of range A, or of range B as the time range", () => {
  const ranges: FlameState = { ...defaultFlameState, from: 1e9, to: 3e9, rangeB: { from: 8e9, to: 12e9 } };
  const a = { ...ranges, ...sandwichOfRange('xfs_log_reserve', 'a', ranges.rangeB!) };
  expect(a).toMatchObject({ from: 1e9, to: 3e9, rangeB: null, show: 'sandwich', fn: 'xfs_log_reserve' });
  const b = { ...ranges, ...sandwichOfRange('xfs_log_reserve', 'b', ranges.rangeB!) };
  expect(b).toMatchObject({ from: 8e9, to: 12e9, rangeB: null, show: 'sandwich', fn: 'xfs_log_reserve' });
  expect(decodeFlame(encodeFlame(b))).toEqual(b);
  // B from the run's start: 0 is stored as null
  expect(sandwichOfRange('f', 'b', { from: 0, to: 2e9 })).toMatchObject({ from: null, to: 2e9 });
});

test('the largest changes say how many of the functions they list: "Show 30 of 50", not "Show all 30"', () => {
  const many = Array.from({ length: 30 }, (_, i) => row(`f${i}`, 30 - i, 0));
  render(<DiffTable rows={many} count={50} by="self" onBy={() => {}} la="a" lb="b" noise={false} few={false} onPick={() => {}} />);
  expect(screen.queryByText(/^Show all/)).toBeNull();
  fireEvent.click(screen.getByRole('button', { name: 'Show 30 of 50' }));
  expect(screen.getByTestId('flame-diff-unlisted').textContent).toBe('30 of the 50 functions listed: the largest changes of self share and of total share; the other 20 changed less.');
  expect(screen.getByTestId('flame-diff-table').querySelectorAll('tbody tr')).toHaveLength(30);
  cleanup();
  // every function listed: "Show all"
  render(<DiffTable rows={many} count={30} by="self" onBy={() => {}} la="a" lb="b" noise={false} few={false} onPick={() => {}} />);
  expect(screen.getByRole('button', { name: 'Show all 30' })).toBeTruthy();
  expect(screen.queryByTestId('flame-diff-unlisted')).toBeNull();
});
