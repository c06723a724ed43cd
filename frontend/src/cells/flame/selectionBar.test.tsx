// @vitest-environment happy-dom
// The selection bar of one capture's flame graph: the Event menu counts each event's stacks in its own
// word (off-CPU waits, wakeups, samples), as the summary does; "All tasks" with a default task filter
// (off-CPU stacks: the workload's own) is kept as a choice (comm=*).
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, expect, test, vi } from 'vitest';
import type { FlameGraphData } from './queries';
import { SelectionBar } from './Selection';
import { ALL_TASKS, defaultFlameState } from './state';

afterEach(cleanup);

const data = {
  events: [
    { event: 'offcpu', samples: 9595, weight: 1, with_stack: 9595 },
    { event: 'wakeup', samples: 1, weight: 1, with_stack: 1 },
  ],
  filters: { event: 'offcpu' },
  runs: [{ id: 'r000', index: 0, repeat: 0, params: {}, samples: 9596, duration_ns: 1e9 }],
  cpus: [],
  comms: [{ comm: 'fio', samples: 1970 }],
  tasks: [],
} as unknown as FlameGraphData;

test("the Event menu says waits and wakeups for off-CPU events, not samples", () => {
  render(<SelectionBar data={data} state={defaultFlameState} set={() => {}} />);
  const options = [...screen.getByRole('option', { name: /^offcpu/ }).parentElement!.querySelectorAll('option')].map((o) => o.textContent);
  expect(options).toEqual(['offcpu · 9,595 waits', 'wakeup · 1 wakeup']);
});

test('"All tasks": comm=* with a default task filter, no filter without one', () => {
  const set = vi.fn();
  render(<SelectionBar data={data} state={{ ...defaultFlameState, comm: 'fio' }} set={set} workComm="fio" />);
  fireEvent.change(screen.getByRole('combobox', { name: 'Task' }), { target: { value: 'all' } });
  expect(set).toHaveBeenLastCalledWith({ tid: null, comm: ALL_TASKS });
  cleanup();
  render(<SelectionBar data={data} state={{ ...defaultFlameState, comm: 'fio' }} set={set} />);
  fireEvent.change(screen.getByRole('combobox', { name: 'Task' }), { target: { value: 'all' } });
  expect(set).toHaveBeenLastCalledWith({ tid: null, comm: null });
});
