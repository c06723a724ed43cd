import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { CapturePublic } from '../api/client';
import { useCaptureList } from '../api/queries';
import { invalidate } from '../api/useQuery';
import { copyText } from '../components/copy';
import { ErrorBox } from '../components/ErrorBox';
import { useShortcut } from '../components/shortcuts';
import { flash } from '../components/Toast';
import { UploadList } from '../components/UploadList';
import { LooseFilesPanel } from '../components/LooseFilesPanel';
import { useUploads } from '../components/useUploads';
import { formatDate } from '../logic/format';
import { filterCaptures, sortCaptures } from '../logic/library';
import { Link, navigate } from '../components/router';
import { starterUrl, viewToUrl, type Sort, type SortKey } from '../state/url';
import { useNotebooks } from '../api/queries';
import { NotebookTable } from '../components/NotebookTable';
import { cellKindTitle } from '../cells/registry';

interface Selection {
  selected: string[];
  baseline: string | null;
}
const SELECTION_KEY = 'iolens:library-selection';

/**
 * The ticked captures and the baseline live in the library's history entry (Back from a
 * comparison finds them again) and in the tab's session (the Library link does too).
 */
function keepSelection(sel: Selection): void {
  window.history.replaceState({ ...(window.history.state as object | null), librarySelection: sel }, '');
  try {
    window.sessionStorage.setItem(SELECTION_KEY, JSON.stringify(sel));
  } catch {
    /* storage refused: the history entry still has it */
  }
}

function restoredSelection(): Selection {
  const valid = (v: unknown): v is Selection =>
    !!v && typeof v === 'object' && Array.isArray((v as Selection).selected) && (v as Selection).selected.every((x) => typeof x === 'string');
  const fromHistory = (window.history.state as { librarySelection?: unknown } | null)?.librarySelection;
  if (valid(fromHistory)) return fromHistory;
  try {
    const s = JSON.parse(window.sessionStorage.getItem(SELECTION_KEY) ?? 'null') as unknown;
    if (valid(s)) return s;
  } catch {
    /* nothing kept */
  }
  return { selected: [], baseline: null };
}

/** Bundles go straight to upload; other files (by content, on the server) to the loose-files panel. */
function isBundleName(f: File): boolean {
  return /\.(iolens\.tar(\.gz)?|tar\.gz|tgz|tar)$/i.test(f.name);
}

type LibraryView = { page: 'library'; query: string; sort: Sort };

const COLUMNS: { key: SortKey | null; label: string; className?: string; title?: string }[] = [
  { key: 'label', label: 'Label' },
  { key: null, label: 'Tags' },
  { key: 'kernel', label: 'Kernel' },
  { key: 'host', label: 'Host' },
  { key: 'date', label: 'Captured (UTC)', title: 'When the capture started, UTC' },
  { key: 'runs', label: 'Runs × rep.', className: 'num', title: 'Runs (workload executions) × largest number of repeats of one point' },
  { key: 'workload', label: 'Workload' },
];

