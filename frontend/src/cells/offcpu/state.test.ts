import { describe, expect, it } from 'vitest';
import { decodeOffcpu, defaultOffcpuState, encodeOffcpu, sideOf } from './state';

describe('offcpu cell state', () => {
  it('the default encodes to nothing', () => {
    expect(encodeOffcpu(defaultOffcpuState)).toBe('');
    expect(decodeOffcpu('')).toEqual(defaultOffcpuState);
  });
  it('a pair round-trips, task groups percent-encoded', () => {
    const s = { cap: 'abc123', run: 'r000', a: 'fio', b: 'kworker/*', mode: 'icicle' as const };
    const text = encodeOffcpu(s);
    expect(text).toBe('c=abc123;r=r000;a=fio;b=kworker%2F*;m=icicle');
    expect(decodeOffcpu(text)).toEqual(s);
    expect(decodeOffcpu('a=7894;b=a%3Bb')).toEqual({ ...defaultOffcpuState, a: '7894', b: 'a;b' });
  });
  it('refuses what it cannot read, saying what', () => {
    expect(decodeOffcpu('a=fio')).toEqual(new Error('a pair needs both a and b'));
    expect(decodeOffcpu('x=1')).toEqual(new Error("unknown part 'x' (c, r, a, b, m)"));
    expect(decodeOffcpu('r=r 0')).toEqual(new Error("r must be a run id, not 'r 0'"));
    expect(decodeOffcpu('m=up')).toEqual(new Error("m must be flame or icicle, not 'up'"));
    expect(decodeOffcpu('a=%E0;b=x')).toEqual(new Error("a: bad percent-encoding '%E0'"));
  });
  it('a ping-pong task is its thread id, a task group its name', () => {
    expect(sideOf({ pid: 7894, group: 'fio' })).toBe('7894');
    expect(sideOf({ pid: null, group: 'kworker/*' })).toBe('kworker/*');
  });
});
