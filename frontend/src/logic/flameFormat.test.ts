import { describe, expect, it } from 'vitest';
import { changeTone, fmtInt, fmtPct, fmtWeight, pctOf, sampleWord, shortLabel } from './flameFormat';

describe('flame cell numbers', () => {
  it('counts with separators, rounded', () => {
    expect([fmtInt(0), fmtInt(999.6), fmtInt(1234567)]).toEqual(['0', '1,000', '1,234,567']);
  });
  it('counts as toLocaleString(en-US) writes them (without ICU), a negative zero as 0', () => {
    const values = [1, 12, 123, 1234, 12345, 123456, 1234567, 999.5, 1e15 + 3, 123456789012345680, 9.99e20, 1e21, 4e22, NaN, Infinity, -Infinity];
    for (const v of [...values, ...values.map((x) => -x)]) expect(fmtInt(v)).toBe(Math.round(v).toLocaleString('en-US'));
    expect([fmtInt(-0), fmtInt(-0.4)]).toEqual(['0', '0']);
  });
  it('shares: more decimals the smaller, 0% for nothing', () => {
    expect([fmtPct(45.678), fmtPct(10), fmtPct(9.999), fmtPct(0.5), fmtPct(0.1), fmtPct(0.0123), fmtPct(0), fmtPct(-1)]).toEqual(['45.7%', '10.0%', '10.00%', '0.50%', '0.10%', '0.012%', '0%', '0%']);
    expect(pctOf(1, 4)).toBe(25);
    expect(pctOf(3, 0)).toBe(0);
  });
  it("a sample of the off-CPU events says what it is: a wait, a wakeup", () => {
    expect([sampleWord('offcpu', 9595), sampleWord('offcpu', 1), sampleWord('wakeup', 2), sampleWord('cpu-clock', 823), sampleWord(null, 1)]).toEqual(['waits', 'wait', 'wakeups', 'samples', 'sample']);
  });
  it('weights: time for ns, else events', () => {
    expect(fmtWeight(12_600_000_000, 'ns')).toBe('12.6 s');
    expect(fmtWeight(1500, 'events')).toBe('1,500 events');
  });
  it('the tone of a change beyond ±0.005 pp', () => {
    expect([changeTone(0.006), changeTone(0.005), changeTone(-0.005), changeTone(-0.01)]).toEqual(['grew', '', '', 'shrank']);
  });
  it('labels cut at 18 characters', () => {
    expect(shortLabel('6.18-xfs')).toBe('6.18-xfs');
    expect(shortLabel('123456789012345678')).toBe('123456789012345678');
    expect(shortLabel('6.18.44-fc-v669-ext4-stacks')).toBe('6.18.44-fc-v669-e…');
  });
});