export function LibraryPage({ view, problems }: { view: LibraryView; problems: string[] }) {
  const captures = useCaptureList();
  const uploads = useUploads(() => {
    invalidate('captures', true);
    invalidate('health', true);
  });
  const addUploads = uploads.add;
  const [selected, setSelected] = useState<string[]>(() => restoredSelection().selected);
  const [baseline, setBaseline] = useState<string | null>(() => restoredSelection().baseline);
  useEffect(() => keepSelection({ selected, baseline }), [selected, baseline]);
  const [dragging, setDragging] = useState(false);
  const [loose, setLoose] = useState<File[] | null>(null);
  const filterRef = useRef<HTMLInputElement>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const looseRef = useRef<HTMLInputElement>(null);
  // Dropped files: bundles are uploaded one by one; anything else goes to the loose-files panel,
  // where the server says what each file is and they become one capture.
  const addLoose = useCallback(
    (files: File[]) => setLoose((cur) => [...(cur ?? []), ...files.filter((f) => !(cur ?? []).some((c) => c.name === f.name && c.size === f.size))]),
    [],
  );
  const routeDropped = useCallback(
    (files: File[]) => {
      const bundles = files.filter(isBundleName);
      const rest = files.filter((f) => !isBundleName(f));
      if (bundles.length) addUploads(bundles);
      if (rest.length) addLoose(rest);
    },
    [addUploads, addLoose],
  );

  const list = useMemo(() => captures.data ?? [], [captures.data]);
  const shown = useMemo(() => sortCaptures(filterCaptures(list, view.query), view.sort), [list, view.query, view.sort]);
  const byId = useMemo(() => new Map(list.map((c) => [c.id, c])), [list]);
  const sel = selected.filter((id) => byId.has(id));
  const base = baseline && sel.includes(baseline) ? baseline : (sel[0] ?? null);

  const setView = (patch: Partial<LibraryView>, replace = true) => navigate(viewToUrl({ ...view, ...patch }), { replace });
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));
  const compare = () => {
    if (sel.length < 2 || !base) {
      flash('Select two or more captures to compare');
      return;
    }
    const ids = [base, ...sel.filter((id) => id !== base)];
    navigate(starterUrl(ids.map((id) => byId.get(id)!).filter(Boolean), base));
  };

  useShortcut('/', (e) => {
    e.preventDefault();
    filterRef.current?.focus();
    filterRef.current?.select();
  });
  useShortcut('c', () => compare());

  // Drag and drop anywhere on the page.
  useEffect(() => {
    let depth = 0;
    const hasFiles = (e: DragEvent) => !!e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');
    const enter = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth++;
      setDragging(true);
    };
    const over = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const leave = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      depth = 0;
      setDragging(false);
      if (e.dataTransfer?.files.length) routeDropped(Array.from(e.dataTransfer.files));
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, [routeDropped]);

  const sortBy = (key: SortKey) =>
    setView({ sort: { key, desc: view.sort.key === key ? !view.sort.desc : key === 'date' || key === 'runs' } });

  const empty = captures.data !== undefined && list.length === 0;

  return (
    <div className="page">
      {problems.length > 0 && (
        <div className="notice" role="status">
          {problems.join(' ')}
        </div>
      )}
      <div className="toolbar">
        <h1>Captures</h1>
        <div className="filter">
          <input
            ref={filterRef}
            type="search"
            placeholder="Filter by label, tag, kernel, host…"
            aria-label="Filter captures"
            value={view.query}
            onChange={(e) => setView({ query: e.target.value })}
            onKeyDown={(e) => {
              if (e.key === 'Escape') e.currentTarget.blur();
            }}
          />
          <kbd className="filter-kbd">/</kbd>
        </div>
        {captures.data && (
          <span className="muted num">
            {shown.length === list.length ? `${list.length} captures` : `${shown.length} of ${list.length}`}
          </span>
        )}
        <div className="spacer" />
        <input
          ref={fileRef}
          type="file"
          multiple
          accept=".gz,.tar,.tgz,.terse,.txt,application/gzip,application/x-tar"
          hidden
          data-testid="bundle-input"
          onChange={(e) => {
            if (e.target.files?.length) uploads.add(Array.from(e.target.files));
            e.target.value = '';
          }}
        />
        <button type="button" className="button" onClick={() => fileRef.current?.click()}>
          Upload bundles…
        </button>
        <input
          ref={looseRef}
          type="file"
          multiple
          hidden
          data-testid="loose-input"
          onChange={(e) => {
            if (e.target.files?.length) addLoose(Array.from(e.target.files));
            e.target.value = '';
          }}
        />
        <button type="button" className="button" onClick={() => looseRef.current?.click()} title="fio JSON, perf script, blktrace, folded stacks, iostat... made into one capture">
          Loose files…
        </button>
        <button
          type="button"
          className="button primary"
          disabled={sel.length < 2}
          onClick={compare}
          title={sel.length < 2 ? 'Select two or more captures' : `Compare ${sel.length} captures against ${byId.get(base ?? '')?.label ?? ''} (c)`}
        >
          Compare{sel.length >= 2 ? ` ${sel.length}` : ''} <kbd>c</kbd>
        </button>
      </div>

      <UploadList items={uploads.items} onCancel={uploads.cancel} onClear={uploads.clearFinished} />

      {loose && loose.length > 0 && (
        <LooseFilesPanel
          files={loose}
          onAdd={addLoose}
          onRemove={(f) => setLoose((cur) => (cur ?? []).filter((x) => x !== f))}
          onClose={() => setLoose(null)}
          onUploaded={() => {
            invalidate('captures', true);
            invalidate('health', true);
          }}
        />
      )}

      {captures.error && <ErrorBox error={captures.error} title="Cannot list captures" />}
      {captures.loading && <p className="muted">Loading captures…</p>}

      {empty && <EmptyState onPick={() => fileRef.current?.click()} />}

      {list.length > 0 && (
        <>
          {sel.length > 0 && (
            <div className="selection-bar">
              <span>
                {sel.length} selected · baseline <strong>{byId.get(base ?? '')?.label}</strong>
              </span>
              <span className="muted">{sel.length < 2 ? 'select one more to compare' : 'pick another baseline with the radio buttons'}</span>
              <button type="button" className="link-button" onClick={() => setSelected([])}>
                Clear selection
              </button>
            </div>
          )}
          <div className="table-scroll">
            <table className="data-table library-table">
              <thead>
                <tr>
                  <th className="col-check">
                    <input
                      type="checkbox"
                      aria-label="Select all shown"
                      checked={shown.length > 0 && shown.every((c) => sel.includes(c.id))}
                      onChange={(e) =>
                        setSelected(e.target.checked ? [...new Set([...sel, ...shown.map((c) => c.id)])] : sel.filter((id) => !shown.some((c) => c.id === id)))
                      }
                    />
                  </th>
                  <th className="col-base" title="Baseline of the comparison: the capture the others are compared against">
                    Baseline
                  </th>
                  {COLUMNS.map((c) => (
                    <th key={c.label} className={c.className} title={c.title} aria-sort={c.key && view.sort.key === c.key ? (view.sort.desc ? 'descending' : 'ascending') : undefined}>
                      {c.key ? (
                        <button type="button" className="sort-button" onClick={() => sortBy(c.key!)}>
                          {c.label}
                          <span className="sort-mark">{view.sort.key === c.key ? (view.sort.desc ? '▼' : '▲') : ''}</span>
                        </button>
                      ) : (
                        c.label
                      )}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {shown.map((c) => (
                  <CaptureRow
                    key={c.id}
                    c={c}
                    selected={sel.includes(c.id)}
                    isBase={base === c.id}
                    onToggle={() => toggle(c.id)}
                    onBase={() => {
                      if (!sel.includes(c.id)) toggle(c.id);
                      setBaseline(c.id);
                    }}
                  />
                ))}
                {shown.length === 0 && (
                  <tr>
                    <td colSpan={COLUMNS.length + 2} className="muted empty-row">
                      No capture matches “{view.query}”.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <p className="hint muted">
            Drop bundles (<code>.iolens.tar.gz</code>) anywhere on this page to upload them, or loose files (fio JSON, perf script, blktrace, folded stacks, iostat…) to make one capture of them. Select two or more captures, pick the baseline, then Compare.
          </p>
        </>
      )}

      {list.length > 0 && <LibraryNotebooks query={view.query} />}

      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          <div>Drop bundles, or loose files to make a capture</div>
        </div>
      )}
    </div>
  );
}

/** Saved notebooks that match the library's filter: the same words search both. */
function LibraryNotebooks({ query }: { query: string }) {
  const q = useNotebooks(query);
  if (!q.data || (q.data.total === 0 && !query)) return null;
  const shown = q.data.notebooks.slice(0, 5);
  return (
    <section className="library-notebooks">
      <div className="toolbar small-toolbar">
        <h2>
          Notebooks <span className="muted count">{query ? `${q.data.total} matching` : q.data.total}</span>
        </h2>
        <Link to={viewToUrl({ page: 'notebooks', query })}>{q.data.total > shown.length ? `All ${q.data.total} →` : 'Notebooks page →'}</Link>
      </div>
      <NotebookTable kindTitle={cellKindTitle} notebooks={shown} query={query} />
    </section>
  );
}

function CaptureRow({ c, selected, isBase, onToggle, onBase }: { c: CapturePublic; selected: boolean; isBase: boolean; onToggle: () => void; onBase: () => void }) {
  return (
    <tr
      className={selected ? 'selected' : undefined}
      data-capture-id={c.id}
      onClick={(e) => {
        const t = e.target as HTMLElement;
        if (t.closest('a,button,input,label')) return;
        onToggle();
      }}
    >
      <td className="col-check">
        <input type="checkbox" checked={selected} onChange={onToggle} aria-label={`Select ${c.label}`} />
      </td>
      <td className="col-base">
        <input type="radio" name="baseline" checked={isBase} onChange={onBase} aria-label={`Baseline: ${c.label}`} title={selected ? 'Compare against this capture' : 'Select this capture and compare against it'} />
      </td>
      <td className="col-label">
        <Link to={`/captures/${c.id}`} title={`Capture ${c.id}`}>
          {c.label}
        </Link>
        {c.warnings.length > 0 && (
          <span className="warn-mark" title={c.warnings.join('\n')}>
            ⚠
          </span>
        )}
      </td>
      <td className="col-tags">
        {Object.entries(c.tags).map(([k, v]) => (
          <span key={k} className="chip" title={`tag ${k}=${v}`}>
            <span className="chip-key">{k}</span>
            {v}
          </span>
        ))}
      </td>
      <td className="mono col-kernel">{c.kernel ?? <span className="muted">–</span>}</td>
      <td className="col-host">{c.hostname ?? <span className="muted">–</span>}</td>
      <td className="num-left" title={`started ${c.created_at}\ningested ${c.ingested_at}`}>
        {formatDate(c.created_at)}
      </td>
      <td className="num" title={`${c.runs} runs, up to ${c.repeats} repeats of one point`}>
        {c.runs} <span className="muted">× {c.repeats}</span>
      </td>
      <td className="col-workload" title={c.workload_summary ?? c.workload_kind}>
        <span className="kind-badge">{c.workload_kind}</span> {c.workload_summary}
      </td>
    </tr>
  );
}

const COLLECT_CMD =
  "iolens-collect run --label 6.18-xfs --tag fs=xfs --repeat 3 \\\n  --fio-args '--name=randwrite --filename=/mnt/test/f --size=1g --bs=4k --rw=randwrite --ioengine=libaio --iodepth=32 --direct=1 --runtime=30 --time_based' \\\n  -o 6.18-xfs.iolens.tar.gz";
const INGEST_CMD = 'iolens ingest 6.18-xfs.iolens.tar.gz';

function EmptyState({ onPick }: { onPick: () => void }) {
  return (
    <section className="empty-state" data-testid="empty-state">
      <h2>No captures yet</h2>
      <p className="muted">A capture is one bundle written by the collector on the host under test: the fio output of every run, the host facts, the exact commands.</p>
      <ol>
        <li>
          <div>On the host under test, capture a workload (repeat it to see the spread):</div>
          <CommandBlock text={COLLECT_CMD} />
        </li>
        <li>
          <div>
            Bring the bundle here: <strong>drop it anywhere on this page</strong>,{' '}
            <button type="button" className="link-button" onClick={onPick}>
              choose files
            </button>
            , or ingest it on the server:
          </div>
          <CommandBlock text={INGEST_CMD} />
        </li>
        <li>Capture the other kernel or configuration the same way, select both, pick the baseline and press Compare.</li>
      </ol>
    </section>
  );
}

function CommandBlock({ text }: { text: string }) {
  return (
    <div className="command">
      <pre>{text}</pre>
      <button type="button" className="link-button" onClick={() => void copyText(text.replace(/\\\n\s*/g, '')).then((ok) => flash(ok ? 'Command copied' : 'Could not copy'))}>
        Copy
      </button>
    </div>
  );
}
