// The flame graph's columns answer read on testdata/vectors/flame-wire.json, the vectors its writer
// (backend/iolens/views/flame_wire.py) is tested on too: the bytes of each case read back as its
// tree, and each damaged answer read as an error that names what is wrong. Then the answer drawn:
// the layout of a read tree is the layout of the same tree as the JSON answer gives it.
import { describe, expect, it } from 'vitest';
import { vectors } from '../testdata/vectors';
import { layoutTree } from './flame';
import type { Names } from './flameNames';
import { decodeFlameColumns, decodeFlameDiffColumns, FlameWireError } from './flameWire';
import { diffLayout } from './flameDiff';

interface Tree {
  names: string[];
  name: number[];
  depth: number[];
  self_weight: number[];
  self_samples: number[];
}
interface Case {
  name: string;
  head_json: string;
  tree: Tree;
  sections: [string, string, number][];
  hex: string;
}
interface Bad {
  name: string;
  hex: string;
  error: string;
}
interface DiffTree {
  names: string[];
  name: number[];
  depth: number[];
  self_a: number[];
  self_b: number[];
  samples_a: number[];
  samples_b: number[];
  noise_self: boolean[] | null;
  noise_total: boolean[] | null;
}
interface DiffCase {
  name: string;
  head_json: string;
  tree: DiffTree;
  hex: string;
}
const v = vectors<{ cases: Case[]; bad: Bad[]; diff_cases: DiffCase[]; diff_bad: Bad[] }>('flame-wire');

/** The bytes in an ArrayBuffer of their own, as `Response.arrayBuffer()` gives them. */
function bytes(hex: string): ArrayBuffer {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out.buffer;
}

const plain = (t: { names: Names; name: ArrayLike<number>; depth: ArrayLike<number>; self_weight: ArrayLike<number>; self_samples: ArrayLike<number> }): Tree => ({
  names: t.names.all(),
  name: Array.from(t.name),
  depth: Array.from(t.depth),
  self_weight: Array.from(t.self_weight),
  self_samples: Array.from(t.self_samples),
});

describe('flame columns answer (testdata/vectors/flame-wire.json)', () => {
  it('has cases and damaged answers', () => {
    expect(v.cases.length).toBeGreaterThanOrEqual(5);
    expect(v.bad.length).toBeGreaterThanOrEqual(10);
  });

  for (const c of v.cases) {
    it(`reads ${c.name}`, () => {
      const { head, tree } = decodeFlameColumns(bytes(c.hex));
      expect(head).toEqual(JSON.parse(c.head_json));
      expect(plain(tree)).toEqual(c.tree);
      // the columns are typed arrays of the section's type, viewed in the answer's buffer
      const types: Record<string, string> = { Uint8Array: 'u8', Uint16Array: 'u16', Uint32Array: 'u32', Float64Array: 'f64' };
      const cols = { name: tree.name, depth: tree.depth, self_w: tree.self_weight, self_n: tree.self_samples };
      for (const [name, type] of c.sections.filter(([n]) => n in cols).map(([n, t]) => [n, t] as const)) {
        expect(types[cols[name as keyof typeof cols].constructor.name], name).toBe(type);
      }
    });
  }

  for (const b of v.bad) {
    it(`names what is wrong: ${b.name}`, () => {
      let err: unknown = null;
      try {
        decodeFlameColumns(bytes(b.hex));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FlameWireError);
      expect((err as Error).message).toContain(b.error);
      expect((err as Error).message.startsWith('flame answer: ')).toBe(true);
    });
  }

  it('every cut of an answer is an error', () => {
    const whole = new Uint8Array(bytes(v.cases[0]!.hex));
    for (let n = 0; n < whole.length; n++) expect(() => decodeFlameColumns(whole.slice(0, n).buffer)).toThrow(FlameWireError);
  });

  it('lays out as the JSON tree does', () => {
    const c = v.cases.find((x) => x.name === 'small')!;
    const { tree } = decodeFlameColumns(bytes(c.hex));
    const a = layoutTree({ names: tree.names, name: tree.name, depth: tree.depth, self: tree.self_weight });
    const b = layoutTree({ names: c.tree.names, name: c.tree.name, depth: c.tree.depth, self: c.tree.self_weight });
    expect({ ...a, names: a.names.all() }).toEqual({ ...b, names: b.names.all() });
    expect(Array.from(a.total)).toEqual([30, 30, 25, 15, 5]);
  });
});

describe('the difference as columns (testdata/vectors/flame-wire.json diff_cases)', () => {
  it('has cases with and without noise, and damaged answers', () => {
    expect(v.diff_cases.some((c) => c.tree.noise_self === null)).toBe(true);
    expect(v.diff_cases.some((c) => c.tree.noise_self !== null)).toBe(true);
    expect(v.diff_bad.length).toBeGreaterThanOrEqual(4);
  });

  for (const c of v.diff_cases) {
    it(`reads ${c.name}`, () => {
      const { head, tree } = decodeFlameDiffColumns(bytes(c.hex));
      expect(head).toEqual(JSON.parse(c.head_json));
      const flags = (f: Uint8Array | null) => (f === null ? null : Array.from(f, (x) => x === 1));
      expect({
        names: tree.names.all(),
        name: Array.from(tree.name),
        depth: Array.from(tree.depth),
        self_a: Array.from(tree.self_a),
        self_b: Array.from(tree.self_b),
        samples_a: Array.from(tree.samples_a),
        samples_b: Array.from(tree.samples_b),
        noise_self: flags(tree.noise_self),
        noise_total: flags(tree.noise_total),
      }).toEqual(c.tree);
      // laid out as the JSON tree is
      const a = diffLayout(tree);
      const b = diffLayout(c.tree);
      expect({ ...a, lay: { ...a.lay, names: a.lay.names.all() } }).toEqual({ ...b, lay: { ...b.lay, names: b.lay.names.all() } });
    });
  }

  for (const b of v.diff_bad) {
    it(`names what is wrong: ${b.name}`, () => {
      expect(() => decodeFlameDiffColumns(bytes(b.hex))).toThrow(FlameWireError);
      expect(() => decodeFlameDiffColumns(bytes(b.hex))).toThrow(b.error);
    });
  }

  it('a graph is not a difference, nor the reverse', () => {
    expect(() => decodeFlameDiffColumns(bytes(v.cases[0]!.hex))).toThrow("no section 'self_a'");
    expect(() => decodeFlameColumns(bytes(v.diff_cases[0]!.hex))).toThrow("no section 'self_w'");
  });
});
