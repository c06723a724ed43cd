import { describe, expect, it } from 'vitest';
import { cellKind, cellKinds, DEFAULT_CELLS, registry } from './registry';
import { decodeFioTable, encodeFioTable } from './fio/state';

describe('cell registry', () => {
  it('every kind has a valid name, a title and a default state that encodes to ""', () => {
    for (const k of cellKinds()) {
      expect(k.kind).toMatch(/^[a-z][a-z0-9_-]*$/);
      expect(registry[k.kind]).toBe(k);
      expect(k.title.length).toBeGreaterThan(0);
      expect(k.encode(k.defaultState)).toBe('');
      expect(k.decode('')).toEqual(k.defaultState);
      expect(k.Component).toBeDefined();
    }
    for (const d of DEFAULT_CELLS) expect(cellKind(d)).toBeDefined();
    expect(cellKind('toString')).toBeUndefined();
  });

  // Importing every cell's view has Vite transform most of the app's modules the first time: 23 s of
  // transform under load 20 (2026-11-28), over the 20 s limit of the other tests (vite.config.ts).
  // 120 s is still a limit against a hang.
  it("every kind's view loads on demand (cells/lazy.ts) into a component, once", { timeout: 120_000 }, async () => {
    for (const k of cellKinds()) {
      expect(k.preload, k.kind).toBeTypeOf('function');
      const first = k.preload!();
      expect(k.preload!()).toBe(first);
      expect(await first, k.kind).toBeTypeOf('function');
    }
  });

  it('decode never throws on garbage', () => {
    const junk = ['=', ';;;', 'm=,', 'x=1', '\u0000', 'm=a b', 'strip=yes', '%%%', 'a'.repeat(5000)];
    for (const k of cellKinds()) for (const j of junk) expect(() => k.decode(j)).not.toThrow();
  });
});

describe('fio table cell state', () => {
  const cases = [
    { metrics: null, strips: true },
    { metrics: null, strips: false },
    { metrics: ['iops'], strips: true },
    { metrics: ['clat_p99.9', 'iops', 'sys_cpu'], strips: false },
  ];
  it.each(cases)('round trip %j', (s) => expect(decodeFioTable(encodeFioTable(s))).toEqual(s));

  it('rejects garbage with a reason', () => {
    expect(decodeFioTable('m=')).toBeInstanceOf(Error);
    expect((decodeFioTable('bogus') as Error).message).toMatch(/not key=value/);
    expect((decodeFioTable('q=1') as Error).message).toMatch(/unknown field 'q'/);
    expect((decodeFioTable('m=a b') as Error).message).toMatch(/not a metric name/);
    expect(decodeFioTable('strip=2')).toBeInstanceOf(Error);
  });
});

describe('note cell state', () => {
  const note = cellKind('note')!;
  it('keeps any text, refuses huge ones', () => {
    expect(note.decode(note.encode({ text: 'a;b=c:d\n' }))).toEqual({ text: 'a;b=c:d\n' });
    expect(note.decode('x'.repeat(5000))).toEqual({ text: 'x'.repeat(5000) });
    expect(note.decode('x'.repeat(25000))).toBeInstanceOf(Error);
  });
});
