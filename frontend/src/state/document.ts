// The saved notebook document <-> the notebook view of the URL. Pure; tests in document.test.ts.
//
// The document's type is generated from the backend (api/models.py NotebookDocument). A view
// cell keeps its kind's encoded state (the same text as in the URL), so a kind that learns new
// state keeps decoding old documents the way it keeps decoding old links. Markdown cells are
// the 'note' kind; SQL cells the 'sql' kind.
//
// Versions: `docUpgraders[n]` turns a version n-1 document into version n, as the backend's
// iolens/notebook/document.py UPGRADERS does (the backend upgrades documents before sending
// them; this copy is for documents that come from elsewhere, e.g. an exported file). Keep every
// upgrader forever, and backend/tests/fixtures/notebook-v1.json opening (document.test.ts).
import type { NotebookCell, NotebookDocument } from '../api/client';
import { cellKind } from '../cells/registry';
import type { SqlState } from '../cells/sql/state';
import { parseCell, type CellInstance, type CompareView } from './url';

export const DOC_VERSION = 1;

type Doc = Record<string, unknown>;
export type DocUpgrader = (d: Doc) => Doc;

/** docUpgraders[n]: version n-1 -> n. Version 1 is the first format. */
export const docUpgraders: Readonly<Record<number, DocUpgrader>> = {};

/** A document as stored -> the current version, or an Error saying why it cannot be read. */
export function upgradeDocument(raw: unknown, upgraders: Readonly<Record<number, DocUpgrader>> = docUpgraders, current = DOC_VERSION): NotebookDocument | Error {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return new Error('a notebook document is a JSON object');
  const v = (raw as Doc).format_version;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) return new Error(`format_version must be a positive integer, not ${JSON.stringify(v)}`);
  if (v > current) return new Error(`this notebook has format version ${v}, made by a newer iolens; this one reads up to ${current}`);
  let doc: Doc = structuredClone(raw as Doc);
  for (let n = v + 1; n <= current; n++) {
    const up = upgraders[n];
    if (!up) return new Error(`no upgrader to format version ${n}`);
    doc = { ...up(doc), format_version: n };
  }
  if (typeof doc.title !== 'string' || !Array.isArray(doc.captures) || typeof doc.baseline !== 'string' || !Array.isArray(doc.cells))
    return new Error('not a notebook document: title, captures, baseline and cells are required');
  return doc as unknown as NotebookDocument;
}

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
