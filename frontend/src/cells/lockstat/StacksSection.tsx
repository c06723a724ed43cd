// "In perf stacks": a lock class's call sites found in the perf call stacks of the notebook's
// captures (GET /api/captures/{id}/lock-stat/stacks), with a link that opens the flame graph of a
// capture with those frames searched.
import { Fragment, useMemo, useState } from 'react';
import { ErrorBox } from '../../components/ErrorBox';
import { buildStacksView, type StackView, type SymbolCaptureRow } from '../../logic/lockStacks';
import { codeSpans } from '../../logic/lockStat';
import { defaultFlameState, type FlameState } from '../flame/state';
import { useLockStatStacks } from './queries';

function Code({ text }: { text: string }) {
  return (
    <>
      {codeSpans(text).map((s, i) => (s.code ? <code key={i}>{s.text}</code> : <Fragment key={i}>{s.text}</Fragment>))}
    </>
  );
}

export function StacksSection({
  capture,
  lockClass,
  occurrence,
  captures,
  colorOf,
  openCell,
}: {
  /** The capture whose lock_stat has the class (the baseline's when it has it). */
  capture: string;
  lockClass: string;
  occurrence: number;
  /** The notebook's captures: their stacks are searched, their lock_stat call sites added. */
  captures: string[];
  colorOf: (id: string) => string;
  openCell?: (kind: string, state: unknown) => void;
}) {
  const others = useMemo(() => captures.filter((c) => c !== capture), [captures, capture]);
  const q = useLockStatStacks(capture, lockClass, occurrence, others);
  const view = useMemo(() => (q.data ? buildStacksView(q.data, colorOf) : null), [q.data, colorOf]);
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = (k: string) => setOpen((o) => new Set(o.has(k) ? [...o].filter((x) => x !== k) : [...o, k]));
  if (q.loading) return <p className="muted small lock-stacks-loading">Looking for the call sites in perf stacks…</p>;
  if (q.error) return <ErrorBox error={q.error} title="call sites in perf stacks" />;
  if (!view || !q.data) return null;
  const events = [...new Set(view.withStacks.map((c) => c.event ?? '(none)'))];

  const flame = (r: SymbolCaptureRow) => {
    const state: FlameState = { ...defaultFlameState, cap: r.capture.id, search: r.search };
    openCell?.('flame', state);
  };

  return (
    <section className="lock-stacks" data-testid="lockstat-stacks">
      <h4 className="lock-stacks-head">
        In perf stacks
        {view.withStacks.length > 0 && (
          <span className="muted">
            {' '}
            · {events.join(', ')} samples of {view.withStacks.length === 1 ? 'one capture' : `${view.withStacks.length} captures`}, all runs · a call site counts the samples with its frame anywhere in the stack
          </span>
        )}
      </h4>
      {view.empty ? (
        <p className="lock-stacks-empty" data-testid="lockstat-stacks-empty">
          <Code text={view.empty} />
        </p>
      ) : view.symbols.length === 0 ? (
        <p className="muted small">No call site of this class has a symbol to look for.</p>
      ) : (
        <table className="lock-stacks-table">
          <thead>
            <tr>
              <th>call site</th>
              <th title="what lock_stat says of the call site: times it waited (contention point) and held the lock while others waited (contending point), summed over the captures naming it">lock_stat</th>
              <th>capture</th>
              <th className="num" title="samples whose call stack has the call site's frame (each sample once, also where it recurses)">samples</th>
              <th className="num" title="those samples' periods summed: CPU time for cpu-clock">CPU time</th>
              <th className="num" title="share of the capture's samples (weights) under the frame: what the flame graph's search of the same frames says it matched">of capture</th>
              <th className="num" title={`of those samples, the share with a lock slow-path frame below the call site (spinning, or on the way to sleep on a contended lock): ${view.slowpath.join(', ')}`}>
                in slow path
              </th>
              <th />
            </tr>
          </thead>
          <tbody>
            {view.symbols.map((s) =>
              !s.found ? (
                <tr key={s.name} className="sym-first absent" data-symbol={s.name}>
                  <td className="mono sym" title={s.fromTitle}>
                    {s.name}
                  </td>
                  <td className="from muted" title={s.fromTitle}>
                    {s.from}
                  </td>
                  <td colSpan={6} className="muted">
                    not in any capture's stacks
                  </td>
                </tr>
              ) : (
                s.captures.map((r, i) => {
                  const k = `${s.name}\u0000${r.capture.id}`;
                  return (
                    <Fragment key={k}>
                      <tr className={i === 0 ? 'sym-first' : ''} data-symbol={s.name} data-capture={r.capture.id}>
                        {i === 0 && (
                          <>
                            <td rowSpan={s.captures.length + s.captures.filter((x) => open.has(`${s.name}\u0000${x.capture.id}`)).length} className="mono sym" title={s.fromTitle}>
                              {s.name}
                            </td>
                            <td rowSpan={s.captures.length + s.captures.filter((x) => open.has(`${s.name}\u0000${x.capture.id}`)).length} className="from muted" title={s.fromTitle}>
                              {s.from}
                            </td>
                          </>
                        )}
                        <td className="cap" title={`${r.capture.label} (${r.capture.id})${r.capture.kernel ? `, kernel ${r.capture.kernel}` : ''}`}>
                          <span className="swatch" style={{ background: r.color }} />
                          <span className="cap-name">{r.capture.label}</span>
                        </td>
                        <td className={`num${r.found ? '' : ' muted'}`} title={r.titles.samples}>
                          {r.found ? r.samples : '0'}
                        </td>
                        <td className="num" title={r.found ? r.titles.weight : undefined}>
                          {r.weight}
                        </td>
                        <td className="num share" title={r.found ? r.titles.share : undefined}>
                          {r.found && (
                            <>
                              <span className="share-bar" style={{ width: `${Math.max(1, Math.round(r.bar * 40))}px` }} />
                              {r.share}
                            </>
                          )}
                        </td>
                        <td className="num" title={r.found ? r.titles.slow : undefined}>
                          {r.slow}
                        </td>
                        <td className="actions">
                          {r.found && (
                            <>
                              <button type="button" className="link-button" aria-expanded={open.has(k)} onClick={() => toggle(k)} title="the heaviest stacks with this frame (up to 5)">
                                {open.has(k) ? '▾' : '▸'} stacks
                              </button>
                              {openCell && (
                                <button
                                  type="button"
                                  className="link-button flame-link"
                                  onClick={() => flame(r)}
                                  title={`Add a flame graph of ${r.capture.label} with ${r.search} searched (matches in purple)`}
                                >
                                  flame graph ↗
                                </button>
                              )}
                            </>
                          )}
                        </td>
                      </tr>
                      {open.has(k) && (
                        <tr className="stacks-row">
                          <td colSpan={6}>
                            <TopStacks stacks={r.stacks} />
                          </td>
                        </tr>
                      )}
                    </Fragment>
                  );
                })
              ),
            )}
          </tbody>
        </table>
      )}
      {view.withoutStacks.length > 0 && view.withStacks.length > 0 && (
        <p className="muted small">
          Without perf stacks: {view.withoutStacks.map((c) => c.label).join(', ')} (recorded without <code>--stacks</code>).
        </p>
      )}
      {view.notes.length > 0 && (
        <ul className="lock-stacks-notes muted small">
          {view.notes.map((n) => (
            <li key={n}>
              <Code text={n} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function TopStacks({ stacks }: { stacks: StackView[] }) {
  return (
    <table className="top-stacks">
      <tbody>
        {stacks.map((s) => (
          <tr key={s.folded} title={s.folded}>
            <td className="num">{s.weight}</td>
            <td className="num muted">{s.pct}</td>
            <td className="mono frames">
              <span className="comm">{s.comm}</span>
              {s.elided > 0 && <span className="elided"> ;… {s.elided} frames …</span>}
              {s.frames.map((f, i) => (
                <Fragment key={i}>
                  <span className="sep">;</span>
                  <wbr />
                  <span className={f.match ? 'hit' : f.slow ? 'slow' : undefined}>{f.name}</span>
                </Fragment>
              ))}
              {s.slowpath && <span className="slow-badge">slow path</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
