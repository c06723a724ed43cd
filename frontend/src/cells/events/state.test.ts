import { describe, expect, it } from 'vitest';
import { decodeEvents, defaultEventsState, encodeEvents, perRunText, perSecondText, showValue } from './state';

describe('events cell state', () => {
  it('round-trips and keeps the default empty', () => {
    expect(encodeEvents(defaultEventsState)).toBe('');
    const s = { event: 'xfs:xfs_ail_insert', field: 'new_lsn', top: 50 };
    expect(encodeEvents(s)).toBe('e=xfs:xfs_ail_insert;f=new_lsn;top=50');
    expect(decodeEvents(encodeEvents(s))).toEqual(s);
    expect(decodeEvents('')).toEqual(defaultEventsState);
  });
  it('rejects garbage with a message', () => {
    expect(decodeEvents('e=xfs')).toBeInstanceOf(Error);
    expect(decodeEvents('f=1x')).toBeInstanceOf(Error);
    expect(decodeEvents('top=0')).toBeInstanceOf(Error);
    expect(decodeEvents('zz=1')).toBeInstanceOf(Error);
  });
});

describe('field values', () => {
  it('shows an XFS LSN as cycle/block, other fields as they are', () => {
    expect(showValue('new_lsn', '4294967298')).toBe('1/2');
    expect(showValue('old_lsn', '0')).toBe('0/0');
    expect(showValue('sector', '4294967298')).toBe('4294967298');
    expect(showValue('new_lsn', 'x')).toBe('x');
  });
});

describe('events numbers', () => {
  it("reads means per run and rates in the app's number rule (logic/format.ts), not a format of its own", () => {
    expect([1655.333, 1655, 12.5, 0].map(perRunText)).toEqual(['1.655k', '1.655k', '12.5', '0']);
    expect([551.8, 40810, 0.11].map(perSecondText)).toEqual(['552/s', '40.81k/s', '0.1/s']);
    expect([perRunText(null), perSecondText(undefined)]).toEqual(['–', '–']);
  });
});
