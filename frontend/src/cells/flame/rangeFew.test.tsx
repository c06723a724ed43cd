// @vitest-environment happy-dom
// A difference of two time ranges of one capture with fewer than 3 runs selected is grey (the
// compared-metric tables' rule, kept); its legend says why without advising `--repeat 3`, which does
// not help two ranges of one run: with 3 or more runs in the capture it offers the ranges over every
// run in one click, with fewer it says there is no noise estimate.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, expect, test, vi } from 'vitest';
import { rangeFewText } from '../../logic/flameDiff';
import { DiffLegend } from './DiffView';
import type { FlameDiffData } from './queries';
import { RangeFew } from './RangeDiffView';

afterEach(cleanup);

const data = (selected: number, all: number) => {
  const runs = Array.from({ length: all }, (_, i) => ({ id: `r00${i}` }));
  const side = { runs: runs.slice(0, selected).map((r) => r.id), all_runs: runs };
  return { a: side, b: side, noise_available: false, noise_reason: 'too few' } as unknown as FlameDiffData;
};

function legend(selected: number, all: number, onEveryRun = vi.fn()) {
  render(
    <DiffLegend
      maxAbs={2}
      data={data(selected, all)}
      by="self"
      few={true}
      la="A 0.200–1.500 s"
      lb="B 2.000–3.000 s"
      fewNote={(d) => <RangeFew selected={d.a.runs.length} all={d.a.all_runs.length} onEveryRun={onEveryRun} />}
    />,
  );
  return screen.getByTestId('flame-diff-few');
}

test('one run of a capture of 5: says the ranges over every run colour it, and offers them in one click', () => {
  const onEveryRun = vi.fn();
  const few = legend(1, 5, onEveryRun);
  expect(few.textContent).toContain("Both ranges are of one run of this capture's 5: fewer than 3 repeats are too few to tell a change from noise");
  expect(few.textContent).toContain('Over every run, each range is the same seconds of each of the 5 runs');
  expect(few.textContent).not.toContain('--repeat');
  fireEvent.click(screen.getByRole('button', { name: 'the ranges over every run (5)' }));
  expect(onEveryRun).toHaveBeenCalledTimes(1);
});

test('a capture of one run: no noise estimate, and why; no advice that cannot help', () => {
  const few = legend(1, 1);
  expect(few.textContent).toBe(
    'This capture has one run with samples: a difference of two time ranges of it has no noise estimate. Telling a change from noise takes the spread between 3 or more repeats of the same seconds, and both ranges are of the same run. The tooltips and the table give each change, not coloured red or blue. ',
  );
  expect(screen.queryByTestId('range-every-run')).toBeNull();
});

test('two runs of two: the same, in the plural', () => {
  expect(rangeFewText(2, 2)).toEqual({ everyRun: false, text: expect.stringContaining('This capture has two runs with samples') as string });
  expect(rangeFewText(2, 2).text).toContain('both ranges are of the same runs');
  expect(rangeFewText(2, 3).everyRun).toBe(true);
});

test('a difference of two captures keeps its own why: record 3 repeats of each', () => {
  render(<DiffLegend maxAbs={2} data={data(1, 1)} by="self" few={true} la="6.1" lb="6.12" />);
  expect(screen.getByTestId('flame-diff-few').textContent).toContain('iolens-collect run --repeat 3');
});
