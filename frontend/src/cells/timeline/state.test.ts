import { describe, expect, it } from 'vitest';
import { vectors } from '../../testdata/vectors';
import { clearSharedTime, missingCaptureNotice, missingRunNotice, offsetText, runOptionText, runSpan, sharedTimeCapture, sharedTimeOf, sharedTimeText, shownCapture, shownRun, timelineKey, timelineRun, undrawnTracks } from './shared';
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
    const runs = (cap: string) => (cap === 'c2' ? ['r000', 'r001'] : ['r002', 'r003']);
    expect(sharedTimeOf(cells, 'base', runs)).toEqual({ time: { capture: 'c2', run: 'r000', from: 1, to: 9 }, index: 2 });
    expect(sharedTimeOf(cells.slice(0, 2), 'base', runs)).toBeNull();
    expect(sharedTimeOf([cells[3]!], 'base', runs)!.time).toEqual({ capture: 'base', run: 'r002', from: 3, to: 4 });
  });
  it("without run= is of the capture's first run, as the timeline shows it, never a fixed r000", () => {
    const sel = [{ kind: 'timeline', state: { ...defaultTimelineState, sel: [3, 4] as [number, number] } }];
    expect(sharedTimeCapture(sel, 'base')).toBe('base');
    expect(sharedTimeOf(sel, 'base', () => ['r003', 'r004'])!.time.run).toBe('r003');
    // the runs not known yet (the overview loading) or none: not applied, rather than another run's
    expect(sharedTimeOf(sel, 'base')).toBeNull();
    expect(sharedTimeOf(sel, 'base', () => [])).toBeNull();
    // a named run needs no overview
    const named = [{ kind: 'timeline', state: { ...defaultTimelineState, run: 'r001', sel: [3, 4] as [number, number] } }];
    expect(sharedTimeCapture(named, 'base')).toBeNull();
    expect(sharedTimeOf(named, 'base')!.time.run).toBe('r001');
  });
  it('picks the run by the rule of testdata/vectors/timeline-run.json', () => {
    for (const c of vectors<{ cases: { named: string | null; runs: string[]; run: string | null }[] }>('timeline-run').cases) expect(timelineRun(c.named, c.runs), JSON.stringify(c)).toBe(c.run);
  });
  it('draws the named run or the first, and says when the named run is not in the capture (timeline-run.json)', () => {
    for (const c of vectors<{ cases: { named: string | null; runs: string[]; shown: string | null; notice: string | null }[] }>('timeline-run').cases) {
      expect(shownRun(c.named, c.runs), JSON.stringify(c)).toBe(c.shown);
      expect(missingRunNotice(c.named, c.runs), JSON.stringify(c)).toBe(c.notice);
    }
  });
  it('draws the named capture or the baseline, and says when the notebook lacks it (timeline-run.json captures)', () => {
    const cases = vectors<{ captures: { named: string | null; captures: string[]; baseline: string; shown: string; notice: string | null }[] }>('timeline-run').captures;
    expect(cases.length).toBeGreaterThan(3);
    for (const c of cases) {
      expect(shownCapture(c.named, c.captures, c.baseline), JSON.stringify(c)).toBe(c.shown);
      expect(missingCaptureNotice(c.named, c.captures, c.baseline), JSON.stringify(c)).toBe(c.notice);
    }
  });
  it('maps the selection onto each run\'s track by its own offset (testdata/vectors/run-span.json)', () => {
    const cases = vectors<{ cases: { from_ns: number; to_ns: number; offset_ns: number; span: [number, number] }[] }>('run-span').cases;
    expect(cases.length).toBeGreaterThan(5);
    for (const c of cases) expect(runSpan(c.from_ns, c.to_ns, c.offset_ns), JSON.stringify(c)).toEqual(c.span);
  });
  it("says where the flame graph's time 0 lies by testdata/vectors/run-offset-text.json", () => {
    for (const c of vectors<{ cases: { offset_ns: number; text: string }[] }>('run-offset-text').cases) expect(offsetText(c.offset_ns)).toBe(c.text);
  });
  it('clears in every timeline cell, nothing else changed', () => {
    const out = clearSharedTime(cells);
    expect(sharedTimeOf(out, 'base')).toBeNull();
    expect(out[0]).toBe(cells[0]);
    expect(out[1]).toBe(cells[1]);
  });
  it('reads as seconds of a run', () => expect(sharedTimeText({ capture: 'c', run: 'r000', from: 2e9, to: 5.5e9 })).toBe('2.000–5.500 s of run r000'));
});

