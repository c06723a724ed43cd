import { describe, expect, it } from 'vitest';
import { vectors } from '../../testdata/vectors';
import { ALL_TASKS, decodeFlame, defaultFlameState, encodeFlame, pairComm, selectionNarrowing, singleComm, withDefaultTasks, workloadComm, type FlameState } from './state';

const full: FlameState = {
  view: 'diff',
  cap: 'c1',
  a: 'aaaa1111',
  b: 'bbbb2222',
  event: 'cpu-clock',
  runs: ['r000', 'r001'],
  cpus: [0, 3],
  tid: 1234,
  comm: 'kworker/1:1 x;y',
  from: 1_500_000,
  to: 3_500_000,
  zoom: ['fio', 'entry_SYSCALL_64', 'std::map<int, int>::find', 'a;b=c,d%'],
  search: '^(xfs|iomap)_.*;=',
  mode: 'icicle',
  colour: 'total',
  by: 'total',
  order: 'heavy',
  show: 'sandwich',
  fn: 'iomap_dio_bio_end_io',
  transforms: [
    { op: 'focus', name: 'entry_SYSCALL_64' },
    { op: 'merge', name: 'a:b,c;d' },
    { op: 'drop', name: 'std::map<int, int>::find' },
    { op: 'rec', name: '[unknown]' },
    { op: 'drec', name: '[unknown]' },
  ],
  window: [250_000_000, 1_750_000_000],
  heatmap: 50,
  rangeB: { from: 0, to: 2_000_000_000 },
};

describe('flame cell state', () => {
  it('the default encodes to ""', () => {
    expect(encodeFlame(defaultFlameState)).toBe('');
    expect(decodeFlame('')).toEqual(defaultFlameState);
  });

  it.each([
    ['everything', full],
    ['a zoom and a search', { ...defaultFlameState, zoom: ['fio', 'vfs_write'], search: 'iomap' }],
    ['a range to the end', { ...defaultFlameState, from: 5, to: null }],
    ['a range from the start', { ...defaultFlameState, from: null, to: 9 }],
    ['the inverted tree by name', { ...defaultFlameState, show: 'inverted', by: 'name' } as FlameState],
    ['time order of a thread, zoomed', { ...defaultFlameState, show: 'time', tid: 29814, runs: ['r001'], window: [0, 5_000_000] } as FlameState],
  ])('round trip: %s', (_, s) => expect(decodeFlame(encodeFlame(s))).toEqual(s));

  it('reads well in a URL', () => {
    expect(encodeFlame({ ...defaultFlameState, zoom: ['fio', 'vfs_write'], search: 'xfs_', mode: 'icicle' })).toBe('z=fio,vfs_write;q=xfs_;m=icicle');
  });

  it('keeps the views and transforms readable', () => {
    expect(encodeFlame({ ...defaultFlameState, order: 'heavy', show: 'sandwich', fn: 'xfs_ilock', transforms: [{ op: 'focus', name: 'do_syscall_64' }, { op: 'rec', name: 'a,b' }] })).toBe(
      'o=heavy;s=sandwich;fn=xfs_ilock;x=focus:do_syscall_64,rec:a%2Cb',
    );
  });

  it('keeps the time order readable', () => {
    expect(encodeFlame({ ...defaultFlameState, show: 'time', tid: 29814, window: [1_000_000_000, 1_250_000_000] })).toBe('tid=29814;s=time;tw=1000000000-1250000000');
  });

  it('rejects garbage with a reason', () => {
    expect((decodeFlame('bogus') as Error).message).toMatch(/not key=value/);
    expect((decodeFlame('xx=1') as Error).message).toMatch(/unknown field 'xx'/);
    expect((decodeFlame('x=1') as Error).message).toMatch(/OP:NAME/);
    expect((decodeFlame('x=fold:f') as Error).message).toMatch(/focus, merge, drop, rec/);
    expect((decodeFlame('x=focus:') as Error).message).toMatch(/function name/);
    expect((decodeFlame('o=left') as Error).message).toMatch(/name or heavy/);
    expect((decodeFlame('s=tree') as Error).message).toMatch(/graph, inverted, sandwich or time/);
    expect((decodeFlame('tw=5-5') as Error).message).toMatch(/not a time window/);
    expect((decodeFlame('tw=5') as Error).message).toMatch(/not a time window/);
    expect((decodeFlame('fn=') as Error).message).toMatch(/function name/);
    expect((decodeFlame('v=pie') as Error).message).toMatch(/flame or diff/);
    expect((decodeFlame('cap=a b') as Error).message).toMatch(/not a capture id/);
    expect((decodeFlame('cpu=1,x') as Error).message).toMatch(/CPU numbers/);
    expect((decodeFlame('t=5-5') as Error).message).toMatch(/empty/);
    expect((decodeFlame('t=0-') as Error).message).toMatch(/whole run/);
    expect((decodeFlame('q=%E0%A4%A') as Error).message).toMatch(/percent-encoded/);
    expect((decodeFlame('tid=-1') as Error).message).toMatch(/thread id/);
    expect(decodeFlame('c=median')).toBeInstanceOf(Error);
  });
});

