import { afterEach, describe, expect, it, vi } from 'vitest';

/** localStorage's interface over a Map, counting the calls that read it. */
class MemoryStorage implements Storage {
  readonly data = new Map<string, string>();
  reads = 0;
  get length(): number {
    this.reads++;
    return this.data.size;
  }
  key(i: number): string | null {
    this.reads++;
    return [...this.data.keys()][i] ?? null;
  }
  getItem(k: string): string | null {
    this.reads++;
    return this.data.get(k) ?? null;
  }
  setItem(k: string, v: string): void {
    this.data.set(k, v);
  }
  removeItem(k: string): void {
    this.data.delete(k);
  }
  clear(): void {
    this.data.clear();
  }
}

const DAY = 86_400_000;

/** A fresh copy of drafts.ts (its "pruned once" flag is per module) over `storage`. */
async function drafts(storage: Storage) {
  vi.stubGlobal('window', { localStorage: storage, location: { pathname: '/compare', search: '?v=1' } });
  vi.resetModules();
  return import('./drafts');
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('openDrafts', () => {
  it('drops stale and unreadable drafts once, keeps fresh ones and other keys', async () => {
    const s = new MemoryStorage();
    const now = Date.now();
    s.setItem('iolens:draft:/compare?v=1#title', JSON.stringify({ text: 'fresh', at: now - DAY }));
    s.setItem('iolens:draft:/compare?v=2#title', JSON.stringify({ text: 'stale', at: now - 31 * DAY }));
    s.setItem('iolens:draft:/compare?v=3#title', 'not json');
    s.setItem('iolens:token', 'kept');
    const m = await drafts(s);
    m.openDrafts();
    expect([...s.data.keys()].sort()).toEqual(['iolens:draft:/compare?v=1#title', 'iolens:token']);
    // the title's first render then reads only its own key: the pruning is not done again
    s.reads = 0;
    s.setItem('iolens:draft:/compare?v=4#title', JSON.stringify({ text: 'old', at: now - 40 * DAY }));
    expect(m.loadDraft('/compare?v=1#title')).toEqual({ text: 'fresh', at: now - DAY });
    expect(s.reads).toBe(1);
    expect(s.data.has('iolens:draft:/compare?v=4#title')).toBe(true);
  });

  it('prunes at the first loadDraft when the page did not open the storage first', async () => {
    const s = new MemoryStorage();
    s.setItem('iolens:draft:/compare?v=2#title', JSON.stringify({ text: 'stale', at: Date.now() - 31 * DAY }));
    const m = await drafts(s);
    expect(m.loadDraft('/compare?v=2#title')).toBeNull();
    expect(s.data.size).toBe(0);
  });

  it('does nothing where storage is refused', async () => {
    vi.stubGlobal('window', {
      get localStorage(): Storage {
        throw new DOMException('denied', 'SecurityError');
      },
    });
    vi.resetModules();
    const m = await import('./drafts');
    expect(() => m.openDrafts()).not.toThrow();
    expect(m.loadDraft('x')).toBeNull();
  });
});
