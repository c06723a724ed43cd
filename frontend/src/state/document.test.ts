import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NotebookDocument } from '../api/client';
import { canonicalJson, documentToView, DOC_VERSION, sameDocument, viewToDocument } from './document';
import { parseUrl, viewToUrl, type CompareView } from './url';

// The same fixture the backend's tests open: a document as the first format version wrote it.
const FIXTURE = path.resolve(__dirname, '../../../backend/tests/fixtures/notebook-v1.json');
const v1 = (): NotebookDocument => JSON.parse(fs.readFileSync(FIXTURE, 'utf-8')) as NotebookDocument;

describe('notebook document', () => {
  it('a version 1 document still opens, with every cell', () => {
    const d = v1();
    expect(d.format_version).toBe(DOC_VERSION);
    const { view, problems } = documentToView(d, null);
    expect(problems).toEqual([]);
    expect(view.cells.map((c) => c.kind)).toEqual(['note', 'fio', 'sql']);
    expect(view.cells[1]!.state).toEqual({ metrics: ['iops', 'clat_p99', 'cpu_per_io'], strips: true });
    expect(view.cells[2]!.state).toEqual({ sql: (v1().cells[2] as { sql: string }).sql, chart: { mark: 'bar', x: 'label', y: ['iops'] } });
    expect(view.title).toBe('ext4 vs XFS: 4k random writes on 6.18');
    // and it saves back as the same document
    expect(canonicalJson(viewToDocument(view, 'x'))).toBe(canonicalJson(v1()));
  });

  it('the notebook survives the URL: view -> URL -> view -> document', () => {
    const { view } = documentToView(v1(), 'abcdefghjk');
    const url = viewToUrl(view);
    expect(url).toContain('&parent=abcdefghjk');
    expect(url).toContain('&title=ext4%20vs%20XFS');
    const u = new URL(url, 'http://x');
    const back = parseUrl(u.pathname, u.search);
    expect(back.problems).toEqual([]);
    expect(back.view).toEqual(view);
    expect(sameDocument(viewToDocument(back.view as CompareView, ''), v1())).toBe(true);
  });

  it('a view cell of a kind this build does not know is reported, not fatal', () => {
    const d = v1();
    d.cells.push({ type: 'view', kind: 'flamegraph', state: 'zoom=2', full: true });
    d.cells.push({ type: 'view', kind: 'fio', state: 'strip=maybe', full: false });
    const { view, problems } = documentToView(d, null);
    expect(view.cells.map((c) => c.kind)).toEqual(['note', 'fio', 'sql', 'fio']);
    expect(problems[0]).toMatch(/cell 4 \(flamegraph\): unknown cell kind 'flamegraph'/);
    expect(problems[1]).toMatch(/cell 5: .*strip must be 0 or 1/);
  });

  it('untitled notebooks get the fallback title', () => {
    const view: CompareView = { page: 'compare', captures: ['a', 'b'], baseline: 'a', cells: [] };
    expect(viewToDocument(view, 'b vs a').title).toBe('b vs a');
    expect(viewToDocument({ ...view, title: '  Mine ' }, 'b vs a').title).toBe('Mine');
  });

  it('canonical JSON ignores key order', () => {
    expect(canonicalJson({ b: 1, a: [{ y: 2, x: null }] })).toBe('{"a":[{"x":null,"y":2}],"b":1}');
  });
});
