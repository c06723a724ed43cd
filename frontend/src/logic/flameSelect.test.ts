import { describe, expect, it } from 'vitest';
import { exactPattern, parseSeconds, runOptionValue, runOptions, secondsText } from './flameSelect';

describe('run choices', () => {
  const sweep = [
    { id: 'r000', repeat: 0, params: { bs: '4k' } },
    { id: 'r001', repeat: 1, params: { bs: '4k' } },
    { id: 'r002', repeat: 0, params: { bs: '16k' } },
  ];
  it('all, each point with its repeats merged, each run', () => {
    const o = runOptions(sweep);
    expect(o.map((x) => x.label)).toEqual([
      'All 3 runs, merged',
      'bs=4k · 2 repeats merged',
      'bs=16k · 1 run',
      'Run r000 · repeat 0 · bs=4k',
      'Run r001 · repeat 1 · bs=4k',
      'Run r002 · repeat 0 · bs=16k',
    ]);
    expect(runOptionValue(o, ['r001', 'r000'])).toBe('pt:r000,r001');
    expect(runOptionValue(o, null)).toBe('all');
    expect(runOptionValue(o, ['r000', 'r002'])).toBe('custom');
  });
  it('plain repeats: no point choice', () => {
    const o = runOptions([
      { id: 'r000', repeat: 0, params: {} },
      { id: 'r001', repeat: 1, params: {} },
    ]);
    expect(o.map((x) => x.value)).toEqual(['all', 'run:r000', 'run:r001']);
    expect(runOptions([{ id: 'r000', repeat: 0, params: {} }]).map((x) => x.label)).toEqual(['All runs']);
  });
});

describe('inputs', () => {
  it('seconds', () => {
    expect(parseSeconds('1.5')).toBe(1_500_000_000);
    expect(parseSeconds(' ')).toBeNull();
    expect(parseSeconds('x')).toBeInstanceOf(Error);
    expect(parseSeconds('-1')).toBeInstanceOf(Error);
    expect(secondsText(1_500_000)).toBe('0.0015');
    expect(secondsText(null)).toBe('');
  });
  it('exact search of a name', () => {
    expect(exactPattern('clock_gettime@@GLIBC_2.17')).toBe('^clock_gettime@@GLIBC_2\\.17$');
    expect(new RegExp(exactPattern('a(b)*')).test('a(b)*')).toBe(true);
  });
});
