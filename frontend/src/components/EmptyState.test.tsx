// @vitest-environment happy-dom
// The one empty state of the cells (EmptyState.tsx): what is missing, in which captures, the collector
// flag that records it, and the captures that have it (of the notebook: shown with a click; of the
// library: added by a link).
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, expect, test, vi } from 'vitest';
import type { CapturePublic } from '../api/client';
import { EmptyStateView, MissingLine, NoneSelected } from './EmptyState';

afterEach(cleanup);

const cap = (id: string, label: string, kinds: string[], created_at = '2026-11-20T10:00:00Z') => ({ id, label, artifact_kinds: kinds, created_at }) as unknown as CapturePublic;
const library = [cap('a', 'plain-xfs', ['fio-json']), cap('b', 'xfs-stacks', ['perf-script']), cap('c', 'ext4-stacks', ['perf-script']), cap('x', 'old-stacks', ['perf-script'])];

test('one capture asked for without stacks: names it, the flag, the notebook capture that has them, and the library one to add', () => {
  const pick = vi.fn();
  render(<EmptyStateView data="stacks" testId="e" captures={['a', 'b']} baseline="a" wanted={['a']} onPick={pick} withCapture={(id) => `/compare?captures=a,b,${id}`} library={library} />);
  const box = screen.getByTestId('e');
  expect(within(box).getByRole('heading').textContent).toBe('No call stacks in plain-xfs');
  expect(within(box).getByText('iolens-collect run --stacks …').tagName).toBe('CODE');
  // the notebook's capture with stacks: a button that shows it
  fireEvent.click(within(screen.getByTestId('empty-pick')).getByRole('button', { name: /xfs-stacks/ }));
  expect(pick).toHaveBeenCalledWith('b');
  // the library's, not in the notebook: links that add it
  const links = within(screen.getByTestId('empty-add')).getAllByRole('link');
  expect(links.map((l) => [l.textContent, l.getAttribute('href')])).toEqual([
    ['ext4-stacks', '/compare?captures=a,b,c'],
    ['old-stacks', '/compare?captures=a,b,x'],
  ]);
});

test('none of the notebook has it: each capture listed with why (its own note, or the flag it lacked); nothing to pick', () => {
  render(<EmptyStateView data="sched" testId="e" captures={['a', 'c']} baseline="a" reasons={{ c: 'perf was not allowed' }} onPick={() => {}} library={library} />);
  const box = screen.getByTestId('e');
  expect(within(box).getByRole('heading').textContent).toBe('No scheduler traces in these 2 captures');
  const items = within(box).getAllByRole('listitem').map((li) => li.textContent);
  expect(items).toEqual(['plain-xfsbaseline: recorded without --sched', 'ext4-stacks: perf was not allowed']);
  expect(screen.queryByTestId('empty-pick')).toBeNull();
  expect(screen.queryByTestId('empty-add')).toBeNull(); // no withCapture: no links
});

test("a difference view's other side is not offered", () => {
  render(<EmptyStateView data="stacks" testId="e" captures={['a', 'b']} baseline="a" wanted={['a']} onPick={() => {}} exclude={['a', 'b']} library={library} />);
  expect(screen.queryByTestId('empty-pick')).toBeNull();
});

test('the one-line form beside drawn data: what is missing, in which captures, and how to record it', () => {
  render(<MissingLine data="block" testId="m" missing={[{ label: 'ext4-run', color: '#123456' }, { label: 'xfs-run', color: '#654321', isBaseline: true }]} consequence="they are not drawn" />);
  const line = screen.getByTestId('m');
  expect(line.textContent).toBe('No block layer events in ext4-run, xfs-runbaseline (recorded without --block DEV): they are not drawn. Record with iolens-collect run --block DEV …');
  expect(line.dataset.empty).toBe('block');
  expect(line.querySelectorAll('.swatch')).toHaveLength(2);
});

test("the one-line form with a capture's own reason: each capture says why, the others 'recorded without'; more after the command", () => {
  render(
    <MissingLine data="lockstat" testId="m" missing={[{ label: 'here', color: '#123456', reason: '/proc/lock_stat does not exist' }, { label: 'there', color: '#654321' }]} consequence="the others are compared without them">
      Or count contention with <code>perf lock contention</code>.
    </MissingLine>,
  );
  const line = screen.getByTestId('m');
  expect(line.textContent).toBe(
    'No lock_stat in here (/proc/lock_stat does not exist), there (recorded without --lock-stat): the others are compared without them. Record with iolens-collect run --lock-stat … Or count contention with perf lock contention.',
  );
  expect(line.dataset.empty).toBe('lockstat');
});

test('the one-line form for a selection that leaves none: where, and what to widen; no collector flag', () => {
  render(<NoneSelected data="stacks" testId="n" where="this selection" steps={['command fio: choose All tasks', '1.500 s to the end: the whole run']} />);
  expect(screen.getByTestId('n').textContent).toBe('No call stacks in this selection: the capture has them, this selection leaves none. Widen it: command fio: choose All tasks; 1.500 s to the end: the whole run.');
  cleanup();
  render(<NoneSelected data="stacks" testId="n" where="this track" steps={[]} />);
  expect(screen.getByTestId('n').textContent).not.toContain('--stacks');
});

test('several kinds (a view that draws any of them, the timeline): each named, recorded without any flag, a command each; picks the captures with any', () => {
  const pick = vi.fn();
  const lib = [...library, cap('s', 'sched-run', ['perf-sched'])];
  render(<EmptyStateView data={['sched', 'block', 'stacks']} testId="e" captures={['a', 'c', 's']} baseline="a" wanted={['a']} onPick={pick} library={lib} />);
  const box = screen.getByTestId('e');
  expect(within(box).getByRole('heading').textContent).toBe('No scheduler traces, block layer events or call stacks in plain-xfs');
  expect(box.dataset.empty).toBe('sched block stacks');
  expect(Array.from(box.querySelectorAll('.empty-next code'), (c) => c.textContent)).toEqual(['iolens-collect run --sched …', 'iolens-collect run --block DEV …', 'iolens-collect run --stacks …']);
  // the notebook's captures with any of them: ext4-stacks (stacks) and sched-run (sched)
  const offered = within(screen.getByTestId('empty-pick')).getAllByRole('button').map((b) => b.textContent);
  expect(offered).toEqual(['ext4-stacks', 'sched-run']);
  cleanup();
  render(<EmptyStateView data={['sched', 'block']} testId="e" captures={['a', 'b']} baseline="a" library={library} />);
  expect(within(screen.getByTestId('e')).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['plain-xfsbaseline: recorded without --sched or --block DEV', 'xfs-stacks: recorded without --sched or --block DEV']);
});