describe('tracks recorded but not drawn', () => {
  const notes = {
    cpu: 'no scheduler trace in this run (iolens-collect run --sched)',
    fio: "fio's IOPS log has no clock (an older fio or collector): not on the run's axis, not drawn",
    samples: 'no perf samples in this run (iolens-collect run --stacks)',
  };
  const run = { tracks: { cpu: false, block: false, fio: false, samples: false }, notes };
  it("say the server's reason for the data the capture has (datasets/xfs-unwritten-ramp: fio logs without a clock)", () => {
    expect(undrawnTracks(run, { artifact_kinds: ['fio-json', 'fio-log'] })).toEqual([{ track: 'fio', note: notes.fio }]);
  });
  it('a capture without the data: nothing recorded, the empty state says how to record it', () => {
    expect(undrawnTracks(run, { artifact_kinds: ['fio-json'] })).toEqual([]);
    expect(undrawnTracks({ ...run, tracks: { ...run.tracks, fio: true } }, { artifact_kinds: ['fio-log'] })).toEqual([]);
    expect(undrawnTracks(run, undefined)).toEqual([]);
  });
});

describe('run picker', () => {
  it('says the length of a run with data, "no tracks" for one without (not 0.00 s)', () => {
    expect(runOptionText({ id: 'r001', repeat: 1, duration_ns: 12_345_000_000, tracks: { cpu: true, block: false } })).toBe('r001 · repeat 1 · 12.35 s');
    expect(runOptionText({ id: 'r002', repeat: 2, duration_ns: 0, tracks: { cpu: false, block: false } })).toBe('r002 · repeat 2 · no tracks');
  });
});

describe("the timeline's keys (Perfetto's W S A D, + - ← →, 0)", () => {
  const run = 10e9;
  it('zoom in and out on the centre of the window, the whole run at most', () => {
    expect(timelineKey('w', null, run)).toEqual([2.5e9, 7.5e9]);
    expect(timelineKey('W', null, run)).toEqual([2.5e9, 7.5e9]);
    expect(timelineKey('+', [2e9, 4e9], run)).toEqual([2.5e9, 3.5e9]);
    expect(timelineKey('s', [2e9, 4e9], run)).toEqual([1e9, 5e9]);
    expect(timelineKey('-', [2.5e9, 7.5e9], run)).toBeNull(); // the whole run: no window
  });
  it('pan by a quarter of the window, inside the run', () => {
    expect(timelineKey('d', [2e9, 4e9], run)).toEqual([2.5e9, 4.5e9]);
    expect(timelineKey('ArrowLeft', [2e9, 4e9], run)).toEqual([1.5e9, 3.5e9]);
    expect(timelineKey('a', [0, 2e9], run)).toEqual([0, 2e9]);
    expect(timelineKey('d', [9e9, 10e9], run)).toEqual([9e9, 10e9]);
  });
  it('0 and Esc: the whole run; other keys are not the timeline\'s', () => {
    expect(timelineKey('0', [2e9, 4e9], run)).toBeNull();
    expect(timelineKey('Escape', [2e9, 4e9], run)).toBeNull();
    expect(timelineKey('f', [2e9, 4e9], run)).toBeUndefined();
    expect(timelineKey('Enter', null, run)).toBeUndefined();
  });
});
