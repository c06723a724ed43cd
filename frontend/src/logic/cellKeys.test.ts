import { describe, expect, it } from 'vitest';
import { CellKeys } from './cellKeys';

describe('CellKeys', () => {
  it('keeps keys by position while the cells only change state', () => {
    const k = new CellKeys();
    const a = [...k.fit(3)];
    expect(new Set(a).size).toBe(3);
    expect(k.fit(3)).toEqual(a);
  });

  it('follows a cell that moves, and a removal or insertion before it', () => {
    const k = new CellKeys();
    const [a, b, c] = k.fit(3);
    k.edit({ op: 'move', from: 2, to: 1 });
    expect(k.fit(3)).toEqual([a, c, b]);
    k.edit({ op: 'remove', at: 0 });
    expect(k.fit(2)).toEqual([c, b]);
    k.edit({ op: 'insert', at: 1 });
    const after = k.fit(3);
    expect([after[0], after[2]]).toEqual([c, b]);
    expect([a, b, c]).not.toContain(after[1]);
  });

  it('ignores moves out of range and fits an outside change by position', () => {
    const k = new CellKeys();
    const [a, b] = k.fit(2);
    k.edit({ op: 'move', from: 1, to: 2 });
    expect(k.fit(2)).toEqual([a, b]);
    expect(k.fit(1)).toEqual([a]);
    const grown = k.fit(3);
    expect(grown[0]).toBe(a);
    expect(grown).not.toContain(b); // a key is never given to two different cells
  });
});
