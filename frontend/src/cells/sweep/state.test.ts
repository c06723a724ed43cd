import { describe, expect, it } from 'vitest';
import {
  decodeFioLog,
  decodeSweep,
  decodeSweepLine,
  defaultFioLogState,
  defaultSweepLineState,
  defaultSweepState,
  encodeFioLog,
  encodeSweep,
  encodeSweepLine,
} from './state';

describe('sweep cell states', () => {
  it('encode their defaults to the empty string', () => {
    expect(encodeSweep(defaultSweepState)).toBe('');
    expect(encodeSweepLine(defaultSweepLineState)).toBe('');
    expect(encodeFioLog(defaultFioLogState)).toBe('');
    expect(decodeSweep('')).toEqual(defaultSweepState);
    expect(decodeSweepLine('')).toEqual(defaultSweepLineState);
    expect(decodeFioLog('')).toEqual(defaultFioLogState);
  });

  it('round-trip', () => {
    const m = { metric: 'm.inodes/s', relative: false };
    expect(encodeSweep(m)).toBe('m=m.inodes/s;abs=1');
    expect(decodeSweep(encodeSweep(m))).toEqual(m);
    const l = { metric: 'read.clat_p99', x: 'iodepth', fixed: { rw: 'randread', bs: null, 'odd_name': 'a,b:c' }, bands: false };
    expect(encodeSweepLine(l)).toBe('m=read.clat_p99;x=iodepth;f=rw:randread,bs:*,odd_name:a%2Cb%3Ac;band=0');
    expect(decodeSweepLine(encodeSweepLine(l))).toEqual(l);
    const f = { log: 'clat' as const, ddir: 'write' as const, point: 'rw=randwrite bs=4k', bands: true };
    expect(encodeFioLog(f)).toBe('l=clat;d=write;p=rw%3Drandwrite%20bs%3D4k');
    expect(decodeFioLog(encodeFioLog(f))).toEqual(f);
  });

  it('refuse garbage with a message', () => {
    expect(decodeSweep('m=io ps')).toBeInstanceOf(Error);
    expect(decodeSweep('abs=2')).toBeInstanceOf(Error);
    expect(String(decodeSweep('zoom=3'))).toContain("unknown field 'zoom'");
    expect(decodeSweepLine('x=1bad')).toBeInstanceOf(Error);
    expect(decodeSweepLine('f=rw')).toBeInstanceOf(Error);
    expect(decodeSweepLine('f=rw:%E0%A4%A')).toBeInstanceOf(Error);
    expect(String(decodeFioLog('l=hist'))).toContain('l must be one of');
    expect(decodeFioLog('d=sideways')).toBeInstanceOf(Error);
    expect(decodeFioLog('nokey')).toBeInstanceOf(Error);
  });
});
