// The saved notebook document <-> the notebook view of the URL. Pure; tests in document.test.ts.
//
// The document's type is generated from the backend (backend/iolens/models/notebook.py NotebookDocument). A view
// cell keeps its kind's encoded state (the same text as in the URL), so a kind that learns new
// state keeps decoding old documents the way it keeps decoding old links. Markdown cells are
// the 'note' kind; SQL cells the 'sql' kind.
//
// Versions: the backend is the one place that upgrades a stored document (its UPGRADERS, version
// by version); it sends every document at the current version, DOC_VERSION, which is the version
// this module writes. backend/tests/fixtures/notebook-v1.json, a document as the first format
// wrote it, opens here too (document.test.ts).
import type { NotebookCell, NotebookDocument, SqlChartSpec } from '../api/client';
import { cellKind } from '../cells/registry';
import { parseCell, type CellInstance, type CompareView } from './url';

export const DOC_VERSION = 1;

/** The state of the `sql` kind (cells/sql/state.ts), which a document keeps as fields, not encoded. */
interface SqlState {
  sql: string;
  chart: SqlChartSpec | null;
}

type Doc = Record<string, unknown>;

/** The notebook of the URL as a document to save. */
export function viewToDocument(view: CompareView, fallbackTitle: string): NotebookDocument {
  const cells: NotebookCell[] = view.cells.map((c) => {
    if (c.kind === 'note') return { type: 'markdown', text: (c.state as { text: string }).text };
    if (c.kind === 'sql') {
      const s = c.state as SqlState;
      return { type: 'sql', sql: s.sql, chart: s.chart, full: c.full };
    }
    const def = cellKind(c.kind);
    return { type: 'view', kind: c.kind, state: def ? def.encode(c.state) : '', full: c.full };
  });
  return {
    format_version: DOC_VERSION,
    title: (view.title ?? '').trim() || fallbackTitle,
    captures: [...view.captures],
    baseline: view.baseline,
    cells,
  };
}

/** A saved document -> the notebook view (cells decoded by their kinds), and what could not be shown. */
export function documentToView(doc: NotebookDocument, parent: string | null): { view: CompareView; problems: string[] } {
  const problems: string[] = [];
  const cells: CellInstance[] = [];
  doc.cells.forEach((c, i) => {
    if (c.type === 'markdown') cells.push({ kind: 'note', full: false, state: { text: c.text } });
    else if (c.type === 'sql') cells.push({ kind: 'sql', full: c.full ?? false, state: { sql: c.sql, chart: c.chart ?? null } satisfies SqlState });
    else {
      const token = `${c.kind}${c.full ? '.full' : ''}${c.state ? `:${c.state}` : ''}`;
      const parsed = parseCell(token);
      if (parsed instanceof Error) problems.push(`cell ${i + 1} (${c.kind}): ${parsed.message}`);
      else {
        if (parsed.problem) problems.push(`cell ${i + 1}: ${parsed.problem}`);
        cells.push(parsed.cell);
      }
    }
  });
  const view: CompareView = { page: 'compare', captures: [...doc.captures], baseline: doc.baseline, cells, title: doc.title };
  if (parent) view.parent = parent;
  return { view, problems };
}

/** Canonical JSON (sorted keys): equal documents give equal text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v as Doc)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Doc)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
}

export const sameDocument = (a: NotebookDocument, b: NotebookDocument) => canonicalJson(a) === canonicalJson(b);
