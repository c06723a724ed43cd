// The whole view state <-> the URL. The one module that knows URL parameters. Pure; tests in
// url.test.ts.
//
//   /                                      library; ?q=FILTER&sort=[-]KEY
//   /captures/ID                           one capture
//   /compare?v=1&captures=A,B&baseline=A&cell=fio&cell=note.full:TEXT[&title=T][&parent=ID]
//                                          a notebook: captures in column/colour order, the
//                                          baseline, then one `cell` per view cell, in order:
//                                          KIND[.full][:STATE], STATE being the kind's encode();
//                                          its title; `parent`: the saved version it was edited
//                                          from (optional parameters: absent = untitled, unsaved).
//                                          No `cell` at all: `cells=none` is a notebook whose
//                                          cells were all removed (it stays empty); without it
//                                          the link never chose cells (written by hand, by a
//                                          script) and the page opens the starter cells, as the
//                                          library's Compare does (CompareView.starter)
//   /n/ID                                  a saved notebook version, exactly (state/document.ts)
//   /notebooks?q=WORDS                     saved notebooks, searched
//
// Versions: a URL without `v` is version 0. `upgraders[n]` turns a version n-1 query into version
// n, in place; parseUrl runs them in order up to URL_VERSION. A newer `v` than this code knows is
// refused with a message (never guessed).
import type { CapturePublic } from '../api/client';
import { cellKind, DEFAULT_CELLS, starterCells } from '../cells/registry';
import { DEFAULT_SORT, SORT_KEYS, type Sort, type SortKey } from '../logic/library';
import { defaultTitle } from '../logic/notebook';

export const URL_VERSION = 1;

export { DEFAULT_SORT, SORT_KEYS, type Sort, type SortKey };

export interface CellInstance {
  kind: string;
  full: boolean;
  state: unknown;
}

export type View =
  | { page: 'library'; query: string; sort: Sort }
  | { page: 'capture'; id: string }
  | CompareView
  | { page: 'notebook'; id: string }
  | { page: 'notebooks'; query: string }
  | { page: 'not-found'; path: string }
  /** The URL cannot be shown at all; `problems` say why. */
  | { page: 'bad-url'; path: string; problems: string[] };

export interface CompareView {
  page: 'compare';
  captures: string[];
  baseline: string;
  cells: CellInstance[];
  /** The notebook's title ('' or absent: untitled). */
  title?: string;
  /** The saved version this notebook was edited from. */
  parent?: string;
  /** The link named no cell and did not say `cells=none`: it never chose cells, so the page puts in the
   *  starter cells of its captures (registry starterCells) once it knows them. `cells` is [] until then. */
  starter?: boolean;
}

export const NOTEBOOK_ID = /^[0-9a-z]{10,52}$/;
export const TITLE_MAX_CHARS = 300;

export interface Parsed {
  view: View;
  /** Things in the URL that were ignored or replaced; the page shows them, it still renders. */
  problems: string[];
}

type Upgrader = (q: URLSearchParams, pathname: string) => void;

/** upgraders[n]: version n-1 -> n. Keep every one forever. */
export const upgraders: Readonly<Record<number, Upgrader>> = {
  // v0: links without a version, written by hand or by early builds:
  //   /compare?captures=A,B[&base=A]  (no cells listed: the notebook showed the fio table).
  // v1: `baseline` instead of `base`; cells are explicit: an empty notebook is `cells=none`, and no
  //     `cell` without it means the link did not choose any (the starter cells; before `cells=none`
  //     existed such a link opened empty, and the first builds wrote empty notebooks so: those now
  //     open with the starter cells, which can be removed again).
  1: (q, pathname) => {
    if (!q.has('baseline') && q.has('base')) q.set('baseline', q.get('base') ?? '');
    q.delete('base');
    if (pathname === '/compare' && !q.has('cell')) for (const k of DEFAULT_CELLS) q.append('cell', k);
  },
};

export const CAPTURE_ID = /^[A-Za-z0-9_-]{1,64}$/;
const CELL_TOKEN = /^([a-z][a-z0-9_-]*)((?:\.[a-z]+)*)(?::([\s\S]*))?$/;

function normPath(pathname: string): string {
  const p = pathname.replace(/\/{2,}/g, '/');
  return p.length > 1 ? p.replace(/\/$/, '') : p;
}

