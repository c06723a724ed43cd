import { describe, expect, it } from 'vitest';
import { captureList } from '../testdata/fixtures';
import { describeDetail } from './errorDetail';
import { filterCaptures, sortCaptures } from './library';
import { shellJoin, shellQuote } from './shell';

describe('shell quoting', () => {
  it('quotes only when needed', () => {
    expect(shellQuote('--bs=4k')).toBe('--bs=4k');
    expect(shellQuote('a b')).toBe("'a b'");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('')).toBe("''");
    expect(shellJoin(['fio', '--name=t', '--filename=/tmp/a b'])).toBe("fio --name=t '--filename=/tmp/a b'");
  });
});

describe('library filter and sort', () => {
  it('matches every word against label, tags, kernel, host', () => {
    expect(filterCaptures(captureList, 'xfs').map((c) => c.label)).toEqual(['6.18-xfs', '6.1-xfs-emulated', 'bulkstat-sweep']);
    expect(filterCaptures(captureList, 'fs=ext4').map((c) => c.label)).toEqual(['6.18-ext4']);
    expect(filterCaptures(captureList, 'XFS qemu').map((c) => c.label)).toEqual(['6.1-xfs-emulated']);
    expect(filterCaptures(captureList, '6.1.0').map((c) => c.label)).toEqual(['6.1-xfs-emulated']);
    expect(filterCaptures(captureList, '  ').length).toBe(4);
  });
  it('sorts by a column, both ways', () => {
    expect(sortCaptures(captureList, { key: 'date', desc: true }).map((c) => c.label)[0]).toBe('6.18-ext4');
    expect(sortCaptures(captureList, { key: 'label', desc: false }).map((c) => c.label)).toEqual(['6.1-xfs-emulated', '6.18-ext4', '6.18-xfs', 'bulkstat-sweep']);
    expect(sortCaptures(captureList, { key: 'runs', desc: true })[0]!.label).toBe('bulkstat-sweep');
  });
});

describe('error detail', () => {
  it('orders file, line, field first', () => {
    expect(describeDetail({ field: 'runs[0].id', file: 'manifest.json', line: 3 })).toEqual([
      ['file', 'manifest.json'],
      ['line', '3'],
      ['field', 'runs[0].id'],
    ]);
  });
  it('handles strings, FastAPI validation lists and nothing', () => {
    expect(describeDetail('boom')).toBe('boom');
    expect(describeDetail([{ loc: ['body', 'file'], msg: 'Field required' }])).toBe('body.file: Field required');
    expect(describeDetail(null)).toBeNull();
    expect(describeDetail({})).toBeNull();
  });
});
