import { describe, expect, it } from 'vitest';
import { decodeMonitors, defaultMonitorsState, encodeMonitors } from './state';

describe('monitors cell state', () => {
  it('round-trips, keys with slashes and percent signs included', () => {
    expect(encodeMonitors(defaultMonitorsState)).toBe('');
    for (const s of [{ source: 'ext4', key: 'ext4/vda/lifetime_write_kbytes' }, { source: null, key: 'stat/cpu0.busy%' }]) {
      expect(decodeMonitors(encodeMonitors(s))).toEqual(s);
    }
  });
  it('rejects garbage with a message', () => {
    expect(decodeMonitors('src=proc')).toBeInstanceOf(Error);
    expect(decodeMonitors('k=nosource/x')).toBeInstanceOf(Error);
    expect(decodeMonitors('k=%E0%A4%A')).toBeInstanceOf(Error);
    expect(decodeMonitors('x=1')).toBeInstanceOf(Error);
  });
});
