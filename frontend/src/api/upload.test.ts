import { describe, expect, it } from 'vitest';
import { parseUploadResponse } from './upload';

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
