// The inverted (bottom-up) call tree as a table: one row per function where samples end (self)
// and with it anywhere (total); a row expands to the function's callers, each with the samples
// of that longer chain. Sortable by name, self or total (the state's `by`). Arrow keys on a row:
// right expands, left collapses. The rows come from logic/flameStacks.ts (callerRows).
import { Fragment, useMemo, useState } from 'react';
import { fmtInt, fmtPct, fmtWeight, pctOf } from '../../logic/flameFormat';
import { callerRows, sortRows, type CallerRow, type RowKey, type Stacks } from '../../logic/flameStacks';
import { Bar } from './parts';

const FIRST = 100;

// The callers found so far, by chain, per set of stacks (a set of stacks is one answer after its transforms).
const callersCache = new WeakMap<Stacks, Map<string, CallerRow[]>>();
function childrenOf(s: Stacks): Map<string, CallerRow[]> {
  let m = callersCache.get(s);
  if (!m) callersCache.set(s, (m = new Map()));
  return m;
}

interface Line {
  row: CallerRow;
  /** The chain, leaf first, of this row (its own name last). */
  chain: number[];
  key: string;
  /** Expanded, with no caller: the chain starts its stacks. */
  top: boolean;
}

export function InvertedView({ stacks, unit, by, onBy, onMenu, onSandwich }: { stacks: Stacks; unit: string; by: RowKey; onBy: (b: RowKey) => void; onMenu: (name: string, x: number, y: number) => void; onSandwich: (name: string) => void }) {
  const roots = useMemo(() => callerRows(stacks, []), [stacks]);
  const children = childrenOf(stacks);
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [all, setAll] = useState(false);
  const total = useMemo(() => stacks.weight.reduce((a, b) => a + b, 0), [stacks]);
  const nameOf = (r: CallerRow) => stacks.names[r.name]!;

  const lines: Line[] = [];
  const walk = (rows: CallerRow[], chain: number[]) => {
    for (const row of sortRows(rows, by, nameOf)) {
      const c = [...chain, row.name];
      const key = c.join(',');
      const line: Line = { row, chain: c, key, top: false };
      lines.push(line);
      if (open.has(key)) {
        let kids = children.get(key);
        if (!kids) children.set(key, (kids = callerRows(stacks, c)));
        line.top = kids.length === 0;
        walk(kids, c);
      }
    }
  };
  const sortedRoots = sortRows(roots, by, nameOf);
  walk(all ? sortedRoots : sortedRoots.slice(0, FIRST), []);
  const toggle = (key: string, on?: boolean) => {
    const next = new Set(open);
    if (on ?? !next.has(key)) next.add(key);
    else for (const k of next) if (k === key || k.startsWith(`${key},`)) next.delete(k);
    setOpen(next);
  };
  const max = Math.max(...roots.map((r) => r.total), 1);
  const head = (k: RowKey, label: string, cls: string, title: string) => (
    <th className={cls} aria-sort={by === k ? (k === 'name' ? 'ascending' : 'descending') : 'none'}>
      <button type="button" className={`sort${by === k ? ' on' : ''}`} onClick={() => onBy(k)} title={title}>
        {label}
        {by === k ? (k === 'name' ? ' ▲' : ' ▼') : ''}
      </button>
    </th>
  );

  return (
    <section className="flame-table-box">
      <div className="flame-table-head">
        <h3>Inverted call tree</h3>
        <span className="muted small">
          bottom-up: functions where samples end; expand a row for its callers · % of all {fmtWeight(total, unit)} · right click a name for its sandwich and transforms
        </span>
      </div>
      <table className="data-table flame-table inverted-table" data-testid="inverted-table">
        <thead>
          <tr>
            {head('name', 'Function (callers below)', '', 'Order by name')}
            {head('self', 'Self', 'num', 'Samples whose stack ends in this chain (the function, called from the callers above it)')}
            <th className="bar-col" />
            <th className="num">Self time</th>
            {head('total', 'Total', 'num', 'Samples with this chain anywhere in the stack, each once')}
            <th className="num">Total time</th>
            <th className="num">Samples (self / total)</th>
          </tr>
        </thead>
        <tbody>
          {lines.map(({ row, chain, key, top }) => {
            const depth = chain.length - 1;
            const name = stacks.names[row.name]!;
            const isOpen = open.has(key);
            return (
              <Fragment key={key}>
                <tr className={depth > 0 ? 'caller' : ''} data-depth={depth}>
                  <td className="fn" style={{ paddingLeft: depth * 14 }}>
                    <button
                      type="button"
                      className="tree-toggle"
                      aria-expanded={isOpen}
                      aria-label={`${isOpen ? 'Collapse' : 'Expand'} the callers of ${name}`}
                      onClick={() => toggle(key)}
                      onKeyDown={(e) => {
                        if (e.key === 'ArrowRight') toggle(key, true);
                        else if (e.key === 'ArrowLeft') toggle(key, false);
                        else return;
                        e.preventDefault();
                      }}
                    >
                      {isOpen ? '▾' : '▸'}
                    </button>
                    <button
                      type="button"
                      className="fn-name"
                      title={`${name}: click for its callers and callees (sandwich), right click for transforms`}
                      onClick={() => onSandwich(name)}
                      onContextMenu={(e) => {
                        e.preventDefault();
                        onMenu(name, e.clientX, e.clientY);
                      }}
                    >
                      {name}
                    </button>
                  </td>
                  <td className="num">{fmtPct(pctOf(row.self, total))}</td>
                  <td className="bar-col">
                    <Bar v={row.self / max} on={by !== 'total'} />
                  </td>
                  <td className="num muted">{fmtWeight(row.self, unit)}</td>
                  <td className="num">{fmtPct(pctOf(row.total, total))}</td>
                  <td className="num muted">{fmtWeight(row.total, unit)}</td>
                  <td className="num muted">
                    {fmtInt(row.selfSamples)} / {fmtInt(row.totalSamples)}
                  </td>
                </tr>
                {top && (
                  <tr className="caller">
                    <td className="muted small" colSpan={7} style={{ paddingLeft: (depth + 1) * 14 + 18 }}>
                      no caller: the first frame of these stacks
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
      {roots.length > FIRST && (
        <button type="button" className="link-button show-more" onClick={() => setAll(!all)}>
          {all ? 'Show fewer' : `Show all ${roots.length} functions`}
        </button>
      )}
    </section>
  );
}
