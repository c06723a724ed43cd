// The names table (flameNames.ts): a table over the NUL-joined text reads as the list it was made
// of, name by name, as a whole, by name, and in a substring search; and the flame search over a
// table finds what it finds over the list.
import { describe, expect, it } from 'vitest';
import { searchMatches } from './flame';
import { Names } from './flameNames';

const LIST = ['all', 'fio', 'vfs_write', 'xfs_file_write_iter', 'write', 'é_ü', '中文_write', '😀 x', 'a', '', 'iter_write_end'];

describe('Names over a joined text', () => {
  const t = Names.joined(LIST.join('\0'), LIST.length)!;

  it('reads each name, every name, and nothing past the ends', () => {
    expect(t.length).toBe(LIST.length);
    LIST.forEach((n, i) => expect(t.get(i)).toBe(n));
    expect(t.get(-1)).toBeUndefined();
    expect(t.get(LIST.length)).toBeUndefined();
    expect(t.get(1.5)).toBeUndefined();
    expect(t.all()).toEqual(LIST);
    // after all(), the same answers
    LIST.forEach((n, i) => expect(t.get(i)).toBe(n));
  });

  it('finds a name by its whole text only', () => {
    const fresh = Names.joined(LIST.join('\0'), LIST.length)!;
    for (const [i, n] of LIST.entries()) expect(fresh.indexOf(n), n).toBe(i);
    expect(fresh.indexOf('writ')).toBe(-1); // inside names, never a whole one
    expect(fresh.indexOf('write_iter')).toBe(-1);
    expect(fresh.indexOf('missing')).toBe(-1);
    expect(fresh.indexOf('fio\0vfs_write')).toBe(-1);
  });

  it('compares names as < compares their strings, without making them', () => {
    const sign = (x: number) => (x < 0 ? -1 : x > 0 ? 1 : 0);
    const list = Names.of(LIST);
    for (let p = 0; p < LIST.length; p++) {
      for (let q = 0; q < LIST.length; q++) {
        const want = LIST[p]! < LIST[q]! ? -1 : LIST[p]! > LIST[q]! ? 1 : 0;
        expect(sign(t.compare(p, q)), `${LIST[p]} vs ${LIST[q]}`).toBe(want);
        expect(sign(list.compare(p, q))).toBe(want);
      }
    }
  });

  it('says when the text holds another number of names', () => {
    expect(Names.joined('a\0b', 3)).toBeNull();
    expect(Names.joined('a\0b\0c', 2)).toBeNull();
    expect(Names.joined('a', 0)).toBeNull();
    expect(Names.joined('', 0)!.length).toBe(0);
    expect(Names.joined('', 1)!.all()).toEqual(['']);
    expect(Names.joined('\0', 2)!.all()).toEqual(['', '']);
  });

  it('marks the names that contain a text, as a test of each name does', () => {
    const list = Names.of(LIST);
    for (const part of ['write', 'w', 'e', '_', 'é', '😀', 'all', 'end', 'x', 'zz', 'ter_w', 'e_w']) {
      const want = LIST.map((n) => (n.includes(part) ? 1 : 0));
      expect(Array.from(t.containing(part)), part).toEqual(want);
      expect(Array.from(list.containing(part)), part).toEqual(want);
    }
    const within = Uint8Array.from(LIST, (_, i) => i % 2);
    expect(Array.from(t.containing('write', within))).toEqual(LIST.map((n, i) => (i % 2 && n.includes('write') ? 1 : 0)));
  });
});

describe('search over a table', () => {
  // random names over a small alphabet, so that substrings repeat across and inside names
  let seed = 7;
  const rand = (k: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff), seed % k);
  const list = Array.from({ length: 400 }, () => Array.from({ length: 1 + rand(9) }, () => 'ab_cé'[rand(5)]).join(''));

  it('matches as over the list, for plain text and regular expressions, typed a key at a time', () => {
    const table = Names.joined(list.join('\0'), list.length)!;
    const asList = [...list];
    let found = 0;
    for (const typed of ['a', 'ab', 'ab_', 'ab_c', 'b', 'bé', '_', '^a', 'a$', '(a|c)_', 'é.*b']) {
      const a = searchMatches(table, typed);
      const b = searchMatches(asList, typed);
      expect(a.ok && b.ok).toBe(true);
      expect(Array.from((a as { match: Uint8Array }).match), typed).toEqual(Array.from((b as { match: Uint8Array }).match));
      if ((a as { match: Uint8Array }).match.some((x) => x === 1)) found++;
    }
    expect(found).toBeGreaterThanOrEqual(9);
  });
});
