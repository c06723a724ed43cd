import { describe, expect, it } from 'vitest';
import { clearSharedTime, sharedTimeOf, sharedTimeText } from './shared';
import { decodeTimeline, defaultTimelineState, encodeTimeline } from './state';

describe('timeline cell state', () => {
  it('the default encodes to ""', () => {
    expect(encodeTimeline(defaultTimelineState)).toBe('');
    expect(decodeTimeline('')).toEqual(defaultTimelineState);
  });
  it('round trip, readable in a URL', () => {
    const s = { cap: 'abc123', run: 'r001', sel: [2_000_000_000, 5_500_000_000] as [number, number], win: [0, 10_000_000_000] as [number, number] };
    expect(encodeTimeline(s)).toBe('cap=abc123;run=r001;sel=2000000000-5500000000;w=0-10000000000');
    expect(decodeTimeline(encodeTimeline(s))).toEqual(s);
  });
  it('rejects garbage with a reason', () => {
    expect((decodeTimeline('sel=5-5') as Error).message).toMatch(/empty/);
    expect((decodeTimeline('sel=a') as Error).message).toMatch(/FROM-TO/);
    expect((decodeTimeline('run=a b') as Error).message).toMatch(/run id/);
    expect((decodeTimeline('zz=1') as Error).message).toMatch(/unknown field/);
    expect((decodeTimeline('x') as Error).message).toMatch(/key=value/);
  });
});

describe('the shared time selection', () => {
  const cells = [
    { kind: 'flame', state: {} },
    { kind: 'timeline', state: { ...defaultTimelineState } },
    { kind: 'timeline', state: { ...defaultTimelineState, cap: 'c2', sel: [1, 9] as [number, number] } },
    { kind: 'timeline', state: { ...defaultTimelineState, sel: [3, 4] as [number, number] } },
  ];
  it('is the first timeline selection', () => {
    expect(sharedTimeOf(cells, 'base')).toEqual({ time: { capture: 'c2', run: 'r000', from: 1, to: 9 }, index: 2 });
    expect(sharedTimeOf(cells.slice(0, 2), 'base')).toBeNull();
    expect(sharedTimeOf([cells[3]!], 'base', () => 'r002')!.time).toEqual({ capture: 'base', run: 'r002', from: 3, to: 4 });
  });
  it('clears in every timeline cell, nothing else changed', () => {
    const out = clearSharedTime(cells);
    expect(sharedTimeOf(out, 'base')).toBeNull();
    expect(out[0]).toBe(cells[0]);
    expect(out[1]).toBe(cells[1]);
  });
  it('reads as seconds of a run', () => expect(sharedTimeText({ capture: 'c', run: 'r000', from: 2e9, to: 5.5e9 })).toBe('2.000–5.500 s of run r000'));
});
