// @vitest-environment happy-dom
// useQuery in a real React tree (happy-dom): the component redraws when its answer comes, whenever
// it comes, in particular between the render that showed "loading" and that render's effect (the
// race that left the captures page on "Loading captures..." on a fast server).
import { act, cleanup, render, screen } from '@testing-library/react';
import { useLayoutEffect } from 'react';
import { afterEach, expect, test } from 'vitest';
import { ApiError } from './client';
import { invalidate, useQuery } from './useQuery';

afterEach(() => {
  drawn = [];
  cleanup();
  invalidate('test:');
});

/** A request whose answer the test gives by hand, at the moment it chooses: `fetcher().then(ok, fail)`
 *  keeps useQuery's callbacks, and `answer`/`fail` call them at once (no microtask in between); the
 *  promise then() returns settles after them, as a real promise's does. */
function manual<T>() {
  let ok: ((v: T) => void) | undefined;
  let bad: ((e: unknown) => void) | undefined;
  let asked = 0;
  const thenable = {
    then(onOk: (v: T) => unknown, onBad: (e: unknown) => unknown) {
      return new Promise<void>((done) => {
        ok = (v) => {
          onOk(v);
          done();
        };
        bad = (e) => {
          onBad(e);
          done();
        };
      });
    },
  };
  return {
    fetcher: () => {
      asked++;
      return thenable as unknown as Promise<T>;
    },
    answer: (v: T) => ok!(v),
    fail: (e: unknown) => bad!(e),
    asked: () => asked,
  };
}

/** What each render of Answer showed, in order. */
let drawn: string[] = [];

function Answer({ k, fetcher }: { k: string; fetcher: () => Promise<string> }) {
  const q = useQuery(k, fetcher);
  const text = q.loading ? 'loading' : q.error ? `error: ${q.error.message}` : `answer: ${q.data}`;
  drawn.push(text);
  return <p data-testid="answer">{text}</p>;
}

/** Runs `f` in the commit of the render that mounts it: after every component of that render was
 *  drawn, before any of their effects (layout effects run before passive ones). */
function InCommit({ f }: { f: () => void }) {
  useLayoutEffect(f, [f]);
  return null;
}

/** Let pending promise callbacks and timers run, and React redraw what they changed. */
const settle = () => act(() => new Promise<void>((r) => setTimeout(r, 20)));

test('an answer that comes between the render and its effect redraws the component', async () => {
  const m = manual<string>();
  render(
    <>
      <Answer k="test:race" fetcher={m.fetcher} />
      <InCommit f={() => m.answer('42')} />
    </>,
  );
  await settle();
  // the first render showed "loading" (the answer came after it), the next one the answer
  expect(drawn[0]).toBe('loading');
  expect(screen.getByTestId('answer').textContent).toBe('answer: 42');
  expect(m.asked()).toBe(1);
});

test('an error that comes between the render and its effect is shown', async () => {
  const m = manual<string>();
  render(
    <>
      <Answer k="test:race-error" fetcher={m.fetcher} />
      <InCommit f={() => m.fail(new ApiError('no such capture', 404))} />
    </>,
  );
  await settle();
  expect(screen.getByTestId('answer').textContent).toBe('error: no such capture');
});

test('an answer after the effect redraws; one that came before the render is drawn at once', async () => {
  const m = manual<string>();
  render(<Answer k="test:late" fetcher={m.fetcher} />);
  expect(screen.getByTestId('answer').textContent).toBe('loading');
  await settle();
  expect(screen.getByTestId('answer').textContent).toBe('loading');
  await act(async () => {
    m.answer('7');
  });
  await settle();
  expect(screen.getByTestId('answer').textContent).toBe('answer: 7');
  cleanup();
  // the same key again: the cached answer, no second request
  render(<Answer k="test:late" fetcher={m.fetcher} />);
  expect(screen.getByTestId('answer').textContent).toBe('answer: 7');
  expect(m.asked()).toBe(1);
});

test('invalidate(prefix, true): the answer shown stays until the new one comes; without it, "loading"', async () => {
  const first = manual<string>();
  render(<Answer k="test:list" fetcher={first.fetcher} />);
  await act(async () => {
    first.answer('2 captures');
  });
  await settle();
  expect(screen.getByTestId('answer').textContent).toBe('answer: 2 captures');
  // an upload finished: the list again, the old one shown meanwhile
  const second = manual<string>();
  cleanup();
  drawn = [];
  render(<Answer k="test:list" fetcher={second.fetcher} />);
  await act(async () => {
    invalidate('test:list', true);
  });
  await settle();
  expect(second.asked()).toBe(1);
  expect(screen.getByTestId('answer').textContent).toBe('answer: 2 captures');
  await act(async () => {
    second.answer('3 captures');
  });
  await settle();
  expect(screen.getByTestId('answer').textContent).toBe('answer: 3 captures');
  expect(drawn).not.toContain('loading');
  // the plain invalidate (the SQL cell's Run again): "loading" until the answer
  const third = manual<string>();
  cleanup();
  render(<Answer k="test:list" fetcher={third.fetcher} />);
  await act(async () => {
    invalidate('test:list');
  });
  await settle();
  expect(screen.getByTestId('answer').textContent).toBe('loading');
});
