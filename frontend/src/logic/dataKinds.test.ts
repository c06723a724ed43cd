import { describe, expect, it } from 'vitest';
import type { CapturePublic } from '../api/client';
import { vectors } from '../testdata/vectors';
import { DATA_KINDS, emptyFacts, hasData } from './dataKinds';

const cap = (id: string, kinds: string[], created_at = '2026-11-20T10:00:00Z'): CapturePublic => ({ id, label: `L-${id}`, artifact_kinds: kinds, created_at }) as unknown as CapturePublic;
const label = (id: string) => `L-${id}`;

describe('data kinds', () => {
  it('knows a capture holds the data by any of its artifact kinds', () => {
    expect(hasData(cap('a', ['fio-json', 'perf-script']), 'stacks')).toBe(true);
    // off-CPU stacks are stacks for the flame graph, not the other way round
    expect(hasData(cap('a', ['perf-offcpu']), 'stacks')).toBe(true);
    expect(hasData(cap('a', ['perf-script']), 'offcpu')).toBe(false);
    expect(hasData(cap('a', ['perf-block']), 'block')).toBe(true);
    expect(hasData(cap('a', ['blkparse']), 'block')).toBe(true);
    expect(hasData(cap('a', ['fio-json']), 'sched')).toBe(false);
    expect(hasData({ artifact_kinds: undefined }, 'monitors')).toBe(false);
  });

  it("names the collector's real flags (testdata/vectors/collector-flags.json, checked against its parser)", () => {
    const v = vectors<{ cases: { data: string; flag: string }[] }>('collector-flags');
    expect(Object.fromEntries(Object.entries(DATA_KINDS).map(([k, d]) => [k, d.flag]))).toEqual(
      Object.fromEntries(v.cases.map((c) => [c.data, c.flag])),
    );
    for (const d of Object.values(DATA_KINDS)) expect(d.command).toContain(d.flag.split(' ')[0]);
  });

  it('says what is missing in which captures, and which have it, in the notebook and outside', () => {
    const lib = [cap('a', ['fio-json']), cap('b', ['perf-script']), cap('c', ['fio-json']), cap('x', ['perf-script'], '2026-11-21T00:00:00Z'), cap('y', ['perf-script'], '2026-11-22T00:00:00Z'), cap('z', ['sched'])];
    // the view wanted one capture (a flame graph of a): it names it, and b of the notebook has stacks
    const one = emptyFacts('stacks', ['a'], ['a', 'b', 'c'], lib, label);
    expect(one).toMatchObject({ title: 'No call stacks in L-a', missing: ['a'], inNotebook: ['b'], more: 0 });
    expect(one.elsewhere.map((c) => c.id)).toEqual(['y', 'x']); // newest first
    // the whole notebook: the captures without, counted
    const all = emptyFacts('stacks', ['a', 'c'], ['a', 'c'], lib, label, 1);
    expect(all).toMatchObject({ title: 'No call stacks in these 2 captures', missing: ['a', 'c'], inNotebook: [], more: 2 }); // b, x and y are outside: y listed
    expect(all.elsewhere.map((c) => c.id)).toEqual(['y']);
    expect(emptyFacts('sched', ['a', 'b', 'c'], ['a', 'b', 'c'], lib, label).title).toBe('No scheduler traces in these 3 captures');
    // a capture the library does not know has nothing; before the library is known nothing is named
    expect(emptyFacts('stacks', ['q'], ['q'], lib, label).missing).toEqual(['q']);
    expect(emptyFacts('stacks', ['a'], ['a', 'b'], undefined, label)).toMatchObject({ missing: ['a'], inNotebook: [], elsewhere: [] });
  });
});
