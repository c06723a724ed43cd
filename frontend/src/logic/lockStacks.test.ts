import { describe, expect, it } from 'vitest';
import { A, B, C } from '../testdata/fixtures';
import { lockStacks } from '../testdata/lockStat';
import { buildStacksView, flameSearch, formatPct, formatWeight, functionOf, slowpathRegex, stackView } from './lockStacks';
import { searchMatches } from './flame';

const colorOf = (id: string) => ({ [A]: '#a', [B]: '#b', [C]: '#c' })[id] ?? '#0';

describe('flame graph search of matched frames', () => {
  it('matches exactly the frame names, also with regex characters', () => {
    expect(flameSearch(['get_page_from_freelist'])).toBe('^get_page_from_freelist$');
    expect(flameSearch(['b.isra.0', 'a', 'a'])).toBe('^(?:a|b\\.isra\\.0)$');
    expect(flameSearch([])).toBe('');
    const names = ['a', 'b.isra.0', 'bxisra.0', 'ab', 'b.isra.0x'];
    const r = searchMatches(names, flameSearch(['a', 'b.isra.0']));
    expect(r.ok && [...r.match!]).toEqual([1, 1, 0, 0, 0]);
  });
});

describe('formats', () => {
  it('weights and shares', () => {
    expect(formatWeight(60_301_500, 'ns')).toBe('60.3 ms');
    expect(formatWeight(1234, 'count')).toBe('1,234 ev');
    expect(formatPct(28.1)).toBe('28.1 %');
    expect(formatPct(6)).toBe('6.00 %');
    expect(formatPct(0.4646)).toBe('0.46 %');
    expect(formatPct(0.0123)).toBe('0.012 %');
    expect(formatPct(0)).toBe('0 %');
    expect(formatPct(null)).toBe('–');
  });

  it('function names as the backend matches them', () => {
    expect(functionOf('rwsem_wake.isra.0')).toBe('rwsem_wake');
    expect(functionOf('__mutex_lock.constprop.0')).toBe('__mutex_lock');
    expect(functionOf('osq_lock_[k]')).toBe('osq_lock');
    expect(functionOf('foo.part.0.cold')).toBe('foo');
    expect(functionOf('[unknown]')).toBe('[unknown]');
    const slow = slowpathRegex(['__mutex_lock*', 'rwsem_down_*_slowpath', 'osq_lock']);
    expect(['__mutex_lock', '__mutex_lock_slowpath', 'rwsem_down_write_slowpath', 'osq_lock'].every((f) => slow.test(f))).toBe(true);
    expect(['mutex_lock', 'osq_lock_x', 'rwsem_down_write', '_raw_spin_lock'].some((f) => slow.test(f))).toBe(false);
  });
});

describe('a stack cut to the call site', () => {
  it('keeps the comm, the caller, the symbol and what it called; marks slow paths below it', () => {
    const slow = slowpathRegex(lockStacks.slowpath);
    const top = lockStacks.symbols[0]!.stacks[0]!.top[0]!;
    const v = stackView(top, ['xlog_grant_head_check'], slow, 10e9, 'ns');
    expect(v.comm).toBe('fio');
    expect(v.elided).toBe(3);
    expect(v.frames.map((f) => f.name)).toEqual(['xfs_log_reserve', 'xlog_grant_head_check', '_raw_spin_lock', 'native_queued_spin_lock_slowpath']);
    expect(v.frames.map((f) => f.match)).toEqual([false, true, false, false]);
    expect(v.frames.map((f) => f.slow)).toEqual([false, false, false, true]);
    expect([v.weight, v.samples, v.pct, v.slowpath]).toEqual(['450 ms', '90', '4.50 %', true]);
    // a symbol at the root: nothing elided, no caller
    const root = stackView({ folded: 'fio;a;b', weight: 1, samples: 1, slowpath: false }, ['a'], slow, 0, 'count');
    expect([root.elided, root.frames.map((f) => f.name), root.pct]).toEqual([0, ['a', 'b'], '–']);
  });
});

describe('the section', () => {
  it('rows per symbol and capture with stacks, with titles that say where numbers come from', () => {
    const v = buildStacksView(lockStacks, colorOf);
    expect(v.empty).toBeNull();
    expect(v.withStacks.map((c) => c.id)).toEqual([B, C]);
    expect(v.withoutStacks.map((c) => c.id)).toEqual([A]);
    const [grant, ungrant] = v.symbols;
    expect(grant!.from).toBe('waited 360');
    expect(grant!.fromTitle).toContain('6.18-xfs: contention point (waited for the lock) xlog_grant_head_check+0x7e/0x2c0 [xfs], 360 times');
    const [b, c] = grant!.captures;
    expect([b!.samples, b!.weight, b!.share, b!.slow, b!.bar, b!.color]).toEqual(['120', '600 ms', '6.00 %', '75.0 %', 1, '#b']);
    expect([c!.samples, c!.share, c!.slow, c!.search]).toEqual(['4', '0.40 %', '0 %', '^xlog_grant_head_check\\.isra\\.0$']);
    expect(b!.titles.samples).toContain('6.18-ext4 (8c7d6e5f4a3b2c1d), runs r000, r001 (summed), event cpu-clock');
    expect(b!.titles.samples).toContain('of 2,000 samples with a stack');
    expect(b!.titles.share).toContain('600 ms of 10.0 s');
    expect(b!.titles.slow).toContain('90 of the 120 samples (450 ms of 600 ms)');
    expect(c!.titles.samples).toContain('run r000, event cpu-clock');
    expect(ungrant!.found).toBe(false);
    expect(ungrant!.from).toBe('held 400');
    expect(v.notes).toHaveLength(2);
  });

  it('counts of one capture, others counted; class-name identifiers', () => {
    const d = structuredClone(lockStacks);
    d.symbols[0]!.sources.push({ capture: B, kind: 'contention', symbol: 'xlog_grant_head_check+0x7e/0x2c0 [xfs]', count: 999 }, { capture: A, kind: 'contending', symbol: 'xlog_grant_head_check+0x1/0x2c0 [xfs]', count: 7 });
    d.symbols[1]!.sources = [{ capture: A, kind: 'class', symbol: '&head->lock', count: null }];
    const v = buildStacksView(d, colorOf);
    expect(v.symbols[0]!.from).toBe('waited 360 · held 7 · +1 capture');
    expect(v.symbols[1]!.from).toBe('class name');
  });

  it('says what to record when no capture has stacks', () => {
    const d = structuredClone(lockStacks);
    d.captures = d.captures.map((c) => ({ ...c, stacks: false }));
    d.symbols = d.symbols.map((s) => ({ ...s, found: false, stacks: [] }));
    d.notes = ['None of these captures has perf call stacks. Record the same workload with `iolens-collect run --stacks ...` and add that capture to the notebook.'];
    const v = buildStacksView(d, colorOf);
    expect(v.empty).toContain('iolens-collect run --stacks');
    expect(v.notes).toEqual([]);
  });
});
