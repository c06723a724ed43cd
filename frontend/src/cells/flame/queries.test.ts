// The selection as the API gets it, for the graph and for the exports of the same view.
import { describe, expect, it } from 'vitest';
import { exportUrl, flameParams } from './queries';
import { ALL_TASKS, defaultFlameState } from './state';

describe('flame queries', () => {
  it('"All tasks" (comm=*) is no task filter, for the graph and its exports; a command is one', () => {
    const all = { ...defaultFlameState, comm: ALL_TASKS };
    expect(flameParams(all, false)).toEqual({});
    expect(flameParams(all, true)).toEqual({});
    expect(exportUrl('folded', all, { cap: 'c1' })).not.toContain('comm');
    expect(new URL(exportUrl('svg', { ...all, view: 'diff' }, { a: 'c1', b: 'c2' }), 'http://x').searchParams.get('comm')).toBeNull();
    const fio = { ...defaultFlameState, comm: 'fio' };
    expect(flameParams(fio, false)).toEqual({ comm: 'fio' });
    expect(new URL(exportUrl('svg', fio, { a: 'c1', b: 'c2' }), 'http://x').searchParams.get('comm')).toBe('fio');
  });
});
