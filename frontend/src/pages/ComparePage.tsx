import { Suspense, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { ApiError, postNotebook, type CapturePublic, type FioComparison, type NotebookVersion } from '../api/client';
import { askForToken } from '../api/auth';
import { useCaptureList, useFioComparison, useNotebook, useTimelineOverview } from '../api/queries';
import { invalidate } from '../api/useQuery';
import { cellKind, cellKinds } from '../cells/registry';
import { clearSharedTime, sharedTimeCapture, sharedTimeOf } from '../cells/timeline/shared';
import type { NotebookContext } from '../cells/types';
import { copyText } from '../components/copy';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { ErrorBox } from '../components/ErrorBox';
import { CompareFacts, FactName, HeadCols, ValueCells } from './CompareFacts';
import { NotebookExportMenu } from '../components/ExportMenu';
import { flash } from '../components/Toast';
import { CellKeys, type KeyEdit } from '../logic/cellKeys';
import { captureColor } from '../logic/colors';
import { formatDate } from '../logic/format';
import { defaultTitle, followBaseline } from '../logic/notebook';
import { clearDraft, draftKey, loadDraft, useKeptDraft } from '../components/drafts';
import { useShortcut } from '../components/shortcuts';
import { sameDocument, viewToDocument } from '../state/document';
import { withoutStacksOfPage } from '../state/pageHints';
import { Link, navigate } from '../components/router';
import { parseUrl, TITLE_MAX_CHARS, viewToUrl, withStarterCells, type CellInstance, type CompareView } from '../state/url';

/** The captures the server said (in index.html) have no call stacks: a fact of each capture, true
 *  on every page the app goes to after it. */
const PAGE_WITHOUT_STACKS = withoutStacksOfPage();

export function ComparePage({ view, problems }: { view: CompareView; problems: string[] }) {
  // A link that never chose cells (no `cell`, no `cells=none`) opens with the starter cells of its
  // captures, as the library's Compare does; the URL is replaced (not a new history entry) once the
  // captures are known. A notebook whose cells were removed says `cells=none` and stays empty.
  const list = useCaptureList();
  useEffect(() => {
    if (!view.starter || !list.data) return;
    const byId = new Map(list.data.map((c) => [c.id, c]));
    const caps = view.captures.map((id) => byId.get(id)).filter((c): c is CapturePublic => !!c);
    if (!caps.length) return; // unknown captures: the page says so, nothing to start from
    navigate(viewToUrl(withStarterCells(view, caps)), { replace: true });
  }, [view, list.data]);
  return <NotebookView view={view} problems={problems} saved={null} />;
}

type SaveState = 'saved' | 'unchanged' | 'draft' | 'new';

/**
 * A notebook: the captures' header, then its cells. Its state is the URL (`/compare?...`); on a
 * saved version (`/n/ID`, `saved` given) the first edit moves to the URL form with `parent=ID`.
 * Save (Ctrl/Cmd+S) turns the URL's notebook into an immutable version and opens its permalink.
 */
export function NotebookView({ view, problems, saved }: { view: CompareView; problems: string[]; saved: NotebookVersion | null }) {
  const list = useCaptureList();
  // What sets the captures apart (host and workload facts): nothing to compare in a notebook of
  // one capture (its "Differing host facts" said 0, "identical"), so not asked for there: the
  // request took the server ~30 ms of CPU beside the page's first render, and its answer a second
  // render of the page that moved every cell down (bench/README.md, issue 17).
  const cmp = useFioComparison(view.captures.length > 1 ? view.captures : null, view.baseline);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [cellKeys] = useState(() => new CellKeys());
  const parentId = saved ? saved.id : (view.parent ?? null);
  const parentQ = useNotebook(saved ? null : (view.parent ?? null));
  // The notebook as the URL holds it now: two edits in one turn (a title and a text restored
  // from drafts at load) both land, the second on top of the first.
  const current = (): CompareView => {
    const loc = parseUrl(window.location.pathname, window.location.search).view;
    return loc.page === 'compare' ? loc : view;
  };
  // an edit of the notebook (a cell's zoom, search, state; a title) keeps the window where it is
  const setView = (patch: Partial<CompareView>) => navigate(viewToUrl({ ...current(), ...patch, ...(parentId ? { parent: parentId } : {}) }), { keepScroll: true });
  // the shared time selection (a timeline cell's brush): a new context only when it changes. A
  // selection without run= is of the run its timeline shows, the capture's first (shared.ts).
  const runsCap = sharedTimeCapture(view.cells, view.baseline);
  const runsQ = useTimelineOverview(runsCap);
  const runIds = runsQ.data?.runs.map((r) => r.id) ?? null;
  const shared = sharedTimeOf(view.cells, view.baseline, (cap) => (cap === runsCap ? runIds : null))?.time ?? null;
  const timeKey = shared ? `${shared.capture}|${shared.run}|${shared.from}|${shared.to}` : '';
  const ctx: NotebookContext = useMemo(
    () => ({
      captures: view.captures,
      baseline: view.baseline,
      time: shared,
      clearTime: () => setView({ cells: clearSharedTime(current().cells) }),
      withoutStacks: PAGE_WITHOUT_STACKS,
      withCapture: (id: string) => {
        const v = current();
        return viewToUrl({ ...v, captures: v.captures.includes(id) ? v.captures : [...v.captures, id], ...(parentId ? { parent: parentId } : {}) });
      },
    }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `shared` is new each render; timeKey is its value
    [view.captures, view.baseline, timeKey],
  );

  const byId = new Map((list.data ?? []).map((c) => [c.id, c]));
  const baseLabel = byId.get(view.baseline)?.label ?? view.baseline;
  const fallbackTitle = defaultTitle(
    view.captures.map((id) => byId.get(id)?.label ?? id),
    baseLabel,
  );
  const doc = useMemo(() => viewToDocument(view, fallbackTitle), [view, fallbackTitle]);
  const state: SaveState = saved ? 'saved' : view.parent ? (parentQ.data && sameDocument(parentQ.data.document, doc) ? 'unchanged' : 'draft') : 'new';

  // Generated words (the starter's title and intro) follow the baseline until the user edits them.
  const changeBaseline = (b: string) => {
    const caps = view.captures.map((id) => byId.get(id)).filter((c): c is CapturePublic => !!c);
    const follow = caps.length === view.captures.length ? followBaseline(caps, view.baseline, b, view.cells, view.title) : { cells: view.cells, title: view.title };
    setView({ baseline: b, cells: follow.cells, ...(follow.title !== undefined ? { title: follow.title } : {}) });
  };

  const setCells = (cells: CellInstance[], edit?: KeyEdit) => {
    if (edit) cellKeys.edit(edit);
    setView({ cells });
  };
  // A cell opens another view (the flame graph of a lock's call site...): an identical cell is
  // scrolled to; else the view is added right after the cell, and scrolled to once it is drawn.
  const pendingScroll = useRef<{ index: number; cells: number } | null>(null);
  useEffect(() => {
    const p = pendingScroll.current;
    if (p && view.cells.length === p.cells) {
      pendingScroll.current = null;
      requestAnimationFrame(() => document.getElementById(`cell-${p.index + 1}`)?.scrollIntoView({ block: 'start' }));
    }
  }, [view.cells]);
  const openCell = (i: number, kind: string, state: unknown) => {
    const def = cellKind(kind);
    if (!def) return;
    const encoded = def.encode(state);
    const same = view.cells.findIndex((c) => c.kind === kind && def.encode(c.state) === encoded);
    if (same >= 0) {
      document.getElementById(`cell-${same + 1}`)?.scrollIntoView({ block: 'start' });
      flash(`Already open as cell ${same + 1}`);
      return;
    }
    pendingScroll.current = { index: i + 1, cells: view.cells.length + 1 };
    setCells([...view.cells.slice(0, i + 1), { kind, full: false, state }, ...view.cells.slice(i + 1)], { op: 'insert', at: i + 1 });
    flash(`${def.title} added as cell ${i + 2}`);
  };
  const moveCell = (i: number, d: number) => {
    const cells = [...view.cells];
    const j = i + d;
    if (j < 0 || j >= cells.length) return;
    [cells[i], cells[j]] = [cells[j]!, cells[i]!];
    setCells(cells, { op: 'move', from: i, to: j });
  };

  /** Save what the URL holds now (a cell may have just committed its text); the permalink's id, or null. */
  const save = async (quiet = false): Promise<string | null> => {
    if (saved) {
      if (!quiet) flash(`Already saved: this is version ${saved.id}`);
      return saved.id;
    }
    const loc = parseUrl(window.location.pathname, window.location.search).view;
    const current = loc.page === 'compare' ? loc : view;
    const d = viewToDocument(current, fallbackTitle);
    if (current.parent && parentQ.data && sameDocument(parentQ.data.document, d)) {
      navigate(`/n/${current.parent}`);
      if (!quiet) flash(`No changes since version ${current.parent}`);
      return current.parent;
    }
    setSaving(true);
    try {
      let res;
      try {
        res = await postNotebook(d, current.parent ?? null);
      } catch (e) {
        if (e instanceof ApiError && e.status === 401 && (await askForToken('Saving notebooks on this server needs its access token.')))
          res = await postNotebook(d, current.parent ?? null);
        else throw e;
      }
      invalidate('notebook'); // the list and the parent (its newer versions)
      navigate(res.url);
      const ok = quiet ? false : await copyText(window.location.origin + res.url);
      if (!quiet) flash(`Saved as ${res.url}${ok ? ` · copied the short link ${window.location.origin}${res.url}` : ''}`);
      return res.id;
    } catch (e) {
      flash(`Not saved: ${e instanceof Error ? e.message : String(e)}`);
      return null;
    } finally {
      setSaving(false);
    }
  };
  // Copy link: the short permalink when this notebook is saved; otherwise offer to save first
  // (Enter) or to copy the long link that holds the whole notebook.
  const [copyOpen, setCopyOpen] = useState(false);
  const shortUrl = saved ? `/n/${saved.id}` : state === 'unchanged' && parentId ? `/n/${parentId}` : null;
  const copyLink = async () => {
    if (!shortUrl) {
      setCopyOpen(true);
      return;
    }
    const url = window.location.origin + shortUrl;
    const ok = await copyText(url);
    flash(ok ? `Copied the short link ${url}` : `Could not copy: the link is ${url}`);
  };
  useShortcut('y', () => void copyLink());
  const saveRef = useRef(save);
  saveRef.current = save;

  // Ctrl/Cmd+S anywhere on the page, also while typing (the cell being edited keeps its text first).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        void saveRef.current();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  // Open at the cell a link points to (#cell-3).
  useEffect(() => {
    const m = /^#cell-(\d+)$/.exec(window.location.hash);
    if (m) document.getElementById(`cell-${m[1]}`)?.scrollIntoView();
  }, []);

  // React keys that follow each cell through edits of its state, moves, duplicates and removals.
  const keys = cellKeys.fit(view.cells.length);

  const problemKey = problems.join('\n');
  const pageKey = draftKey('').replace(/#$/, '');

  return (
    <div className="page notebook">
      <div className="toolbar nb-toolbar">
        <TitleEditor title={view.title ?? (saved ? saved.document.title : '')} placeholder={fallbackTitle} onChange={(t) => setView({ title: t })} storeKey={`${pageKey}#title`} />
        <SaveStatus state={state} saved={saved} parent={parentId} />
        <div className="spacer" />
        <button type="button" className="button" title={shortUrl ? `Copy the permalink ${shortUrl} (y)` : 'Copy a link: save first for a short one (y)'} onClick={() => void copyLink()}>
          Copy link <kbd>y</kbd>
        </button>
        <NotebookExportMenu savedId={saved?.id ?? null} ensureSaved={() => save(true)} />
        <button
          type="button"
          className={`button${saved || state === 'unchanged' ? '' : ' primary'}`}
          disabled={saving}
          onClick={() => void save()}
          title={saved ? 'This version is saved; edit it to save a new version' : 'Save an immutable version with a permalink (Ctrl+S)'}
        >
          {saving ? 'Saving…' : saved ? 'Saved' : parentId ? 'Save version' : 'Save'} <kbd>Ctrl</kbd>
          <kbd>S</kbd>
        </button>
      </div>
      <p className="nb-subtitle muted">
        {view.captures.length} capture{view.captures.length === 1 ? '' : 's'} · baseline {baseLabel}
      </p>

      {problems.length > 0 && dismissed !== problemKey && (
        <div className="notice" role="alert" data-testid="url-problems">
          <div>
            <strong>Parts of this {saved ? 'notebook' : 'link'} were not understood:</strong>
            <ul className="problems">
              {problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => setDismissed(problemKey)}>
            ×
          </button>
        </div>
      )}

      <NotebookHeader view={view} list={list.data} cmp={cmp.data} stale={cmp.stale} onBaseline={changeBaseline} />
      {cmp.error && <ErrorBox error={cmp.error} title="Cannot compare these captures" />}

      <div className="cells">
        {view.cells.map((cell, i) => {
          const def = cellKind(cell.kind);
          if (!def) return null;
          const C = def.Component;
          return (
            <section
              key={keys[i]}
              id={`cell-${i + 1}`}
              className={`cell${cell.full ? ' cell-full' : ''}`}
              data-kind={cell.kind}
              aria-label={`${def.title} cell`}
            >
              <header className="cell-head">
                <a className="cell-index num" href={`#cell-${i + 1}`} title="Link to this cell">
                  {i + 1}
                </a>
                <h2 className="cell-kind">{def.title}</h2>
                <div className="spacer" />
                <button
                  type="button"
                  className={`toggle${cell.full ? ' on' : ''}`}
                  aria-pressed={cell.full}
                  title="Use the full width of the window"
                  onClick={() => setCells(view.cells.map((c, j) => (j === i ? { ...c, full: !c.full } : c)))}
                >
                  Full width
                </button>
                <CellMenu
                  first={i === 0}
                  last={i === view.cells.length - 1}
                  onUp={() => moveCell(i, -1)}
                  onDown={() => moveCell(i, 1)}
                  onDuplicate={() => setCells([...view.cells.slice(0, i + 1), { ...cell }, ...view.cells.slice(i + 1)], { op: 'insert', at: i + 1 })}
                  onRemove={() => setCells(view.cells.filter((_, j) => j !== i), { op: 'remove', at: i })}
                />
              </header>
              <div className="cell-body">
                <ErrorBoundary what={def.title}>
                  {/* the kind's code loads the first time one of its cells is shown (cells/lazy.ts) */}
                  <Suspense fallback={<p className="muted">Loading the {def.title.toLowerCase()} view…</p>}>
                    <C
                      ctx={ctx}
                      state={cell.state}
                      full={cell.full}
                      setState={(s) => setCells(current().cells.map((c, j) => (j === i ? { ...c, state: s } : c)))}
                      openCell={(kind, st) => openCell(i, kind, st)}
                      draftKey={`${pageKey}#cell-${i + 1}`}
                    />
                  </Suspense>
                </ErrorBoundary>
              </div>
            </section>
          );
        })}
        {view.cells.length === 0 && <p className="muted empty-cells">This notebook has no cells. Add text, a view or a SQL query below.</p>}
      </div>
      {copyOpen && (
        <CopyLinkDialog
          longUrl={window.location.href}
          onClose={() => setCopyOpen(false)}
          onSaveAndCopy={async () => {
            setCopyOpen(false);
            const id = await save(true);
            if (!id) return;
            const url = `${window.location.origin}/n/${id}`;
            const ok = await copyText(url);
            flash(ok ? `Saved · copied the short link ${url}` : `Saved; could not copy: the link is ${url}`);
          }}
        />
      )}
      <AddCell onAdd={(kind) => setCells([...view.cells, { kind, full: false, state: cellKind(kind)!.defaultState }], { op: 'insert', at: view.cells.length })} />
    </div>
  );
}

/**
 * The notebook's title, edited in place. Its box grows with the text (a hidden copy of the text
 * sizes it, so no character is ever cut off), a pencil shows it can be edited; Enter, Esc and
 * leaving the field keep what was typed, and an unfinished edit survives a reload (drafts.ts).
 */
function TitleEditor({ title, placeholder, onChange, storeKey }: { title: string; placeholder: string; onChange: (t: string) => void; storeKey: string }) {
  const [draft, setDraft] = useState(() => {
    const d = loadDraft(storeKey);
    return d && d.text !== title ? d.text : title;
  });
  const [focused, setFocused] = useState(false);
  const shown = useRef(title);
  useEffect(() => {
    if (shown.current === title) return;
    shown.current = title;
    setDraft(title);
  }, [title]);
  useKeptDraft(storeKey, draft, title, true);
  // A title typed before a reload is put back into the notebook at once (Save then keeps it).
  useEffect(() => {
    if (draft === title) return;
    clearDraft(storeKey);
    onChange(draft.trim());
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, at load
  }, []);
  const commit = () => {
    const t = draft.trim();
    clearDraft(storeKey);
    if (t !== title) onChange(t);
  };
  return (
    <h1 className={`nb-title${focused ? ' editing' : ''}`}>
      <label className="title-grow" data-value={(draft || placeholder) + ' '}>
        <input
          className="title-input"
          value={draft}
          placeholder={placeholder}
          maxLength={TITLE_MAX_CHARS}
          aria-label="Notebook title"
          title="Click to edit the title"
          size={1}
          onChange={(e) => setDraft(e.target.value)}
          onFocus={() => setFocused(true)}
          onBlur={() => {
            setFocused(false);
            commit();
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' || e.key === 'Escape') e.currentTarget.blur();
            if (e.key.toLowerCase() === 's' && (e.ctrlKey || e.metaKey)) commit();
          }}
        />
      </label>
      <span className="title-pencil" aria-hidden="true" onClick={(e) => (e.currentTarget.previousElementSibling?.querySelector('input') as HTMLInputElement | null)?.focus()}>
        ✎
      </span>
    </h1>
  );
}

function SaveStatus({ state, saved, parent }: { state: SaveState; saved: NotebookVersion | null; parent: string | null }) {
  if (state === 'saved' && saved)
    return (
      <span className="save-status saved" data-testid="save-status" title={`Saved ${saved.created_at}: this link always shows exactly this version`}>
        version <code>{saved.id}</code> · {formatDate(saved.created_at)}
        {saved.parent && (
          <>
            {' '}
            · from <Link to={`/n/${saved.parent}`}>{saved.parent}</Link>
          </>
        )}
        {saved.children.length > 0 && (
          <>
            {' '}
            · <Link to={`/n/${saved.children[0]}`}>newer version</Link>
            {saved.children.length > 1 ? ` (+${saved.children.length - 1})` : ''}
          </>
        )}
      </span>
    );
  if (state === 'unchanged')
    return (
      <span className="save-status" data-testid="save-status">
        same as version <Link to={`/n/${parent}`}>{parent}</Link>
      </span>
    );
  if (state === 'draft')
    return (
      <span className="save-status draft" data-testid="save-status" title="Saving makes a new version linked to the one it was edited from">
        unsaved changes to <Link to={`/n/${parent}`}>{parent}</Link>
      </span>
    );
  return (
    <span className="save-status draft" data-testid="save-status" title="The link holds this notebook; Save makes a short, permanent link">
      not saved
    </span>
  );
}

function NotebookHeader({ view, list, cmp, stale, onBaseline }: { view: CompareView; list: CapturePublic[] | undefined; cmp: FioComparison | undefined; stale: boolean; onBaseline: (id: string) => void }) {
  const byId = new Map((list ?? []).map((c) => [c.id, c]));
  const cols = [view.baseline, ...view.captures.filter((id) => id !== view.baseline)];
  const colorOf = (id: string) => captureColor(view.captures.indexOf(id));
  const unknown = list ? view.captures.filter((id) => !byId.has(id)) : [];

  return (
    <section className="nb-header" style={{ '--ncap': cols.length } as React.CSSProperties}>
      <div className="table-scroll">
        <table className="data-table captures-head head-grid">
          <HeadCols cols={cols} />
          <thead>
            <tr>
              <th />
              {cols.map((id) => {
                const c = byId.get(id);
                return (
                  <th key={id} className="cap-col" data-capture-id={id}>
                    <span className="swatch" style={{ background: colorOf(id) }} />
                    {c ? (
                      <Link to={`/captures/${id}`} title={`Capture ${id}`}>
                        {c.label}
                      </Link>
                    ) : (
                      <span className="mono">{id}</span>
                    )}
                    {id === view.baseline && <span className="base-badge">baseline</span>}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            <tr>
              <th>Kernel</th>
              {cols.map((id) => (
                <td key={id} className="mono">
                  {byId.get(id)?.kernel ?? '–'}
                </td>
              ))}
            </tr>
            <tr>
              <th>Repeats</th>
              {cols.map((id) => {
                const c = byId.get(id);
                return (
                  <td key={id} className="num" title={c ? `${c.runs} runs; each point repeated up to ${c.repeats} times` : ''}>
                    {c ? (
                      <>
                        n={c.repeats} <span className="muted">· {c.runs} run{c.runs === 1 ? '' : 's'}</span>
                      </>
                    ) : (
                      '–'
                    )}
                  </td>
                );
              })}
            </tr>
            <tr>
              <th>Tags</th>
              {cols.map((id) => (
                <td key={id}>
                  {Object.entries(byId.get(id)?.tags ?? {}).map(([k, v]) => (
                    <span key={k} className="chip">
                      <span className="chip-key">{k}</span>
                      {v}
                    </span>
                  ))}
                </td>
              ))}
            </tr>
            <tr>
              <th>Baseline</th>
              {cols.map((id) => (
                <td key={id}>
                  <label className="radio-label">
                    <input type="radio" name="nb-baseline" checked={id === view.baseline} onChange={() => onBaseline(id)} aria-label={`Use ${byId.get(id)?.label ?? id} as baseline`} />
                    {id === view.baseline ? 'baseline' : 'use as baseline'}
                  </label>
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      </div>
      {unknown.length > 0 && (
        <div className="error-box" role="alert">
          Not in this server's library: {unknown.map((u) => <code key={u}>{u} </code>)}. The link may come from another iolens server.
        </div>
      )}
      {/* (the previous baseline's facts, dimmed, until the new baseline's come: useFioComparison) */}
      <div className={stale ? 'updating' : undefined} aria-busy={stale}>
        {cmp && cols.length > 1 && <CompareFacts cmp={cmp} cols={cols} labels={new Map(cmp.captures.map((c) => [c.id, c.label]))} />}
        {cmp && <HostDiff cmp={cmp} cols={cols} colorOf={colorOf} />}
      </div>
    </section>
  );
}

/** A host fact this long is a command line (the kernel's, qemu's, the lab's): listed last, folded. */
const LONG_FACT = 120;
const isLongFact = (d: FioComparison['host_diff'][number]) => Object.values(d.values).some((v) => (v ?? '').length > LONG_FACT);

function HostDiff({ cmp, cols, colorOf }: { cmp: FioComparison; cols: string[]; colorOf: (id: string) => string }) {
  const [open, setOpen] = useState(true);
  const [showLong, setShowLong] = useState(false);
  const labels = new Map(cmp.captures.map((c) => [c.id, c.label]));
  const long = cmp.host_diff.filter(isLongFact);
  const rows = [...cmp.host_diff.filter((d) => !isLongFact(d)), ...(showLong ? long : [])];
  return (
    <div className="host-diff">
      <h2>
        <button type="button" className="disclosure" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? '▾' : '▸'} Differing host facts <span className="muted count">{cmp.host_diff.length}</span>
        </button>
      </h2>
      {open &&
        (cmp.host_diff.length === 0 ? (
          <p className="muted">
            {cmp.facts.workload_diff.length > 0
              ? `No host fact differs, but the workloads do: ${cmp.facts.workload_diff.length} workload fact${cmp.facts.workload_diff.length === 1 ? '' : 's'} listed above.`
              : "The captures' host facts are identical."}
          </p>
        ) : (
          <div className="table-scroll">
            <table className="data-table diff-table head-grid">
              <HeadCols cols={cols} />
              <thead>
                <tr>
                  <th>Fact</th>
                  {cols.map((id) => (
                    <th key={id}>
                      <span className="swatch" style={{ background: colorOf(id) }} />
                      {labels.get(id) ?? id}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((d) => (
                  <tr key={d.key}>
                    <th className="mono">
                      <FactName name={d.key} />
                    </th>
                    <ValueCells fact={d.key} values={d.values} cols={cols} baseline={cmp.baseline} missing="null" extraClass={isLongFact(d) ? ' long-fact' : ''} />
                  </tr>
                ))}
              </tbody>
            </table>
            {long.length > 0 && (
              <button type="button" className="disclosure muted" aria-expanded={showLong} onClick={() => setShowLong(!showLong)}>
                {showLong ? '▾ Hide' : '▸ Show'} {long.length} command line{long.length === 1 ? '' : 's'} that differ: {long.map((d) => d.key).join(', ')}
              </button>
            )}
          </div>
        ))}
    </div>
  );
}

function CellMenu({ first, last, onUp, onDown, onDuplicate, onRemove }: { first: boolean; last: boolean; onUp: () => void; onDown: () => void; onDuplicate: () => void; onRemove: () => void }) {
  const [open, setOpen] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open) return;
    const close = (e: MouseEvent) => {
      if (!ref.current?.contains(e.target as Node)) setOpen(false);
    };
    const esc = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('mousedown', close);
    window.addEventListener('keydown', esc);
    return () => {
      window.removeEventListener('mousedown', close);
      window.removeEventListener('keydown', esc);
    };
  }, [open]);
  const act = (f: () => void) => () => {
    setOpen(false);
    f();
  };
  return (
    <div className="menu" ref={ref}>
      <button type="button" className="icon-button" aria-haspopup="menu" aria-expanded={open} aria-label="Cell menu" onClick={() => setOpen(!open)}>
        ⋯
      </button>
      {open && (
        <div className="menu-list" role="menu">
          <button type="button" role="menuitem" disabled={first} onClick={act(onUp)}>
            Move up
          </button>
          <button type="button" role="menuitem" disabled={last} onClick={act(onDown)}>
            Move down
          </button>
          <button type="button" role="menuitem" onClick={act(onDuplicate)}>
            Duplicate
          </button>
          <button type="button" role="menuitem" className="danger" onClick={act(onRemove)}>
            Remove
          </button>
        </div>
      )}
    </div>
  );
}

function CopyLinkDialog({ longUrl, onClose, onSaveAndCopy }: { longUrl: string; onClose: () => void; onSaveAndCopy: () => void }) {
  useShortcut('Escape', onClose);
  // focused when the dialog opens, so that Enter saves: `autoFocus` is only an attribute in Preact
  // (React focused the element itself), and a browser heeds it once per page, not in a dialog added later
  const primary = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => primary.current?.focus(), []);
  return (
    <div className="modal-backdrop" onClick={onClose}>
      <div className="modal copy-dialog" role="dialog" aria-modal="true" aria-labelledby="copy-dialog-title" onClick={(e) => e.stopPropagation()}>
        <div className="modal-head">
          <h2 id="copy-dialog-title">Copy a link to this notebook</h2>
          <button type="button" className="icon-button" onClick={onClose} aria-label="Close">
            ×
          </button>
        </div>
        <p>
          This notebook is not saved. Its link holds the whole notebook, text included: <strong className="num">{longUrl.length} characters</strong>, which wrap
          and break in a 72-column email. Saving makes an immutable version with a short link, <code>/n/ID</code>.
        </p>
        <div className="dialog-actions">
          <button ref={primary} type="button" className="button primary" onClick={onSaveAndCopy}>
            Save and copy the short link <kbd>Enter</kbd>
          </button>
          <button
            type="button"
            className="button"
            onClick={() => {
              onClose();
              void copyText(longUrl).then((ok) => flash(ok ? `Copied the long link (${longUrl.length} characters, not saved)` : 'Could not copy: use the address bar'));
            }}
          >
            Copy the long link
          </button>
        </div>
      </div>
    </div>
  );
}

function AddCell({ onAdd }: { onAdd: (kind: string) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="add-cell">
      <button type="button" className="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        + Add cell
      </button>
      {open && (
        <ul className="add-cell-list" role="menu">
          {cellKinds().map((k) => (
            <li key={k.kind}>
              <button
                type="button"
                role="menuitem"
                onClick={() => {
                  setOpen(false);
                  onAdd(k.kind);
                }}
              >
                <strong>{k.title}</strong> <span className="muted">{k.description}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
