import { describe, expect, it } from 'vitest';
import { factValue } from './CompareFacts';

describe('factValue (the comparison head)', () => {
  it('shows a byte count with its unit, right-aligned, the exact count kept for the tooltip', () => {
    expect(factValue('memory.total_bytes', '2060386304')).toEqual({ text: '1.92 GiB', num: true, raw: '2060386304 bytes' });
  });
  it('right-aligns other integers as they are', () => {
    expect(factValue('CONFIG_HZ', '1000')).toEqual({ text: '1000', num: true });
    expect(factValue('cpu.count', '4')).toEqual({ text: '4', num: true });
  });
  it('keeps versions and text as text', () => {
    expect(factValue('lab.kernel.label', '6.1')).toEqual({ text: '6.1', num: false });
    expect(factValue('kernel.release', '6.12.117+deb12-amd64')).toEqual({ text: '6.12.117+deb12-amd64', num: false });
    expect(factValue('memory.total_bytes', 'unknown')).toEqual({ text: 'unknown', num: false });
  });
});
