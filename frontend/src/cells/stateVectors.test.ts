// Each kind's decode on testdata/vectors/cell-state.json: the state texts the backend's text and
// HTML exports read too (backend/tests/test_shared_vectors.py), and what both read from them.
import { describe, expect, it } from 'vitest';
import { vectors } from '../testdata/vectors';
import { cellKind } from './registry';

interface CellStateVectors {
  kinds: Record<string, { state: string; reads: Record<string, unknown> }[]>;
}
const v = vectors<CellStateVectors>('cell-state');

/** The fields the exports read, in the vectors' form (a block range as [from, to]). */
function reads(state: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    const x = state[k];
    out[k] = k === 'range' && x ? [(x as { from: number }).from, (x as { to: number }).to] : x;
  }
  return out;
}

describe('cell states (testdata/vectors/cell-state.json)', () => {
  const cases = Object.entries(v.kinds).flatMap(([kind, list]) => list.map((c) => [`${kind}:${c.state}`, kind, c] as const));
  it.each(cases)('%s', (_, kind, c) => {
    const def = cellKind(kind);
    expect(def, kind).toBeDefined();
    const state = def!.decode(c.state);
    expect(state).not.toBeInstanceOf(Error);
    expect(reads(state as Record<string, unknown>, Object.keys(c.reads))).toEqual(c.reads);
    // and the text is the kind's own encoding, or decodes back to the same state
    expect(def!.decode(def!.encode(state))).toEqual(state);
  });
  it('covers every kind the exports read', () => {
    expect(Object.keys(v.kinds).sort()).toEqual(['block', 'events', 'fio', 'fiolog', 'flame', 'lockstat', 'monitors', 'offcpu', 'sched', 'sweep', 'sweepline', 'timeline']);
  });
});