describe("the pair's default tasks: the workload's own (testdata/vectors/workload-comm.json)", () => {
  type Cap = Parameters<typeof workloadComm>[0] | null;
  const v = vectors<{ cases: { name: string; capture: Cap; comm: string | null }[]; pairs: { a: Cap; b: Cap; comm: string | null }[] }>('workload-comm');
  it.each(v.cases.map((c) => [c.name, c] as const))('%s', (_, c) => expect(workloadComm(c.capture ?? undefined)).toBe(c.comm));
  it.each(v.pairs.map((p, i) => [i, p] as const))('pair %s', (_, p) => expect(pairComm(p.a ?? undefined, p.b ?? undefined)).toBe(p.comm));
  const single = vectors<{ single: { name: string; capture: Cap; event: string | null; comm: string | null }[] }>('workload-comm').single;
  it.each(single.map((c) => [c.name, c] as const))('one capture: %s', (_, c) => expect(singleComm(c.capture ?? undefined, c.event)).toBe(c.comm));
  it('the default applies when no command, thread or "All tasks" was chosen', () => {
    expect(withDefaultTasks(defaultFlameState, 'fio').comm).toBe('fio');
    expect(withDefaultTasks({ ...defaultFlameState, comm: ALL_TASKS }, 'fio').comm).toBeNull();
    expect(withDefaultTasks({ ...defaultFlameState, comm: 'kworker' }, 'fio').comm).toBe('kworker');
    expect(withDefaultTasks({ ...defaultFlameState, tid: 812 }, 'fio')).toEqual({ ...defaultFlameState, tid: 812 });
    expect(withDefaultTasks(defaultFlameState, null)).toEqual(defaultFlameState);
  });
  it('"All tasks" is kept in the URL', () => {
    const s = { ...defaultFlameState, view: 'diff' as const, comm: ALL_TASKS };
    expect(encodeFlame(s)).toBe('v=diff;comm=*');
    expect(decodeFlame('v=diff;comm=*')).toEqual(s);
  });
});

describe('selectionNarrowing: what narrows an empty selection and how to widen it', () => {
  it('names each filter in force with its undo, none for the default', () => {
    expect(selectionNarrowing(defaultFlameState)).toEqual([]);
    const s: FlameState = { ...defaultFlameState, comm: 'fio', tid: 812, cpus: [1, 3], from: 1_500_000_000, to: null, runs: ['r001'], transforms: [{ op: 'drec', name: '[unknown]' }] };
    expect(selectionNarrowing(s)).toEqual(['command fio: choose All tasks', 'thread 812: all threads', 'CPUs 1,3: all CPUs', '1.500 s to the end: the whole run', 'run r001: all runs', 'a transform: remove it (×)']);
    // the time order's track is its thread and run: not a narrowing to undo
    expect(selectionNarrowing(s, true)).toEqual(['command fio: choose All tasks', '1.500 s to the end: the whole run', 'a transform: remove it (×)']);
    expect(selectionNarrowing({ ...defaultFlameState, comm: ALL_TASKS, from: null, to: 2e9 })).toEqual(['0.000 to 2.000 s: the whole run']);
  });
});
