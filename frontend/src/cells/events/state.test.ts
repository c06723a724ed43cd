import { describe, expect, it } from 'vitest';
import { columnFormat, decodeEvents, defaultEventsState, encodeEvents, showValue } from './state';

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

describe('columnFormat', () => {
  it('gives a column one precision, so its digits line up', () => {
    const mixed = columnFormat([1655.3, 1655, null]);
    expect([1655.3, 1655].map(mixed)).toEqual(['1,655.3', '1,655.0']);
    expect(mixed(null)).toBe('–');
    const whole = columnFormat([1655, 12, 3.02]);
    expect([1655, 12, 3.02].map(whole)).toEqual(['1,655', '12', '3']);
  });
});