/** Read a URL (its path and query string) into a view. Never throws. */
export function parseUrl(pathname: string, search: string): Parsed {
  const path = normPath(pathname);
  const q = new URLSearchParams(search);
  const problems: string[] = [];
  const bad = (...ps: string[]): Parsed => ({ view: { page: 'bad-url', path: path + search, problems: ps }, problems: [] });

  // Version and upgrades.
  const vText = q.get('v');
  let version = 0;
  if (vText !== null) {
    if (!/^\d{1,4}$/.test(vText)) return bad(`v=${vText} is not a version number (this iolens writes v=${URL_VERSION}).`);
    version = Number(vText);
    if (version > URL_VERSION)
      return bad(
        `This link is version ${version}, made by a newer iolens; this server understands links up to version ${URL_VERSION}. Upgrade iolens to open it.`,
      );
  }
  for (let v = version + 1; v <= URL_VERSION; v++) upgraders[v]?.(q, path);
  q.delete('v');

  if (path === '/' || path === '') return { view: { page: 'library', query: q.get('q') ?? '', sort: parseSort(q.get('sort'), problems) }, problems };

  // /capture/ID too: the singular is what a hand-typed link says as often as not
  const m = /^\/captures?\/([^/]+)$/.exec(path);
  if (m) {
    let id = m[1] ?? '';
    try {
      id = decodeURIComponent(id);
    } catch {
      /* keep as is */
    }
    if (!CAPTURE_ID.test(id)) return bad(`'${id}' is not a capture id (letters, digits, '-' and '_').`);
    return { view: { page: 'capture', id }, problems };
  }

  const nb = /^\/n\/([^/]+)$/.exec(path);
  if (nb) {
    const id = nb[1] ?? '';
    if (!NOTEBOOK_ID.test(id)) return bad(`'${id}' is not a notebook id (10 or more lower-case letters and digits).`);
    return { view: { page: 'notebook', id }, problems };
  }

  if (path === '/notebooks') return { view: { page: 'notebooks', query: q.get('q') ?? '' }, problems };

  if (path === '/compare') {
    const raw = (q.get('captures') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
    if (raw.length === 0) return bad('No captures to compare: the link needs captures=ID1,ID2 (pick them in the library).');
    const badIds = raw.filter((id) => !CAPTURE_ID.test(id));
    if (badIds.length) return bad(`captures: ${badIds.map((b) => `'${b}'`).join(', ')} ${badIds.length === 1 ? 'is not a capture id' : 'are not capture ids'}.`);
    const captures = [...new Set(raw)];
    if (captures.length < raw.length) problems.push('captures: a capture listed twice is shown once.');
    let baseline = q.get('baseline') ?? '';
    if (!captures.includes(baseline)) {
      if (baseline !== '') problems.push(`baseline '${baseline}' is not one of the compared captures; using ${captures[0]}.`);
      baseline = captures[0] ?? '';
    }
    const cells: CellInstance[] = [];
    q.getAll('cell').forEach((token, i) => {
      const c = parseCell(token);
      if (c instanceof Error) problems.push(`cell ${i + 1} (${token.length > 60 ? token.slice(0, 60) + '…' : token}): ${c.message}`);
      else {
        if (c.problem) problems.push(`cell ${i + 1}: ${c.problem}`);
        cells.push(c.cell);
      }
    });
    const view: CompareView = { page: 'compare', captures, baseline, cells };
    const cellsWord = q.get('cells');
    if (cellsWord !== null && cellsWord !== 'none') problems.push(`cells=${cellsWord.slice(0, 40)}: only cells=none (an empty notebook) is known; ignored.`);
    if (cellsWord === 'none' && q.has('cell')) problems.push('cells=none with cells listed: the cells are shown.');
    if (!q.has('cell') && cellsWord !== 'none') view.starter = true;
    const title = q.get('title');
    if (title) view.title = title.slice(0, TITLE_MAX_CHARS);
    const parent = q.get('parent');
    if (parent !== null) {
      if (NOTEBOOK_ID.test(parent)) view.parent = parent;
      else problems.push(`parent '${parent}' is not a notebook id; this notebook will be saved without one.`);
    }
    return { view, problems };
  }

  return { view: { page: 'not-found', path }, problems };
}

function parseSort(s: string | null, problems: string[]): Sort {
  if (!s) return DEFAULT_SORT;
  const desc = s.startsWith('-');
  const key = desc ? s.slice(1) : s;
  if ((SORT_KEYS as readonly string[]).includes(key)) return { key: key as SortKey, desc };
  problems.push(`sort=${s}: unknown column (known: ${SORT_KEYS.join(', ')}); sorted by date.`);
  return DEFAULT_SORT;
}

/** One `cell` value -> a cell; an Error when it has to be left out, `problem` when its state was replaced. */
export function parseCell(token: string): { cell: CellInstance; problem?: string } | Error {
  const m = CELL_TOKEN.exec(token);
  if (!m) return new Error('not KIND[.full][:STATE]; left out');
  const [, kind = '', flagText = '', stateText] = m;
  const def = cellKind(kind);
  if (!def) return new Error(`unknown cell kind '${kind}'; left out`);
  const flags = flagText.split('.').filter(Boolean);
  const unknown = flags.filter((f) => f !== 'full');
  const full = flags.includes('full');
  const decoded = def.decode(stateText ?? '');
  const notes: string[] = [];
  if (unknown.length) notes.push(`unknown option ${unknown.map((f) => `.${f}`).join(' ')} ignored`);
  if (decoded instanceof Error) {
    notes.push(`${def.title}: ${decoded.message}; shown with its default settings`);
    return { cell: { kind, full, state: def.defaultState }, problem: notes.join('; ') };
  }
  return notes.length ? { cell: { kind, full, state: decoded }, problem: notes.join('; ') } : { cell: { kind, full, state: decoded } };
}

export function encodeCell(c: CellInstance): string {
  const def = cellKind(c.kind);
  const state = def ? def.encode(c.state) : '';
  return `${c.kind}${c.full ? '.full' : ''}${state !== '' ? `:${state}` : ''}`;
}

/** Percent-encode a query value, leaving the characters that are safe in a query and read better: , : ; = / @ */
export function encodeQueryValue(v: string): string {
  return encodeURIComponent(v).replace(/%(2C|3A|3B|3D|2F|40)/gi, (s) => decodeURIComponent(s));
}

function query(pairs: [string, string][]): string {
  return pairs.length ? '?' + pairs.map(([k, v]) => `${k}=${encodeQueryValue(v)}`).join('&') : '';
}

/** A view -> its URL (path and query). parseUrl(viewToUrl(v)) gives v back. */
export function viewToUrl(view: View): string {
  switch (view.page) {
    case 'library': {
      const pairs: [string, string][] = [];
      if (view.query) pairs.push(['q', view.query]);
      if (view.sort.key !== DEFAULT_SORT.key || view.sort.desc !== DEFAULT_SORT.desc)
        pairs.push(['sort', `${view.sort.desc ? '-' : ''}${view.sort.key}`]);
      if (pairs.length) pairs.unshift(['v', String(URL_VERSION)]);
      return '/' + query(pairs);
    }
    case 'capture':
      return `/captures/${encodeURIComponent(view.id)}`;
    case 'compare': {
      const pairs: [string, string][] = [
        ['v', String(URL_VERSION)],
        ['captures', view.captures.join(',')],
        ['baseline', view.baseline],
      ];
      for (const c of view.cells) pairs.push(['cell', encodeCell(c)]);
      if (!view.cells.length && !view.starter) pairs.push(['cells', 'none']);
      if (view.title) pairs.push(['title', view.title]);
      if (view.parent) pairs.push(['parent', view.parent]);
      return '/compare' + query(pairs);
    }
    case 'notebook':
      return `/n/${view.id}`;
    case 'notebooks':
      return '/notebooks' + (view.query ? query([['v', String(URL_VERSION)], ['q', view.query]]) : '');
    case 'not-found':
      return view.path;
    case 'bad-url':
      return view.path;
  }
}

/** The URL of a new notebook over these captures, with the default cells. */
export function compareUrl(captures: string[], baseline?: string): string {
  const cells = DEFAULT_CELLS.flatMap((k) => {
    const def = cellKind(k);
    return def ? [{ kind: k, full: false, state: def.defaultState }] : [];
  });
  return viewToUrl({ page: 'compare', captures, baseline: baseline ?? captures[0] ?? '', cells });
}

/** A notebook of one capture that has not chosen its cells: it opens with the starter cells of what
 *  the capture recorded (the capture page's "Open in a notebook"). */
export function captureNotebookUrl(id: string): string {
  return viewToUrl({ page: 'compare', captures: [id], baseline: id, cells: [], starter: true });
}

/** A link that never chose cells (CompareView.starter) with the starter cells of its captures, the rest as it was. */
export function withStarterCells(view: CompareView, captures: readonly CapturePublic[]): CompareView {
  const { starter: _, ...rest } = view;
  return { ...rest, cells: starterCells(captures, view.baseline) };
}

/** "Compare these captures": a new notebook with a title, a Markdown intro and the cells that apply. */
export function starterUrl(captures: readonly CapturePublic[], baseline: string): string {
  const base = captures.find((c) => c.id === baseline);
  return viewToUrl({
    page: 'compare',
    captures: captures.map((c) => c.id),
    baseline,
    cells: starterCells(captures, baseline),
    title: defaultTitle(
      captures.map((c) => c.label),
      base?.label ?? baseline,
    ),
  });
}
