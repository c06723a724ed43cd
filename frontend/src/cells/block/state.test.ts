import { describe, expect, it } from 'vitest';
import { blockCell } from './kind';
import { decodeBlock, defaultBlockState, encodeBlock, type BlockState } from './state';

describe('block cell state in the URL', () => {
  it('the default encodes to nothing', () => {
    expect(encodeBlock(defaultBlockState)).toBe('');
    expect(decodeBlock('')).toEqual(defaultBlockState);
  });
  it('round trip of every field', () => {
    const s: BlockState = { charts: ['qd', 'lat', 'scatter'], op: 'write', split: true, lat: ['p50', 'p999', 'max'], dev: '259,0', range: { from: 1_036_500_000, to: 1_556_000_000 }, scale: 'full' };
    const text = encodeBlock(s);
    expect(text).toBe('c=qd,lat,scatter;op=write;split=1;lat=p50,p999,max;dev=259,0;t=1036500000-1556000000;scale=full');
    expect(decodeBlock(text)).toEqual(s);
    expect(decodeBlock('dev=all').valueOf()).toMatchObject({ dev: 'all' });
  });
  it('charts and measures in display order, whatever order they came in', () => {
    expect(decodeBlock('c=lat,qd;lat=p99,p50')).toMatchObject({ charts: ['qd', 'lat'], lat: ['p50', 'p99'] });
    expect(encodeBlock({ ...defaultBlockState, charts: ['size', 'qd', 'iops', 'bw', 'lat', 'hist'] })).toBe('');
    expect(encodeBlock({ ...defaultBlockState, charts: [] })).toBe('c=');
    expect(decodeBlock('c=')).toMatchObject({ charts: [] });
  });
  it('the rate charts\' scale: clipped by default, full kept in the URL', () => {
    expect(decodeBlock('')).toMatchObject({ scale: 'clip' });
    expect(encodeBlock({ ...defaultBlockState, scale: 'full' })).toBe('scale=full');
    expect(decodeBlock('scale=clip')).toEqual(defaultBlockState);
  });
  it('rejects garbage with a reason, never throws', () => {
    for (const bad of ['x', 'c=qd,pie', 'op=READ!', 'split=yes', 'lat=p42', 'dev=sda', 't=5-3', 't=1-2-3', 't=a-b', 'zoom=1', 'scale=log']) {
      const r = decodeBlock(bad);
      expect(r, bad).toBeInstanceOf(Error);
    }
    expect((decodeBlock('c=qd,pie') as Error).message).toMatch(/unknown 'pie'/);
    expect((decodeBlock('scale=log') as Error).message).toMatch(/clip or full/);
  });
  it('starts a notebook when a capture has block events', () => {
    const cap = (kinds: string[]) => ({ artifact_kinds: kinds }) as never;
    expect(blockCell.starter?.([cap(['fio-json'])])).toBe(false);
    expect(blockCell.starter?.([cap(['fio-json']), cap(['perf-block', 'perf-stat-block'])])).toBe(true);
    expect(blockCell.starter?.([cap(['blkparse'])])).toBe(true);
  });
});
