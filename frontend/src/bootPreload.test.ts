// The requests index.html preloads for a page's URL (the server's rule, backend/iolens/api/
// index_preload.py, testdata/vectors/index-preload.json) are requests this page's boot.ts makes
// from the same URL: the same URL, a GET without a header of its own, so that the browser gives
// the page's request the preloaded answer. A vector naming a request boot.ts does not make (a
// wasted preload), or boot.ts asking with a header, fails here.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { vectors } from './testdata/vectors';

const ORIGIN = 'http://iolens.test';
const v = vectors<{ rule: string; cases: { name: string; url: string; preloads: string[]; told?: string[] }[] }>('index-preload');

describe("index.html's preloads are boot.ts's own requests (testdata/vectors/index-preload.json)", () => {
  let asked: { url: string; method: string; headers: string[] }[] = [];
  let boot: typeof import('./boot');
  let queries: typeof import('./api/useQuery');
  beforeAll(async () => {
    // The API client (openapi-fetch) keeps the fetch and Request of when it is made, and makes a
    // Request of a path (a browser resolves it against the page): fresh modules made with these.
    const Base = globalThis.Request;
    vi.stubGlobal(
      'Request',
      class extends Base {
        constructor(input: RequestInfo | URL, init?: RequestInit) {
          super(typeof input === 'string' && input.startsWith('/') ? ORIGIN + input : input, init);
        }
      },
    );
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(String(input), init);
      const u = new URL(req.url, ORIGIN);
      asked.push({ url: u.pathname + u.search, method: req.method, headers: [...req.headers.keys()] });
      return Promise.resolve(new Response('{"error":"not here","detail":null}', { status: 404, headers: { 'Content-Type': 'application/json' } }));
    });
    vi.resetModules();
    boot = await import('./boot');
    queries = await import('./api/useQuery');
  });
  afterAll(() => {
    vi.unstubAllGlobals();
    vi.resetModules(); // the next files' modules are made with the real fetch
  });
  beforeEach(() => {
    asked = [];
    queries.invalidate('');
  });

  it.each(v.cases)('$name', async ({ url, preloads, told = [] }) => {
    const u = new URL(url, ORIGIN);
    await boot.bootFromUrl(u.pathname, u.search, told);
    // the captures the server said have no stacks: no flame answer asked for (a 404 in the console)
    for (const id of told) expect(asked.filter((a) => a.url.startsWith(`/api/captures/${id}/flame`))).toEqual([]);
    for (const p of preloads) {
      const mine = asked.filter((a) => a.url === p);
      expect(mine, `${p} among ${JSON.stringify(asked.map((a) => a.url))}`).toHaveLength(1);
      expect(mine[0]!.method).toBe('GET');
      expect(mine[0]!.headers, p).toEqual([]);
    }
  });

  it('the 51k notebook: the flame answer asked for with format=columns, first', async () => {
    await boot.bootFromUrl('/compare', '?v=1&captures=a1&baseline=a1&cell=flame');
    expect(asked.map((a) => a.url)).toEqual(['/api/captures/a1/flame?format=columns', '/api/captures', '/api/health']);
  });
});
