/**
 * React keys for a notebook's cells. The URL holds the cells without ids, so the page keeps a key
 * per position beside them and edits both together: a cell keeps its key (and so its component,
 * with its caches, zoom and scroll) when its state changes, when it moves, and when cells before
 * it are added or removed. A URL changed from outside (back, forward, a pasted link) with a
 * different number of cells is fitted by position.
 */
export type KeyEdit = { op: 'move'; from: number; to: number } | { op: 'insert'; at: number } | { op: 'remove'; at: number };

export class CellKeys {
  private keys: number[] = [];
  private next = 1;

  /** The keys of `n` cells: the current ones, cut or extended with new keys at the end. */
  fit(n: number): readonly number[] {
    if (this.keys.length > n) this.keys = this.keys.slice(0, n);
    while (this.keys.length < n) this.keys.push(this.next++);
    return this.keys;
  }

  /** Apply the edit that the page is about to make to the cells. */
  edit(e: KeyEdit): void {
    const k = [...this.keys];
    if (e.op === 'move') {
      if (e.from < 0 || e.from >= k.length || e.to < 0 || e.to >= k.length) return;
      const [moved] = k.splice(e.from, 1);
      k.splice(e.to, 0, moved!);
    } else if (e.op === 'insert') {
      k.splice(Math.max(0, Math.min(e.at, k.length)), 0, this.next++);
    } else {
      if (e.at < 0 || e.at >= k.length) return;
      k.splice(e.at, 1);
    }
    this.keys = k;
  }
}
