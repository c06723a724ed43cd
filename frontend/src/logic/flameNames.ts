// A flame graph's frame names by id, as a table that makes a name's string only when it is asked
// for. The columns answer (flameWire.ts) holds ~216k names at 450k nodes in one NUL-joined text;
// splitting it into 216k strings took ~60-110 ms of the page's main thread before the first paint,
// which draws a few hundred labels. Here the text is kept whole with where each name starts, a
// name is cut out of it when read (`get`), and the whole list is made once, for the readers that
// need every name (`all`: the sandwich, the inverted tree, a left-heavy order, a regular-expression
// search). A plain-text search runs over the whole text at once (`containing`).
//
// A JSON answer (or a tree built in the page) gives its names as a list: `Names.of(list)`.

export class Names {
  /** How many names. */
  readonly length: number;
  #list: string[] | null;
  /** The names joined by NUL (null: made from a list). */
  readonly #text: string | null;
  /** Where name i starts in #text; #at[length] is #text.length + 1. */
  readonly #at: Uint32Array | null;

  private constructor(length: number, list: string[] | null, text: string | null, at: Uint32Array | null) {
    this.length = length;
    this.#list = list;
    this.#text = text;
    this.#at = at;
  }

  /** The names of a list (kept, not copied). */
  static of(list: string[]): Names {
    return new Names(list.length, list, null, null);
  }

  /**
   * The names of a NUL-joined text (none holds a NUL) of `count` names, null when the text holds
   * another number of names. One native search per name finds where each starts; no string is made.
   */
  static joined(text: string, count: number): Names | null {
    if (count === 0) return text === '' ? new Names(0, [], null, null) : null;
    const at = new Uint32Array(count + 1);
    let p = 0;
    for (let i = 1; i < count; i++) {
      p = text.indexOf('\0', p);
      if (p < 0) return null;
      at[i] = ++p;
    }
    if (text.indexOf('\0', p) >= 0) return null;
    at[count] = text.length + 1;
    return new Names(count, null, text, at);
  }

  /** Name i (an id of the tree's name column); undefined past the ends, as a list's element. */
  get(i: number): string | undefined {
    if (this.#list !== null) return this.#list[i];
    if (!(i >= 0 && i < this.length) || !Number.isInteger(i)) return undefined;
    const at = this.#at!;
    return this.#text!.slice(at[i]!, at[i + 1]! - 1);
  }

  /**
   * Names p and q in the order of `<` on their strings (UTF-16 code units): negative, 0 or
   * positive. Over the joined text no string is made (the top functions table compares ~216k
   * names at 450k nodes, most of them tied on their weights).
   */
  compare(p: number, q: number): number {
    if (this.#list !== null) {
      const a = this.#list[p]!;
      const b = this.#list[q]!;
      return a < b ? -1 : a > b ? 1 : 0;
    }
    const text = this.#text!;
    const at = this.#at!;
    let i = at[p]!;
    let j = at[q]!;
    const ei = at[p + 1]! - 1;
    const ej = at[q + 1]! - 1;
    for (; i < ei && j < ej; i++, j++) {
      const d = text.charCodeAt(i) - text.charCodeAt(j);
      if (d !== 0) return d;
    }
    return ei - i - (ej - j);
  }

  /** Every name, in id order (made once, then kept: not to be changed). */
  all(): string[] {
    if (this.#list === null) this.#list = this.#text!.split('\0');
    return this.#list;
  }

  /** The id of a name, -1 if none. */
  indexOf(name: string): number {
    if (this.#list === null && !name.includes('\0')) {
      // a search of the text for the name between separators: no list made
      const text = this.#text!;
      const at = this.#at!;
      for (let p = text.indexOf(name); p >= 0; p = text.indexOf(name, p + 1)) {
        const end = p + name.length;
        if ((p === 0 || text.charCodeAt(p - 1) === 0) && (end === text.length || text.charCodeAt(end) === 0)) return upper(at, p) - 1;
      }
      return -1;
    }
    return this.all().indexOf(name);
  }

  /**
   * Per name, 1 where it contains `part` (a plain substring, not empty), narrowed to the ids where
   * `within` is 1 when it is given. Over the joined text, one native search per match.
   */
  containing(part: string, within: Uint8Array | null = null): Uint8Array {
    const out = new Uint8Array(this.length);
    const text = this.#text;
    if (text === null || part.includes('\0')) {
      const list = this.all();
      for (let i = 0; i < list.length; i++) if ((within === null || within[i]) && list[i]!.includes(part)) out[i] = 1;
      return out;
    }
    // matches come in text order; the name of each is found by walking the starts forward
    const at = this.#at!;
    let id = 0;
    for (let p = text.indexOf(part); p >= 0; ) {
      while (at[id + 1]! <= p) id++;
      if (within === null || within[id]) out[id] = 1;
      if (id + 1 >= this.length) break;
      p = text.indexOf(part, at[id + 1]!);
    }
    return out;
  }
}

/** The first index whose value is above x in an ascending array. */
function upper(a: Uint32Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
