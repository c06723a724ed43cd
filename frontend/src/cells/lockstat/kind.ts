import { lazyCell } from '../lazy';
import { defineCell } from '../types';
import { decodeLockStat, defaultLockStatState, encodeLockStat, type LockStatState } from './state';

/** Lock contention from /proc/lock_stat: the captures compared class by class, or one capture's top classes. */
export const lockStatCell = defineCell<LockStatState>({
  kind: 'lockstat',
  title: 'Lock contention',
  description: 'lock_stat classes compared: change in wait per I/O, classes that appear or vanish, call sites',
  defaultState: defaultLockStatState,
  encode: encodeLockStat,
  decode: decodeLockStat,
  ...lazyCell(() => import('./LockStatCell').then((m) => m.LockStatCell)),
  starter: (caps) => caps.some((c) => (c.artifact_kinds ?? []).includes('lock-stat')),
});
