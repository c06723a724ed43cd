// @vitest-environment happy-dom
// useZoom in a real React tree (happy-dom): a zoom is drawn from the cell's own state at once, and
// written to the URL (the notebook's state, which renders every cell again) only after the frame
// that shows it; the URL's path takes over when it arrives, or when it moves elsewhere (Back).
import { act, cleanup, render } from '@testing-library/react';
import { afterEach, expect, test, vi } from 'vitest';
import { findPath, layoutTree, treeFromFolded, type FlameLayout } from '../../logic/flame';
import { useZoom } from './parts';
import { defaultFlameState, type FlameState } from './state';

afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const tree = treeFromFolded(new Map([['fio;entry;read;copy', 1], ['fio;entry;write', 5], ['fio;entry;write;iomap', 2]]));
const lay: FlameLayout = layoutTree({ names: tree.names, name: tree.name, depth: tree.depth, self: tree.values[0]! });
function node(path: string[]): number {
  const f = findPath(lay, path);
  expect(f.missing).toEqual([]);
  return f.node;
}

let seen: { zoom: number; zoomTo: (n: number) => void } = { zoom: -1, zoomTo: () => {} };
function Probe({ state, set }: { state: FlameState; set: (p: Partial<FlameState>) => void }) {
  const z = useZoom(lay, state, set);
  seen = { zoom: z.zoom, zoomTo: z.zoomTo };
  return <span data-zoom={z.zoom} />;
}

test('a zoom is drawn before the URL is written, and the URL is written after the next frame', () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'requestAnimationFrame'] });
  const set = vi.fn();
  const view = render(<Probe state={defaultFlameState} set={set} />);
  const write = node(['fio', 'entry', 'write']);
  expect(seen.zoom).toBe(0);
  act(() => seen.zoomTo(write));
  expect(seen.zoom).toBe(write); // drawn from the cell's state
  expect(set).not.toHaveBeenCalled(); // the notebook is not rendered again before the paint
  act(() => vi.advanceTimersToNextFrame());
  expect(set).not.toHaveBeenCalled(); // the frame's callbacks run first, the write is a task after it
  act(() => vi.runOnlyPendingTimers());
  expect(set).toHaveBeenCalledWith({ zoom: ['fio', 'entry', 'write'] });
  // the URL's state arrives: the same frame, now from the path
  view.rerender(<Probe state={{ ...defaultFlameState, zoom: ['fio', 'entry', 'write'] }} set={set} />);
  expect(seen.zoom).toBe(write);
});

test('a URL that moves elsewhere before the write wins over the pending zoom', () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'requestAnimationFrame'] });
  const set = vi.fn();
  const view = render(<Probe state={defaultFlameState} set={set} />);
  act(() => seen.zoomTo(node(['fio', 'entry', 'read'])));
  expect(seen.zoom).toBe(node(['fio', 'entry', 'read']));
  view.rerender(<Probe state={{ ...defaultFlameState, zoom: ['fio', 'entry', 'write', 'iomap'] }} set={set} />);
  expect(seen.zoom).toBe(node(['fio', 'entry', 'write', 'iomap']));
});

test('a state object made again from the same URL keeps the pending zoom', () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'requestAnimationFrame'] });
  const set = vi.fn();
  const view = render(<Probe state={{ ...defaultFlameState, zoom: ['fio'] }} set={set} />);
  act(() => seen.zoomTo(node(['fio', 'entry'])));
  view.rerender(<Probe state={{ ...defaultFlameState, zoom: ['fio'] }} set={set} />); // a new array, the same path
  expect(seen.zoom).toBe(node(['fio', 'entry']));
});
