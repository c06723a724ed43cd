import { describe, expect, it } from 'vitest';
import { decodeFlame, defaultFlameState, encodeFlame, type FlameState } from './state';

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
  ])('round trip: %s', (_, s) => expect(decodeFlame(encodeFlame(s))).toEqual(s));

  it('reads well in a URL', () => {
    expect(encodeFlame({ ...defaultFlameState, zoom: ['fio', 'vfs_write'], search: 'xfs_', mode: 'icicle' })).toBe('z=fio,vfs_write;q=xfs_;m=icicle');
  });

  it('rejects garbage with a reason', () => {
    expect((decodeFlame('bogus') as Error).message).toMatch(/not key=value/);
    expect((decodeFlame('x=1') as Error).message).toMatch(/unknown field 'x'/);
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
