// @vitest-environment happy-dom
// lazyComponent in a real React tree (happy-dom): a component first drawn while its code was still
// loading keeps its state when the code comes and the parent draws again. It holds because `loaded`
// is set before React.lazy's own promise settles, so the wrapper is never committed: were it set
// later, the next draw would swap the wrapper's element type for the loaded component's and React
// would unmount the cell (an open Text editor closed, a flame view's state lost).
import { act, cleanup, render, screen } from '@testing-library/react';
import { Suspense, useState, type ComponentType } from 'react';
import { afterEach, expect, test } from 'vitest';
import { lazyComponent } from './lazy';

afterEach(cleanup);

function Counter({ label }: { label: string }) {
  const [n, setN] = useState(0);
  return (
    <button type="button" onClick={() => setN(n + 1)}>
      {label} {n}
    </button>
  );
}

function deferred() {
  let give!: (c: ComponentType<{ label: string }>) => void;
  const promise = new Promise<ComponentType<{ label: string }>>((r) => (give = r));
  return { promise, give };
}

test('a component drawn before its code came keeps its state when the parent draws again', async () => {
  const code = deferred();
  const view = lazyComponent(() => code.promise);
  const Page = ({ tick }: { tick: number }) => (
    <Suspense fallback={<p>loading</p>}>
      <view.Component label={`view ${tick > 0 ? 'again' : 'first'}`} />
    </Suspense>
  );
  const { rerender } = render(<Page tick={0} />);
  expect(screen.getByText('loading')).toBeTruthy();
  await act(async () => {
    code.give(Counter);
    await code.promise;
  });
  const button = await screen.findByRole('button');
  expect(button.textContent).toBe('view first 0');
  await act(async () => button.click());
  expect(screen.getByRole('button').textContent).toBe('view first 1');
  // The parent draws again once every pending task has run (the code long loaded): the same
  // instance, its count kept.
  await act(async () => {
    await new Promise((r) => setTimeout(r, 5));
  });
  rerender(<Page tick={1} />);
  expect(screen.getByRole('button').textContent).toBe('view again 1');
  expect(screen.getByRole('button')).toBe(button);
});

test('a component whose code came first renders at once, without the fallback', async () => {
  const view = lazyComponent(() => Promise.resolve(Counter));
  await view.preload();
  render(
    <Suspense fallback={<p>loading</p>}>
      <view.Component label="ready" />
    </Suspense>,
  );
  expect(screen.queryByText('loading')).toBeNull();
  expect(screen.getByRole('button').textContent).toBe('ready 0');
});
