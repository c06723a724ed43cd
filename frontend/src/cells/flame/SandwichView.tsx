// The sandwich of one function (speedscope's): its callers above (a flame graph rooted at the
// function, growing up to the task), its callees below (an icicle rooted at it), both merged over
// every place the function appears, so both weigh its total. Each half zooms on its own.
import { useMemo, useState } from 'react';
import { sandwichFills } from '../../charts/flameCanvas';
import { layoutTree, subtreeSums, type FlameLayout } from '../../logic/flame';
import { fmtInt, fmtPct, fmtWeight, pctOf } from '../../logic/flameFormat';
import { sandwich, TRANSFORM_LABEL, treeFromStacks, type FlameOrder, type Stacks } from '../../logic/flameStacks';
import { FlameChart } from './FlameChart';
import type { FlameState } from './state';
import { spanText } from './layouts';
import { addTransform, OPS } from './StacksBar';

interface Half {
  lay: FlameLayout;
  samples: Float64Array;
  span: { min: Int32Array; max: Int32Array } | null;
}

/** The callees have no command names (they lie above the function). */
const NO_COMMANDS: ReadonlySet<number> = new Set();

function half(s: Stacks, order: FlameOrder): Half {
  const t = treeFromStacks(s, order);
  return { lay: layoutTree(t), samples: subtreeSums(Array.from(t.depth), Array.from(t.samples)), span: t.span ?? null };
}

export function SandwichView({ stacks, fn, order, unit, match, state, set, onMenu }: { stacks: Stacks; fn: string | null; order: FlameOrder; unit: string; match: Uint8Array | null; state: FlameState; set: (p: Partial<FlameState>) => void; onMenu: (name: string, x: number, y: number) => void }) {
  const sw = useMemo(() => (fn ? sandwich(stacks, fn) : null), [stacks, fn]);
  const up = useMemo(() => (sw ? half(sw.callers, order) : null), [sw, order]);
  const down = useMemo(() => (sw ? half(sw.callees, order) : null), [sw, order]);
  const all = useMemo(() => stacks.weight.reduce((a, b) => a + b, 0), [stacks]);
  const names = useMemo(() => [...new Set(Array.from(stacks.frames, (f) => stacks.names[f]!))].sort(), [stacks]);
  const [draft, setDraft] = useState(fn ?? '');
  const pick = (v: string) => {
    setDraft(v);
    if (names.includes(v)) set({ fn: v, zoom: [] });
  };

  const picker = (
    <label className="select-label sandwich-pick">
      Function
      <input list="sandwich-names" value={draft} placeholder="a function name" aria-label="Sandwich function" spellCheck={false} onChange={(e) => pick(e.target.value)} />
      <datalist id="sandwich-names">
        {names.slice(0, 5000).map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
    </label>
  );
  if (!fn || !sw || !up || !down)
    return (
      <section className="sandwich" data-testid="sandwich">
        <div className="sandwich-head">{picker}</div>
        <p className="muted">
          {fn ? (
            <>
              <code>{fn}</code> is not in these stacks (this selection, after the transforms).
            </>
          ) : (
            'Pick a function: here, with the ⇅ of the top functions table, a name of the inverted tree, or a right click on a frame of the flame graph.'
          )}
        </p>
      </section>
    );
  return (
    <section className="sandwich" data-testid="sandwich">
      <div className="sandwich-head">
        {picker}
        <span className="sandwich-nums" data-testid="sandwich-summary">
          <strong>{fn}</strong> · self <strong>{fmtPct(pctOf(sw.self, all))}</strong> ({fmtWeight(sw.self, unit)}, {fmtInt(sw.selfSamples)} samples) · total <strong>{fmtPct(pctOf(sw.total, all))}</strong> ({fmtWeight(sw.total, unit)},{' '}
          {fmtInt(sw.totalSamples)} samples) of {fmtWeight(all, unit)}
        </span>
        <span className="sandwich-ops">
          {OPS.map((op) => (
            <button key={op} type="button" className="toggle" onClick={() => set(addTransform(state, op, fn))}>
              {TRANSFORM_LABEL[op]}
            </button>
          ))}
        </span>
      </div>
      <HalfChart title="Callers" what="who calls it, up to the task: each frame's width is the samples through it" h={up} root={sw.total} all={all} unit={unit} icicle={false} match={match} commands={sw.commands} slot="callers" onMenu={onMenu} />
      <HalfChart title="Callees" what="what it calls, merged over every call" h={down} root={sw.total} all={all} unit={unit} icicle={true} match={match} commands={NO_COMMANDS} slot="callees" onMenu={onMenu} />
    </section>
  );
}

function HalfChart({ title, what, h, root, all, unit, icicle, match, commands, slot, onMenu }: { title: string; what: string; h: Half; root: number; all: number; unit: string; icicle: boolean; match: Uint8Array | null; commands: ReadonlySet<number>; slot: string; onMenu: (name: string, x: number, y: number) => void }) {
  const [zoom, setZoom] = useState(0);
  // functions coloured by name, as in the flame graph (the root, the function, and its direct
  // callers or callees included); only the command names grey
  const fill = useMemo(() => sandwichFills(h.lay, match, commands), [h, match, commands]);
  const lay = h.lay;
  const z = zoom < lay.n ? zoom : 0;
  const tooltip = (n: number) => (
    <>
      <div className="tt-name">{lay.names.get(lay.name[n]!)}</div>
      <table className="tt-table">
        <tbody>
          <tr>
            <th>Total</th>
            <td className="num">{fmtPct(pctOf(lay.total[n]!, all))} of all</td>
            <td className="num">{fmtPct(pctOf(lay.total[n]!, root))} of the function</td>
            <td className="num">{fmtInt(h.samples[n]!)} samples</td>
            <td className="num">{fmtWeight(lay.total[n]!, unit)}</td>
          </tr>
          {h.span && h.span.max[n]! > 1 && (
            <tr data-testid="tt-span">
              <th>Collapsed</th>
              <td colSpan={4}>{spanText(h.span.min[n]!, h.span.max[n]!)}</td>
            </tr>
          )}
        </tbody>
      </table>
      <div className="tt-hint muted">{n === z ? (z > 0 ? 'click the root to zoom out' : 'the function') : 'click to zoom · right click for its sandwich'}</div>
    </>
  );
  return (
    <div className={`sandwich-half ${slot}`}>
      <h4>
        {title} <span className="muted">{what}</span>
      </h4>
      <FlameChart lay={lay} zoom={z} icicle={icicle} fill={fill} tooltip={tooltip} onZoom={(n) => setZoom(n === z ? 0 : n)} maxHeight={360} slot={slot} label={`${title} of the function`} onMenu={(n, x, y) => onMenu(lay.names.get(lay.name[n]!)!, x, y)} />
    </div>
  );
}
