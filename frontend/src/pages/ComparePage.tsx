import { useEffect, useMemo, useRef, useState } from 'react';
import type { CapturePublic, FioComparison } from '../api/client';
import { useCaptureList, useFioComparison } from '../api/queries';
import { cellKind, cellKinds } from '../cells/registry';
import type { NotebookContext } from '../cells/types';
import { copyText } from '../components/copy';
import { ErrorBoundary } from '../components/ErrorBoundary';
import { ErrorBox } from '../components/ErrorBox';
import { flash } from '../components/Toast';
import { captureColor } from '../logic/colors';
import { Link, navigate } from '../state/router';
import { encodeCell, viewToUrl, type CellInstance } from '../state/url';

type CompareView = { page: 'compare'; captures: string[]; baseline: string; cells: CellInstance[] };

export function ComparePage({ view, problems }: { view: CompareView; problems: string[] }) {
  const list = useCaptureList();
  const cmp = useFioComparison(view.captures, view.baseline);
  const [dismissed, setDismissed] = useState<string | null>(null);
  const setView = (patch: Partial<CompareView>) => navigate(viewToUrl({ ...view, ...patch }));
  const ctx: NotebookContext = useMemo(() => ({ captures: view.captures, baseline: view.baseline }), [view.captures, view.baseline]);

  const setCells = (cells: CellInstance[]) => setView({ cells });
  const moveCell = (i: number, d: number) => {
    const cells = [...view.cells];
    const j = i + d;
    if (j < 0 || j >= cells.length) return;
    [cells[i], cells[j]] = [cells[j]!, cells[i]!];
    setCells(cells);
  };

  // Stable React keys across moves: kind + encoded state + occurrence.
  const keys = useMemo(() => {
    const seen = new Map<string, number>();
    return view.cells.map((c) => {
      const k = encodeCell({ ...c, full: false });
      const n = (seen.get(k) ?? 0) + 1;
      seen.set(k, n);
      return `${k}#${n}`;
    });
  }, [view.cells]);

  const problemKey = problems.join('\n');
  const byId = new Map((list.data ?? []).map((c) => [c.id, c]));
  const baseLabel = byId.get(view.baseline)?.label ?? view.baseline;

  return (
    <div className="page notebook">
      <div className="toolbar">
        <h1>
          Compare <span className="muted">{view.captures.length} captures · baseline {baseLabel}</span>
        </h1>
        <div className="spacer" />
        <button
          type="button"
          className="button"
          title="Copy a permalink to this view (y)"
          onClick={() => void copyText(window.location.href).then((ok) => flash(ok ? 'Link copied' : 'Could not copy: use the address bar'))}
        >
          Copy link <kbd>y</kbd>
        </button>
      </div>

      {problems.length > 0 && dismissed !== problemKey && (
        <div className="notice" role="alert" data-testid="url-problems">
          <div>
            <strong>Parts of this link were not understood:</strong>
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

      <NotebookHeader view={view} list={list.data} cmp={cmp.data} onBaseline={(b) => setView({ baseline: b })} />
      {cmp.error && <ErrorBox error={cmp.error} title="Cannot compare these captures" />}

      <div className="cells">
        {view.cells.map((cell, i) => {
          const def = cellKind(cell.kind);
          if (!def) return null;
          const C = def.Component;
          return (
            <section key={keys[i]} className={`cell${cell.full ? ' cell-full' : ''}`} data-kind={cell.kind} aria-label={`${def.title} cell`}>
              <header className="cell-head">
                <span className="cell-index num">{i + 1}</span>
                <span className="cell-kind">{def.title}</span>
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
                  onRemove={() => setCells(view.cells.filter((_, j) => j !== i))}
                />
              </header>
              <div className="cell-body">
                <ErrorBoundary what={def.title}>
                  <C ctx={ctx} state={cell.state} full={cell.full} setState={(s) => setCells(view.cells.map((c, j) => (j === i ? { ...c, state: s } : c)))} />
                </ErrorBoundary>
              </div>
            </section>
          );
        })}
        {view.cells.length === 0 && <p className="muted empty-cells">This notebook has no cells. Add one below.</p>}
      </div>
      <AddCell onAdd={(kind) => setCells([...view.cells, { kind, full: false, state: cellKind(kind)!.defaultState }])} />
    </div>
  );
}

function NotebookHeader({ view, list, cmp, onBaseline }: { view: CompareView; list: CapturePublic[] | undefined; cmp: FioComparison | undefined; onBaseline: (id: string) => void }) {
  const byId = new Map((list ?? []).map((c) => [c.id, c]));
  const cols = [view.baseline, ...view.captures.filter((id) => id !== view.baseline)];
  const colorOf = (id: string) => captureColor(view.captures.indexOf(id));
  const unknown = list ? view.captures.filter((id) => !byId.has(id)) : [];

  return (
    <section className="nb-header">
      <div className="table-scroll">
        <table className="data-table captures-head">
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
                  <td key={id} className="num-left" title={c ? `${c.runs} runs; each point repeated up to ${c.repeats} times` : ''}>
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
      {cmp && <HostDiff cmp={cmp} cols={cols} colorOf={colorOf} />}
    </section>
  );
}

function HostDiff({ cmp, cols, colorOf }: { cmp: FioComparison; cols: string[]; colorOf: (id: string) => string }) {
  const [open, setOpen] = useState(true);
  const labels = new Map(cmp.captures.map((c) => [c.id, c.label]));
  return (
    <div className="host-diff">
      <h2>
        <button type="button" className="disclosure" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? '▾' : '▸'} Differing host facts <span className="muted count">{cmp.host_diff.length}</span>
        </button>
      </h2>
      {open &&
        (cmp.host_diff.length === 0 ? (
          <p className="muted">The captures' host facts are identical.</p>
        ) : (
          <div className="table-scroll">
            <table className="data-table diff-table">
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
                {cmp.host_diff.map((d) => {
                  const base = d.values[cmp.baseline] ?? null;
                  return (
                    <tr key={d.key}>
                      <th className="mono">{d.key}</th>
                      {cols.map((id) => {
                        const v = d.values[id] ?? null;
                        const differs = id !== cmp.baseline && v !== base;
                        return (
                          <td key={id} className={`mono${differs ? ' differs' : ''}`} title={differs ? `differs from the baseline (${base ?? 'null'})` : undefined}>
                            {v ?? <span className="muted">null</span>}
                          </td>
                        );
                      })}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        ))}
    </div>
  );
}

function CellMenu({ first, last, onUp, onDown, onRemove }: { first: boolean; last: boolean; onUp: () => void; onDown: () => void; onRemove: () => void }) {
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
          <button type="button" role="menuitem" className="danger" onClick={act(onRemove)}>
            Remove
          </button>
        </div>
      )}
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
