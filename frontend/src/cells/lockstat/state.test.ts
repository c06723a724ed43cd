import { describe, expect, it } from 'vitest';
import { cellKind } from '../registry';
import { decodeLockStat, defaultLockStatState, encodeLockStat, type LockStatState } from './state';

describe('lock contention cell state', () => {
  const cases: LockStatState[] = [
    defaultLockStatState,
    { view: 'top', by: 'wait_total', cap: null },
    { view: 'top', by: 'contentions', cap: '3f9a1c2b4d5e6f70' },
    { view: 'cmp', by: 'wait_avg', cap: null },
  ];
  it.each(cases)('round trip %j', (s) => expect(decodeLockStat(encodeLockStat(s))).toEqual(s));

  it('encodes the default to "" and is registered', () => {
    expect(encodeLockStat(defaultLockStatState)).toBe('');
    expect(cellKind('lockstat')?.title).toBe('Lock contention');
  });

  it('rejects garbage with a reason', () => {
    expect((decodeLockStat('v=flame') as Error).message).toMatch(/v must be cmp or top/);
    expect((decodeLockStat('by=holdtime') as Error).message).toMatch(/by must be one of/);
    expect((decodeLockStat('cap=../x') as Error).message).toMatch(/not a capture id/);
    expect((decodeLockStat('zz=1') as Error).message).toMatch(/unknown field 'zz'/);
    expect(decodeLockStat('nokey')).toBeInstanceOf(Error);
  });

  it('starts a notebook only for captures that hold lock_stat', () => {
    const k = cellKind('lockstat')!;
    const cap = (kinds: string[]) => ({ artifact_kinds: kinds }) as never;
    expect(k.starter?.([cap(['fio-json'])])).toBe(false);
    expect(k.starter?.([cap(['fio-json']), cap(['fio-json', 'lock-stat'])])).toBe(true);
  });
});
