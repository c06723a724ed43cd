// @vitest-environment happy-dom
// React's DOM behaviours that preact/compat lacks (reactParity.ts, installed by Vitest's setupFiles as
// by the page's main.tsx): each test fails without it.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, expect, test, vi } from 'vitest';

afterEach(cleanup);

test('spellCheck={false} writes spellcheck="false", as React does (the frame search, the SQL editor)', () => {
  render(<input aria-label="q" spellCheck={false} />);
  expect(screen.getByLabelText('q').getAttribute('spellcheck')).toBe('false');
});

function Filter({ seen }: { seen: (v: string) => void }) {
  const [q, setQ] = useState('ext4');
  seen(q);
  return <input type="search" aria-label="filter" value={q} onChange={(e) => setQ(e.target.value)} />;
}

test("a controlled search field's change event with a new value reaches onChange (Chromium's Escape after a blur sends no input event)", () => {
  const seen = vi.fn();
  render(<Filter seen={seen} />);
  const box = screen.getByLabelText<HTMLInputElement>('filter');
  box.value = '';
  fireEvent.change(box);
  expect(seen).toHaveBeenLastCalledWith('');
});

test('a change event with the value already rendered does not call onChange again (blur after typing)', () => {
  const onChange = vi.fn();
  render(<input aria-label="t" value="abc" onChange={onChange} />);
  const box = screen.getByLabelText('t');
  fireEvent.input(box, { target: { value: 'abcd' } });
  expect(onChange).toHaveBeenCalledTimes(1);
  (box as HTMLInputElement).value = 'abc';
  fireEvent.change(box);
  expect(onChange).toHaveBeenCalledTimes(1);
});
