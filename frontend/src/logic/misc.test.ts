import { describe, expect, it } from 'vitest';
import { parseUploadResponse } from '../api/upload';
import { stripLayout } from '../charts/dotStrip';
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

describe('upload responses', () => {
  it('201 and 200 are captures', () => {
    const body = JSON.stringify({ id: 'abc', label: 'x', created: true, runs: 2, warnings: [] });
    expect(parseUploadResponse(201, body)).toMatchObject({ ok: true, capture: { id: 'abc', created: true } });
    expect(parseUploadResponse(200, body.replace('true', 'false'))).toMatchObject({ ok: true, capture: { created: false } });
  });
  it('4xx JSON bodies become errors with their detail', () => {
    const r = parseUploadResponse(400, JSON.stringify({ error: 'not a tar archive', detail: { file: 'x.txt' } }));
    expect(r).toMatchObject({ ok: false, error: { message: 'not a tar archive', status: 400, detail: { file: 'x.txt' } } });
  });
  it('non-JSON failures still say something', () => {
    expect(parseUploadResponse(502, '<html>Bad Gateway</html>')).toMatchObject({ ok: false, error: { status: 502 } });
    expect(parseUploadResponse(500, '', 'Internal Server Error')).toMatchObject({ ok: false, error: { message: 'HTTP 500 Internal Server Error' } });
    expect(parseUploadResponse(413, JSON.stringify({ detail: 'too big' }))).toMatchObject({ ok: false, error: { message: 'too big' } });
  });
});

describe('dot strip layout', () => {
  it('maps values on the shared domain with padding', () => {
    const l = stripLayout([0, 50, 100], 50, 0, [0, 100], 72, 14, 4);
    expect(l.dots).toEqual([4, 36, 68]);
    expect(l.meanX).toBe(36);
    expect(l.baselineX).toBe(4);
  });
  it('centres a single value and drops non-finite ones', () => {
    const l = stripLayout([5, Number.NaN], 5, null, [5, 5], 72, 14, 4);
    expect(l.dots).toEqual([36]);
    expect(l.baselineX).toBeNull();
  });
});
